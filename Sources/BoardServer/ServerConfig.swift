package import BoardAuth
package import BoardHub
import Foundation

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
    /// Log lines as text or as JSON objects.
    package var logFormat: LogFormat = .text
    /// The bearer token `/metrics` wants (`--metrics-token`); nil: `/metrics` is open.
    package var metricsToken: StaticToken?
    /// How many of the boards with the most users `/metrics` names (0: none).
    package var metricsTopBoards = 10
    /// How long a drag hold lives without hover or drop, in seconds.
    package var holdTimeout: Double = 30
    /// The largest client message, in bytes, across fragments; larger closes with 1009.
    package var maxMessageBytes = 64 * 1024
    /// The most bytes of output one connection may hold (queued frames and what lws still holds
    /// of its last write); a frame that would take it past this closes it with 1008.
    package var maxPendingBytes = 4 * 1024 * 1024
    /// The most bytes in one write to a connection, and so the most lws keeps of it while the
    /// socket is full; larger messages go out as WebSocket fragments of this size.
    package var maxWriteBytes = 16 * 1024
    /// The most frames put into one write.
    package var maxFramesPerWrite = 64
    /// The least time between two wake-ups of a board's readers for hovers, in microseconds
    /// (`Feed`, "Pacing hovers"); 0 wakes them for every hover.
    package var hoverPacing = 2000
    /// The service thread's busy share of a tick from which hovers are paced, and 0.1 below which
    /// they are not any more (0: always paced; tests).
    package var hoverPacingBusy = 0.95
    /// The most bytes of one board's broadcasts kept for connections that have not written them
    /// yet; a connection further behind gets its own copies (hovers coalesced, the send bound).
    package var ringBytes = 1024 * 1024
    /// The most bytes the kernel holds unsent for one client before the server writes more
    /// (`TCP_NOTSENT_LOWAT`); 0 leaves the kernel's default (up to its whole send buffer).
    package var unsentBytes = 64 * 1024
    /// Offer permessage-deflate to clients (then those clients get one write per message).
    package var deflate = false
    /// Create a board from the default template when `hello` names one that does not exist.
    package var createBoards = true
    /// The template `hello` makes unknown boards from (`colors`, `strips`, `paint`, `playlist`, `kanban`).
    package var defaultTemplate = "colors"
    /// Committed ops kept in memory per board, for conflicts, dedup and `since` resumes.
    package var historyLimit = 10_000
    /// Idle seconds before the server pings a connection, and before it hangs up on a silent one.
    package var pingAfter: UInt16 = 20
    /// See `pingAfter`.
    package var hangUpAfter: UInt16 = 60
    /// The most bytes of one page of `GET /api/boards/{id}/ops`: the page stops before the op
    /// that would take it further (one op is always on it) and says where to go on.
    package var maxPageBytes = 1024 * 1024
    /// The most bytes of HTTP answers held for clients at once, over all connections (answers made
    /// for their request; the web client's files are shared); a read that would go past it gets
    /// 503 `busy` (0: no limit).
    package var maxHTTPAnswerBytes = 256 * 1024 * 1024
    /// The largest HTTP request body accepted, in bytes.
    package var maxBodyBytes = 256 * 1024
    /// Seconds a connection may take to send `hello`; then it is closed with 4408.
    package var helloTimeout: Double = 10
    /// Seconds a drag hold lives at most, however active its holder.
    package var holdLifetime: Double = 120
    /// Seconds a holder whose hold expired waits before taking that item again; also how long the
    /// first one refused while it was held has to take it before anyone else may.
    package var holdCooldown: Double = 10
    /// Items the connections of one client address may hold at once on a board (0: no limit).
    package var maxHoldsPerAddress = 8
    /// Ops per second one connection may send, bursts of twice that (0: no limit).
    package var opRate: Double = 100
    /// Other messages per second one connection may send, bursts of twice that (0: no limit).
    package var messageRate: Double = 200
    /// Open WebSockets per client address (0: no limit; one more is closed with 4429). Counted
    /// from the accept together with `maxPendingPerAddress`: an address's connections of every
    /// kind are at most the sum (a connection over it is closed at accept).
    package var maxConnectionsPerAddress = 64
    /// Accepted connections per client address that are not WebSockets yet: TCP connections,
    /// TLS handshakes, HTTP requests and keep-alive connections (0: no limit); a connection over
    /// it is closed at accept. Not applied to `trustedProxies` or the cluster's other nodes.
    package var maxPendingPerAddress = 32
    /// Seconds an accepted connection may go without sending a byte; then it is closed (0: no limit).
    package var firstByteTimeout: Double = 5
    /// New connections per second per client address, bursts of twice that (0: no limit).
    package var connectRate: Double = 20
    /// New boards per minute that `hello` may make per client address, bursts of that many (0: no limit).
    package var boardCreationsPerMinute: Double = 30
    /// Users on one board (0: no limit).
    package var maxUsersPerBoard = 10_000
    /// Users above which a board is large: welcomes list this many users plus a count, joins and
    /// leaves become a `presence` count at most once a second.
    package var presenceLimit = 50
    /// Boards in memory at once (0: no limit).
    package var maxBoards = 10_000
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
    /// Seconds that stopping goes on retrying a store write that keeps failing (locked, disk
    /// full) before it drops the writes that were never acknowledged.
    package var shutdownWriteRetry: Double = 5
    /// The path of the echo endpoint (for WebSocket conformance tests), or nil for none. It echoes
    /// text and binary messages through the same frame handling as `/ws`, and never reaches the
    /// hub. It cannot be combined with `deflate`: deflate connections send text frames only.
    package var echoPath: String?
    /// The largest message the echo endpoint takes, in bytes, across fragments; larger closes with 1009.
    package var echoMaxMessageBytes = 16 * 1024 * 1024

    /// The secrets access tokens are signed with (the first signs, all verify); nil: no access control.
    package var authSecrets: [[UInt8]]?

    /// The origins WebSocket upgrades and API writes may come from (`--allow-origin`), and whether
    /// an upgrade without `Origin` is allowed then (`--allow-no-origin`).
    package var origins = OriginPolicy()
    /// Addresses of reverse proxies (`--trusted-proxy`, as the log writes them) whose
    /// `X-Forwarded-For` names the client: behind one, limits and logs see the address it added.
    package var trustedProxies: [String] = []
    /// A PEM certificate (chain) and its key: serve `https://` and `wss://` on the same port.
    package var tlsCertificate: String?
    /// See `tlsCertificate`.
    package var tlsKey: String?

    /// The secret the nodes of a cluster share; nil: the store's (`ClusterStore.clusterSecret()`,
    /// read when the server is made), or none when the store is not a `ClusterStore`.
    /// A node sends it (as hex) with every connection it forwards, and trusts the client address
    /// a forwarded connection names only when it carries this secret.
    package var clusterSecret: [UInt8]?
    /// Seconds a forwarded connection's upstream may take to connect to the owner and finish its
    /// WebSocket handshake; an established upstream is pinged after this long without a pong and
    /// hung up on after twice this long (`--forward-timeout`).
    package var forwardTimeout: Double = 3

    /// For tests of the transport only: called on the service thread with every event before the
    /// hub; when it returns actions, the hub never sees the event and those actions are carried
    /// out instead (how the forwarding tests make `Action.forward` without a cluster).
    package var interceptEvent: (@Sendable (Hub.Event) -> [Hub.Action]?)?
    /// In a cluster (a `ClusterStore`): this node's name (`--node`), by default the host name and
    /// the process id.
    package var node = ServerConfig.defaultNodeName
    /// In a cluster: how other nodes reach this one (`--advertise HOST:PORT`); nil: 127.0.0.1 and
    /// the listening port (see `advertiseAddress`).
    package var advertise: String?
    /// In a cluster: how long a board's lease lasts, in seconds (`--lease`); renewed every third.
    package var leaseSeconds: Double = 5

    /// The defaults.
    package init() {}

    /// `--advertise`, or 127.0.0.1 and the port (with `--port 0` the port is only known once the
    /// server listens: give `--advertise` then).
    package var advertiseAddress: String { advertise ?? "127.0.0.1:\(port)" }

    /// `HOSTNAME-PID`.
    package static var defaultNodeName: String {
        "\(ProcessInfo.processInfo.hostName)-\(ProcessInfo.processInfo.processIdentifier)"
    }
}
