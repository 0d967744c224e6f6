package import BoardAuth
package import BoardCore
package import BoardStore

extension Hub {
    /// What the hub is told at start.
    package struct Config: Sendable {
        /// Create a board from the default template when `hello` names one that does not exist.
        package var createBoards = true
        /// The template `hello` makes unknown boards from.
        package var defaultTemplate = Template.colors
        /// Verifies access tokens; nil: no access control (everyone may do everything).
        package var auth: TokenAuthority?
        /// Webhooks may post to loopback, private, link-local and unique-local addresses
        /// (`--webhook-allow-private`); refused at creation and at connect time otherwise.
        package var webhookAllowPrivate = false
        /// The origins API writes may come from (WebSocket upgrades are checked by the transport).
        package var origins = OriginPolicy()
        /// What every room is told: history kept, hold timeout and lifetime, presence limit.
        package var room = Room.Settings()
        /// How long shutdown waits for clients to take their 1001 close.
        package var shutdownGrace: Duration = .seconds(2)
        /// The most messages a connection may send while its board loads; past it, close 1008.
        package var maxMessagesWhileJoining = 256
        /// How long a connection may take to send `hello`; then close 4408.
        package var helloTimeout: Duration = .seconds(10)
        /// Ops one connection may send (nil: no limit); over it, `rate_limited`.
        package var opRate: Rate? = Rate(perSecond: 100, burst: 200)
        /// Other messages (drags, hovers, pings, mistakes) one connection may send (nil: no limit).
        package var messageRate: Rate? = Rate(perSecond: 200, burst: 400)
        /// How many `rate_limited` refusals a connection gets before it is closed with 1008.
        package var strikeRate: Rate? = Rate(perSecond: 1, burst: 50)
        /// Open WebSockets per client address (0: no limit); past it, close 4429. At accept, an
        /// address's connections of every kind may be this plus `maxPendingPerAddress`
        /// (SocketGate.swift).
        package var maxConnectionsPerAddress = 64
        /// Accepted connections per address that are not WebSockets yet (TCP, TLS, HTTP; 0: no
        /// limit); past it, a new one is closed at accept.
        package var maxPendingPerAddress = 32
        /// How long an accepted connection may go without sending a byte (zero: no limit); then it
        /// is closed.
        package var firstByteTimeout: Duration = .seconds(5)
        /// Addresses whose connections no accept-time cap counts (`--trusted-proxy`): a proxy's
        /// volume is its clients', which are counted by the address it names once they upgrade.
        package var uncappedAddresses: Set<String> = []
        /// How often a line about an address cut off at accept is written.
        package var cutOffLogEvery: Duration = .seconds(10)
        /// New connections per client address (nil: no limit); past it, close 4429.
        package var connectRate: Rate? = Rate(perSecond: 20, burst: 40)
        /// New boards made by `hello` per client address (nil: no limit); past it, close 4429.
        package var boardCreationRate: Rate? = Rate(perSecond: 0.5, burst: 30)
        /// Users on one board (0: no limit); past it, `board_full` and close 4409.
        package var maxUsersPerBoard = 10_000
        /// Boards in memory (0: no limit); past it, a `hello` for another gets `unavailable`, 1013.
        package var maxBoardsInMemory = 10_000
        /// Ops of one board applied and waiting for the store (0: no limit); past it, a new op gets
        /// `unavailable` at once, not applied. Only reached while the store fails or falls behind.
        package var maxUnstoredOps = 1_000
        /// Lines below this level are not made at all (so they use none of the budget below).
        package var logLevel = LogLevel.info
        /// Log lines per second that clients can cause; the rest are counted, and the count logged.
        package var logRate = Rate(perSecond: 50, burst: 500)
        /// How many of the boards with the most users `/metrics` names (0: none).
        package var metricsTopBoards = 10
        /// The most bytes of one page of `GET /api/boards/{id}/ops` (one op is always on it).
        package var maxPageBytes = 1024 * 1024
        /// The transport hands the hub an event (at least a `tick`) this often while it is
        /// serving; a longer gap between two events is a stall of the server, and the time is not
        /// charged to the clients' message rates (`TokenBucket`). Zero: gaps are never stalls (a
        /// transport without ticks).
        package var stallAfter: Duration = .seconds(1)
        /// Set when this node is one of a cluster on a shared store (`ClusterStore`); nil: one node.
        package var cluster: ClusterSettings?
        /// How often a quiet event stream gets a comment line (`--stream-keepalive`).
        package var streamKeepalive: Duration = .seconds(15)
        /// How long an event stream lasts at most (zero: no limit; `--max-stream-seconds`): then
        /// it ends, and the client (an `EventSource` by itself) resumes with `Last-Event-ID`,
        /// perhaps on another node behind a balancer.
        package var maxStreamAge: Duration = .zero
        /// Event streams open at once (0: no limit); past it, 503 (`--max-streams`).
        package var maxStreams = 10_000
        /// Event streams open at once per client address (0: no limit); past it, 429
        /// (`--max-streams-per-address`).
        package var maxStreamsPerAddress = 16
        /// History reads (`?at=`, `/history`) waiting for the store at once (0: no limit); past
        /// it, 503 (`--max-history-reads`).
        package var maxHistoryReads = 16
        /// History reads waiting for the store at once per client address (0: no limit); past it,
        /// 429 (`--max-history-reads-per-address`).
        package var maxHistoryReadsPerAddress = 4
        /// The revoked tokens in the store at start (the hub reloads them every second).
        package var revoked: [Revocation] = []
        /// Whether the store keeps members' inboxes (the transport says, from the store's
        /// capabilities): then the hub reads new notices and tells connected clients (Hub+Inbox.swift).
        package var inbox = false
        /// Sign-in through a trusted proxy (`--auth-proxy-header`; only with `auth`): nil, none.
        package var proxy: ProxyAuth?
        /// The members' grants in the store at start (Hub+Grants.swift).
        package var grants: [MemberGrant] = []
        /// The defaults.
        package init() {}
    }
}

