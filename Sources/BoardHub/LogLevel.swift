/// A log line's importance.
package enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    /// Per-message detail.
    case debug
    /// Start, stop, connections.
    case info
    /// Something odd that the server survived.
    case warning
    /// Something failed.
    case error

    /// Parses `debug`, `info`, `warning` (or `warn`), `error`.
    package init?(name: String) {
        switch name.lowercased() {
        case "debug": self = .debug
        case "info": self = .info
        case "warning", "warn": self = .warning
        case "error": self = .error
        default: return nil
        }
    }

    /// The name printed in each line.
    package var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .warning: "warning"
        case .error: "error"
        }
    }

    /// Orders by severity.
    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
