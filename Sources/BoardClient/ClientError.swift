/// Why a client operation failed.
public enum ClientError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The TCP connection or the WebSocket handshake failed; `reason` is libwebsockets' account.
    case connectFailed(host: String, port: Int, reason: String)
    /// The wait ran out of time.
    case timeout
    /// The connection is closed and nothing is left to read.
    case closed(code: Int, reason: String)
    /// The arguments cannot describe a connection (bad port or path).
    case invalidArgument(String)
    /// The loop was shut down.
    case loopShutDown
    /// libwebsockets could not create its client context.
    case contextCreationFailed

    /// A one-line description for test failures and logs.
    public var description: String {
        switch self {
        case .connectFailed(let host, let port, let reason):
            return "could not connect to ws://\(host):\(port): \(reason)"
        case .timeout:
            return "timed out"
        case .closed(let code, let reason):
            return reason.isEmpty ? "connection closed (\(code))" : "connection closed (\(code) \(reason))"
        case .invalidArgument(let message):
            return "invalid argument: \(message)"
        case .loopShutDown:
            return "client loop is shut down"
        case .contextCreationFailed:
            return "libwebsockets could not create a client context"
        }
    }
}
