package import BoardHub

/// Everything the server can be told at start.
package struct ServerConfig: Sendable {
    /// Interface to listen on.
    package var host = "127.0.0.1"
    /// Port; 0 picks a free one (see `Server.port`).
    package var port = 8080
    /// The folder served at `/`; nil serves a small built-in page.
    package var webRoot: String?
    /// Log threshold.
    package var logLevel: LogLevel = .info
    /// How long a drag hold lives without hover or drop, in seconds.
    package var holdTimeout: Double = 30
    /// The largest client message, in bytes, across fragments; larger closes with 1009.
    package var maxMessageBytes = 64 * 1024
    /// The most bytes queued for one connection; past it the connection is closed with 1008.
    package var maxPendingBytes = 4 * 1024 * 1024
    /// The most frames put into one write.
    package var maxFramesPerWrite = 64
    /// Offer permessage-deflate to clients (then those clients get one write per message).
    package var deflate = false
    /// Create a board from the default template when `hello` names one that does not exist.
    package var createBoards = true
    /// Committed ops kept in memory per board, for conflicts, dedup and `since` resumes.
    package var historyLimit = 10_000
    /// Idle seconds before the server pings a connection, and before it hangs up on a silent one.
    package var pingAfter: UInt16 = 20
    /// See `pingAfter`.
    package var hangUpAfter: UInt16 = 60
    /// The largest HTTP request body accepted, in bytes.
    package var maxBodyBytes = 256 * 1024
    /// Seconds an HTTP client has to send its request headers, and then for the rest of the
    /// exchange: its body, the server's answer, and sending that answer.
    package var httpTimeout = 15
    /// The most bytes of request headers (lws's `max_http_header_data`); more closes the connection.
    package var maxHeaderBytes = 8192
    /// The most connections whose request headers are being read at once (lws's
    /// `max_http_header_pool`); the others wait, holding no header buffer.
    package var maxHeaderBuffers = 1024
    /// Seconds to wait for clients to acknowledge the 1001 close at shutdown.
    package var shutdownGrace: Double = 2

    /// The defaults.
    package init() {}
}