/// What a node of a cluster is told at start.
package struct ClusterSettings: Equatable, Sendable {
    /// This node's name (`--node`).
    package var node: String
    /// How long a lease lasts (`--lease`).
    package var lease: Duration
    /// How long a REST request relayed to a board's owner may wait for its answer
    /// (`--forward-timeout`); then its client gets 503 `elsewhere`.
    package var forwardTimeout: Duration
    /// How many REST requests may wait for their owners' answers at once; more get 503 `elsewhere`.
    package var maxHTTPForwards: Int

    /// Settings for a node.
    package init(node: String, lease: Duration, forwardTimeout: Duration = .seconds(3), maxHTTPForwards: Int = 256) {
        self.node = node
        self.lease = lease
        self.forwardTimeout = forwardTimeout
        self.maxHTTPForwards = maxHTTPForwards
    }
}

extension Hub {
    /// The config's durations as the hub's timers use them: converted once, when the hub is made,
    /// to spans of `Instant`'s milliseconds (`Instant.Span`), so that no `Duration` arithmetic
    /// runs per event. The config keeps the settings as they were given.
    struct Timers {
        let shutdownGrace: Instant.Span
        let helloTimeout: Instant.Span
        let firstByteTimeout: Instant.Span
        let cutOffLogEvery: Instant.Span
        let stallAfter: Instant.Span
        let streamKeepalive: Instant.Span
        let maxStreamAge: Instant.Span
        /// In a cluster: `ClusterSettings.lease` (zero for one node).
        let lease: Instant.Span
        /// In a cluster: `ClusterSettings.forwardTimeout` (zero for one node).
        let forwardTimeout: Instant.Span
        /// In a cluster: how long after its `hello` a session with no answer is closed anyway
        /// (`Cluster.tick`): four leases and two forward timeouts, past the end of every
        /// retry (`ForwardRetry`: three leases after the first failed forward, which took up to
        /// a forward timeout, and the last try's own).
        let joinDeadline: Instant.Span

        init(_ config: Config) {
            shutdownGrace = Instant.Span(config.shutdownGrace)
            helloTimeout = Instant.Span(config.helloTimeout)
            firstByteTimeout = Instant.Span(config.firstByteTimeout)
            cutOffLogEvery = Instant.Span(config.cutOffLogEvery)
            stallAfter = Instant.Span(config.stallAfter)
            streamKeepalive = Instant.Span(config.streamKeepalive)
            maxStreamAge = Instant.Span(config.maxStreamAge)
            lease = Instant.Span(config.cluster?.lease ?? .zero)
            forwardTimeout = Instant.Span(config.cluster?.forwardTimeout ?? .zero)
            joinDeadline = Instant.Span(milliseconds: 4 * lease.milliseconds + 2 * forwardTimeout.milliseconds)
        }
    }
}
