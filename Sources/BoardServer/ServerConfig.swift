public import BoardHub

/// Everything the server can be told at start.
public struct ServerConfig: Sendable {
    /// Interface to listen on.
    public var host = "127.0.0.1"
    /// Port; 0 picks a free one (see `Server.port`).
    public var port = 8080
    /// The folder served at `/`; nil serves a small built-in page.
    public var webRoot: String?
    /// Log threshold.
    public var logLevel: LogLevel = .info
    /// How long a drag hold lives without hover or drop, in seconds.
    public var holdTimeout: Double = 30
    /// The largest client message, in bytes, across fragments; larger closes with 1009.
    public var maxMessageBytes = 64 * 1024
    /// The most bytes queued for one connection; past it the connection is closed with 1008.
    public var maxPendingBytes = 4 * 1024 * 1024
    /// The most frames put into one write.
    public var maxFramesPerWrite = 64
    /// Offer permessage-deflate to clients (then those clients get one write per message).
    public var deflate = false
    /// Create a board from the default template when `hello` names one that does not exist.
    public var createBoards = true
    /// Committed ops kept in memory per board, for conflicts, dedup and `since` resumes.
    public var historyLimit = 10_000
    /// Idle seconds before the server pings a connection, and before it hangs up on a silent one.
    public var pingAfter: UInt16 = 20
    /// See `pingAfter`.
    public var hangUpAfter: UInt16 = 60
    /// The largest HTTP request body accepted, in bytes.
    public var maxBodyBytes = 256 * 1024
    /// Seconds to wait for clients to acknowledge the 1001 close at shutdown.
    public var shutdownGrace: Double = 2

    /// The defaults.
    public init() {}
}
