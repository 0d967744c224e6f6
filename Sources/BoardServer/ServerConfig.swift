package import BoardAuth
internal import BoardCore
package import BoardHub
import Foundation

/// Everything the server can be told at start.
package struct ServerConfig: Sendable {
    /// The hub's settings, given to the hub as they are (the cluster's node and lease come from
    /// the store, and `trustedProxies` join `uncappedAddresses`: see `Service.init`). A hub
    /// setting is a field of `Hub.Config` and one row of the command line's settings table
    /// (Sources/shuffleboard/Settings+*.swift), in the same units: the fields below are the
    /// transport's own. Every time is a `Duration`, every size a count of bytes.
    package var hub = Hub.Config()

    /// Interface to listen on.
    package var host = "127.0.0.1"
    /// Port; 0 picks a free one (see `Server.port`).
    package var port = 8080
    /// The folder served at `/`; nil serves a small built-in page.
    package var webRoot: String?
    /// Log lines as text or as JSON objects.
    package var logFormat: LogFormat = .text
    /// The bearer token `/metrics` wants (`--metrics-token`); nil: `/metrics` is open.
    package var metricsToken: StaticToken?
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
    /// Time since a WebSocket connection upgraded or last answered a ping before the server pings
    /// it (`--ping-after`; WebSocket/Keepalive.swift, looked at once a second).
    package var pingAfter: Duration = .seconds(20)
    /// Time since then before the server hangs up on it (`--hang-up-after`; at least `pingAfter`).
    package var hangUpAfter: Duration = .seconds(60)
    /// The most bytes of HTTP answers held for clients at once, over all connections (answers made
    /// for their request; the web client's files are shared); a read that would go past it gets
    /// 503 `busy` (0: no limit).
    package var maxHTTPAnswerBytes = 256 * 1024 * 1024
    /// How long an event stream may go without taking any of what is queued for it (a reader that
    /// stopped reading); then it is dropped (zero: never).
    package var streamStall: Duration = .seconds(30)
    /// The largest HTTP request body accepted, in bytes.
    package var maxBodyBytes = 256 * 1024
    /// The time an HTTP client has to send its request headers, and then for the rest of the
    /// exchange: its body, the server's answer, and sending that answer (lws counts it in whole
    /// seconds).
    package var httpTimeout: Duration = .seconds(15)
    /// The most bytes of request headers (lws's `max_http_header_data`); more closes the connection.
    package var maxHeaderBytes = 8192
    /// The most connections whose request headers are being read at once (lws's
    /// `max_http_header_pool`); the others wait, holding no header buffer.
    package var maxHeaderBuffers = 1024
    /// How long stopping goes on retrying a store write that keeps failing (locked, disk full)
    /// before it drops the writes that were never acknowledged.
    package var shutdownWriteRetry: Duration = .seconds(5)
    /// The path of the echo endpoint (for WebSocket conformance tests), or nil for none. It echoes
    /// text and binary messages through the same frame handling as `/ws`, and never reaches the
    /// hub. It cannot be combined with `deflate`: deflate connections send text frames only.
    package var echoPath: String?
    /// The largest message the echo endpoint takes, in bytes, across fragments; larger closes with 1009.
    package var echoMaxMessageBytes = 16 * 1024 * 1024

    /// Addresses of reverse proxies (`--trusted-proxy`, as the log writes them) whose
    /// `X-Forwarded-For` names the client: behind one, limits and logs see the address it added.
    /// A proxy's volume is its clients': no accept-time cap counts its address (`Service.init`).
    package var trustedProxies: [String] = []
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
    /// The time a forwarded connection's upstream may take to connect to the owner and finish its
    /// WebSocket handshake; an established upstream is pinged after this long without a pong and
    /// hung up on after twice this long (`--forward-timeout`).
    package var forwardTimeout: Duration = .seconds(3)
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
    /// In a cluster: how long a board's lease lasts (`--lease`); renewed every third. The store
    /// holds the leases and is given it (`PostgresStore`).
    package var lease: Duration = .seconds(5)
    /// With a store that keeps several write batches on their way at once (`--store-pipeline`,
    /// PostgreSQL): how many.
    package var storePipeline = 1
    /// With a store that writes over several connections (`--store-writers`, PostgreSQL): how
    /// many, each with a writer thread of its own and its share of the boards (one when
    /// `storePipeline` is above 1). Four: at 100 boards × 10 clients in flight they gave 10–25%
    /// more committed ops/s than one, at 1,000 × 2 about 65% more (docs/performance.md).
    package var storeWriters = 4

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

/// The loop lws waits for sockets on (`--event-loop`; docs/architecture.md, "The event loop").
package enum EventLoop: String, CaseIterable, Sendable {
    /// lws's own loop: poll() over every socket on every pass.
    case poll
    /// libev on epoll, through lws's libev plugin (`libwebsockets-evlib-ev`): a pass costs what
    /// is ready, not what is open.
    case libev
}
