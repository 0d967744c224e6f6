internal import BoardCore
package import BoardHub
import Foundation

/// Writes one line per event to stderr: `TIME LEVEL message`.
package struct Logger: Sendable {
    /// Lines below this level are dropped.
    package var level: LogLevel

    /// A logger.
    package init(level: LogLevel = .info) { self.level = level }

    /// Logs `message` at `level`; the message is built only when it will be printed.
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        let line = "\(Self.timestamp()) \(level.name) \(Self.escaped(message()))\n"
        // One write(2) per line keeps lines from different threads whole.
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)
        }
    }

    /// Debug detail.
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    /// Normal events.
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Survived oddities.
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Failures.
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }

    /// `text` safe for one log line on a terminal: control characters (newlines, ESC, C1), bidi
    /// controls and other invisible scalars, which a client could use to forge lines or drive an
    /// operator's terminal, become `\u{…}`; so does a backslash-u, so an escape cannot be forged.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) || text.contains("\\u") else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) || scalar == "\\" {
                out += "\\u{\(String(scalar.value, radix: 16))}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        Text.isControl(scalar) || Text.isInvisible(scalar)
    }

    private static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var t = now.tv_sec
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, now.tv_nsec / 1_000_000)
    }
}
