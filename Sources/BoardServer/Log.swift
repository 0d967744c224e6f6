internal import BoardCore
package import BoardHub
import Foundation

/// How log lines are written.
package enum LogFormat: String, Sendable, CaseIterable {
    /// `TIME LEVEL message`, client text escaped as `\u{…}`.
    case text
    /// One JSON object per line: `{"time":…,"level":…,"msg":…}`.
    case json
}

/// Writes one line per event to stderr: `TIME LEVEL message`, or a JSON object per line.
package struct Logger: Sendable {
    /// Lines below this level are dropped.
    package var level: LogLevel
    /// Text or JSON.
    package var format: LogFormat

    /// A logger.
    package init(level: LogLevel = .info, format: LogFormat = .text) {
        self.level = level
        self.format = format
    }

    /// Whether a line at `level` would be written (so that nobody builds one that would not).
    package func writes(_ level: LogLevel) -> Bool { level >= self.level }

    /// Logs `message` at `level`; the message is built only when it will be printed.
    package func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        let line = Self.line(level, message(), format: format, time: Self.timestamp())
        // One write(2) per line keeps lines from different threads whole.
        line.utf8CString.withUnsafeBufferPointer { buffer in
            _ = write(2, buffer.baseAddress, buffer.count - 1)
        }
    }

    /// One whole line, newline included.
    package static func line(_ level: LogLevel, _ message: String, format: LogFormat, time: String) -> String {
        switch format {
        case .text:
            return "\(time) \(level.name) \(escaped(message))\n"
        case .json:
            return "{\"time\":\"\(time)\",\"level\":\"\(level.name)\",\"msg\":\"\(jsonEscaped(message))\"}\n"
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

    /// `text` as the inside of a JSON string: quotes and backslashes escaped, and every control
    /// character, bidi control and other invisible scalar as `\uXXXX` (a surrogate pair above
    /// U+FFFF), so that the line is valid JSON and shows nothing invisible on a terminal.
    package static func jsonEscaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || $0 == "\"" || $0 == "\\" }) else {
            return text
        }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case "\r": out += "\\r"
            case _ where needsEscape(scalar):
                if scalar.value > 0xFFFF {
                    let v = scalar.value - 0x10000
                    out += hex4(0xD800 + (v >> 10)) + hex4(0xDC00 + (v & 0x3FF))
                } else {
                    out += hex4(scalar.value)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func hex4(_ value: UInt32) -> String {
        let digits = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        Text.isControl(scalar) || Text.isInvisible(scalar)
    }

    private static func timestamp() -> String {
        let now = Clock.wall().milliseconds
        var t = time_t(now / 1000)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(now % 1000))
    }
}
