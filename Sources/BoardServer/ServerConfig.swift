package import BoardAuth
internal import BoardCore
package import BoardHub
import Foundation

/// Everything the server can be told at start.
package struct ServerConfig: Sendable {
    /// The hub's settings, given to the hub as they are (the cluster's node and lease come from
    /// the store, see `Service.init`). A new hub setting is a field of `Hub.Config` that the CLI
    /// sets here (`config.hub.…`); the properties below that read and write `hub` are the
    /// command line's units (seconds, per second) of the older ones.
    package var hub = ServerConfig.hubDefaults

    /// Interface to listen on.
    package var host = "127.0.0.1"
    /// Port; 0 picks a free one (see `Server.port`).
    package var port = 8080
    /// The folder served at `/`; nil serves a small built-in page.
    package var webRoot: String?
    /// Log threshold.
    package var logLevel: LogLevel {
        get { hub.logLevel }
        set { hub.logLevel = newValue }
    }
    /// Log lines as text or as JSON objects.
    package var logFormat: LogFormat = .text
    /// The bearer token `/metrics` wants (`--metrics-token`); nil: `/metrics` is open.
    package var metricsToken: StaticToken?
    /// How many of the boards with the most users `/metrics` names (0: none).
    package var metricsTopBoards: Int {
        get { hub.metricsTopBoards }
        set { hub.metricsTopBoards = newValue }
    }
    /// How long a drag hold lives without hover or drop, in seconds.
    package var holdTimeout: Double {
        get { hub.room.holdTimeout.timeInterval }
        set { hub.room.holdTimeout = .milliseconds(Clock.milliseconds(newValue)) }
    }
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
    /// The least time between two wake-ups of a board's readers for hovers (`Feed`, "Pacing
    /// hovers"); zero wakes them for every hover.
    package var hoverPacing: Duration = .milliseconds(2)
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
    /// The loop lws waits for sockets on (`--event-loop`).
    package var eventLoop = EventLoop.poll
    /// Create a board from the default template when `hello` names one that does not exist.
    package var createBoards: Bool {
        get { hub.createBoards }
        set { hub.createBoards = newValue }
    }
    /// The template `hello` makes unknown boards from (`colors`, `strips`, `paint`, `playlist`, `kanban`).
    package var defaultTemplate: String {
        get { hub.defaultTemplate.rawValue }
        set { hub.defaultTemplate = Template(rawValue: newValue) ?? .colors }
    }
    /// Committed ops kept in memory per board, for conflicts, dedup and `since` resumes.
    package var historyLimit: Int {
        get { hub.room.historyLimit }
        set { hub.room.historyLimit = newValue }
    }
    /// Idle seconds before the server pings a connection, and before it hangs up on a silent one.
    package var pingAfter: UInt16 = 20
    /// See `pingAfter`.
    package var hangUpAfter: UInt16 = 60
    /// The most bytes of HTTP answers held for clients at once, over all connections (answers made
    /// for their request; the web client's files are shared); a read that would go past it gets
    /// 503 `busy` (0: no limit).
    package var maxHTTPAnswerBytes = 256 * 1024 * 1024
    /// Seconds an event stream may go without taking any of what is queued for it (a reader that
    /// stopped reading); then it is dropped (0: never).
    package var streamStallSeconds = 30
    /// The largest HTTP request body accepted, in bytes.
    package var maxBodyBytes = 256 * 1024
    /// Seconds a connection may take to send `hello`; then it is closed with 4408.
    package var helloTimeout: Double {
        get { hub.helloTimeout.timeInterval }
        set { hub.helloTimeout = .milliseconds(Clock.milliseconds(newValue)) }
    }
    /// Seconds a drag hold lives at most, however active its holder.
    package var holdLifetime: Double {
        get { hub.room.holdLifetime.timeInterval }
        set { hub.room.holdLifetime = .milliseconds(Clock.milliseconds(newValue)) }
    }
    /// Ops per second one connection may send, bursts of twice that (0: no limit).
    package var opRate: Double {
        get { hub.opRate?.perSecond ?? 0 }
        set { hub.opRate = newValue > 0 ? Rate(perSecond: newValue, burst: 2 * newValue) : nil }
    }
    /// Other messages per second one connection may send, bursts of twice that (0: no limit).
    package var messageRate: Double {
        get { hub.messageRate?.perSecond ?? 0 }
        set { hub.messageRate = newValue > 0 ? Rate(perSecond: newValue, burst: 2 * newValue) : nil }
    }
    /// Open WebSockets per client address (0: no limit; one more is closed with 4429). Counted
    /// from the accept together with `maxPendingPerAddress`: an address's connections of every
    /// kind are at most the sum (a connection over it is closed at accept).
    package var maxConnectionsPerAddress: Int {
        get { hub.maxConnectionsPerAddress }
        set { hub.maxConnectionsPerAddress = newValue }
    }
    /// Accepted connections per client address that are not WebSockets yet: TCP connections,
    /// TLS handshakes, HTTP requests and keep-alive connections (0: no limit); a connection over
    /// it is closed at accept. Not applied to `trustedProxies` or the cluster's other nodes.
    package var maxPendingPerAddress: Int {
        get { hub.maxPendingPerAddress }
        set { hub.maxPendingPerAddress = newValue }
    }
    /// Seconds an accepted connection may go without sending a byte; then it is closed (0: no limit).
    package var firstByteTimeout: Double {
        get { hub.firstByteTimeout.timeInterval }
        set { hub.firstByteTimeout = .milliseconds(Clock.milliseconds(newValue)) }
    }
    /// New connections per second per client address, bursts of twice that (0: no limit).
    package var connectRate: Double {
        get { hub.connectRate?.perSecond ?? 0 }
        set { hub.connectRate = newValue > 0 ? Rate(perSecond: newValue, burst: 2 * newValue) : nil }
    }
    /// New boards per minute that `hello` may make per client address, bursts of that many (0: no limit).
    package var boardCreationsPerMinute: Double {
        get { (hub.boardCreationRate?.perSecond ?? 0) * 60 }
        set { hub.boardCreationRate = newValue > 0 ? Rate(perSecond: newValue / 60, burst: newValue) : nil }
    }
    /// Users on one board (0: no limit).
    package var maxUsersPerBoard: Int {
        get { hub.maxUsersPerBoard }
        set { hub.maxUsersPerBoard = newValue }
    }
    /// Users above which a board is large: welcomes list this many users plus a count, joins and
    /// leaves become a `presence` count at most once a second.
    package var presenceLimit: Int {
        get { hub.room.presenceLimit }
        set { hub.room.presenceLimit = newValue }
    }
    /// The most bytes a board's JSON snapshot may take; ops that would grow it past this get
    /// `board_full` (`--max-board-bytes`).
    package var maxBoardBytes: Int {
        get { hub.room.maxBoardBytes }
        set { hub.room.maxBoardBytes = newValue }
    }
    /// Boards in memory at once (0: no limit).
    package var maxBoards: Int {
        get { hub.maxBoardsInMemory }
        set { hub.maxBoardsInMemory = newValue }
    }
    /// Ops of one board waiting for the store (0: no limit); more get `unavailable` at once.
    package var maxUnstoredOps: Int {
        get { hub.maxUnstoredOps }
        set { hub.maxUnstoredOps = newValue }
    }
    /// Seconds an HTTP client has to send its request headers, and then for the rest of the
    /// exchange: its body, the server's answer, and sending that answer.
    package var httpTimeout = 15
    /// The most bytes of request headers (lws's `max_http_header_data`); more closes the connection.
    package var maxHeaderBytes = 8192
    /// The most connections whose request headers are being read at once (lws's
    /// `max_http_header_pool`); the others wait, holding no header buffer.
    package var maxHeaderBuffers = 1024
    /// Seconds to wait for clients to acknowledge the 1001 close at shutdown.
    package var shutdownGrace: Double {
        get { hub.shutdownGrace.timeInterval }
        set { hub.shutdownGrace = .milliseconds(Clock.milliseconds(newValue)) }
    }
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
    package var authSecrets: [[UInt8]]? {
        didSet { hub.auth = authSecrets.map { TokenAuthority(secrets: $0) } }
    }

    /// The origins WebSocket upgrades and API writes may come from (`--allow-origin`), and whether
    /// an upgrade without `Origin` is allowed then (`--allow-no-origin`).
    package var origins: OriginPolicy {
        get { hub.origins }
        set { hub.origins = newValue }
    }
    /// Addresses of reverse proxies (`--trusted-proxy`, as the log writes them) whose
    /// `X-Forwarded-For` names the client: behind one, limits and logs see the address it added.
    package var trustedProxies: [String] = [] {
        // A proxy's volume is its clients': no accept-time cap counts its address.
        didSet { hub.uncappedAddresses = Set(trustedProxies) }
    }
    /// A PEM certificate (chain) and its key: serve `https://` and `wss://` on the same port.
    package var tlsCertificate: String?
    /// See `tlsCertificate`.
    package var tlsKey: String?
    /// With `tlsCertificate`: the PEM certificate(s) of the authority that signed the other
    /// nodes' certificates (`--cluster-ca`). A node with TLS forwards to its boards' owners over
    /// TLS (`wss://`) only, and trusts an owner whose certificate this authority signed for the
    /// owner's advertised address; nil: the system's trusted authorities instead.
    package var clusterCA: String?

    /// The secret the nodes of a cluster share; nil: the store's (`ClusterStore.clusterSecret()`,
    /// read when the server is made), or none when the store is not a `ClusterStore`.
    /// A node sends it (as hex) with every connection it forwards, and trusts the client address
    /// a forwarded connection names only when it carries this secret.
    package var clusterSecret: [UInt8]?
    /// The cluster keys of `--cluster-key FILE`, in lower-case hex, instead of the secret: the
    /// first is the one this node presents, and a connection presenting any of them is another
    /// node's (so a key can be rotated without stopping the cluster: docs/cluster.md). Empty:
    /// `clusterSecret`, or the store's.
    package var clusterKeys: [String] = []
    /// Seconds a forwarded connection's upstream may take to connect to the owner and finish its
    /// WebSocket handshake; an established upstream is pinged after this long without a pong and
    /// hung up on after twice this long (`--forward-timeout`).
    package var forwardTimeout: Double = 3
    /// Forward a board's clients over one node link per (owner, board) instead of one upstream
    /// per client (docs/cluster.md#the-node-link---node-links), `--node-links on|off`. On by
    /// default; off forwards per connection (for a cluster with nodes that do not serve `/node.v1`).
    package var nodeLinks = true

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

extension ServerConfig {
    /// The hub's defaults, but for new connections per address, which the command line bursts
    /// at twice the rate (as every rate it takes).
    static let hubDefaults: Hub.Config = {
        var hub = Hub.Config()
        hub.connectRate = Rate(perSecond: 20, burst: 40)
        return hub
    }()
}

/// The loop lws waits for sockets on (`--event-loop`; docs/architecture.md, "The event loop").
package enum EventLoop: String, CaseIterable, Sendable {
    /// lws's own loop: poll() over every socket on every pass.
    case poll
    /// libev on epoll, through lws's libev plugin (`libwebsockets-evlib-ev`): a pass costs what
    /// is ready, not what is open.
    case libev
}
