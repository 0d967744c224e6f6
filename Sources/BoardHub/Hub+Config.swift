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
        /// The origins API writes may come from (WebSocket upgrades are checked by the transport).
        package var origins = OriginPolicy()
        /// What every room is told: history kept, hold timeout and lifetime, presence limit.
        package var room = Room.Settings()
        /// How long shutdown waits for clients to take their 1001 close, in milliseconds.
        package var shutdownGrace: Int64 = 2_000
        /// The most messages a connection may send while its board loads; past it, close 1008.
        package var maxMessagesWhileJoining = 256
        /// How long a connection may take to send `hello`, in milliseconds; then close 4408.
        package var helloTimeout: Int64 = 10_000
        /// Ops one connection may send (nil: no limit); over it, `rate_limited`.
        package var opRate: Rate? = Rate(perSecond: 100, burst: 200)
        /// Other messages (drags, hovers, pings, mistakes) one connection may send (nil: no limit).
        package var messageRate: Rate? = Rate(perSecond: 200, burst: 400)
        /// How many `rate_limited` refusals a connection gets before it is closed with 1008.
        package var strikeRate: Rate? = Rate(perSecond: 1, burst: 50)
        /// Open WebSockets per client address (0: no limit); past it, close 4429. At accept, an
        /// address's connections of every kind may be this plus `maxPendingPerAddress`
        /// (Hub+Sockets.swift).
        package var maxConnectionsPerAddress = 64
        /// Accepted connections per address that are not WebSockets yet (TCP, TLS, HTTP; 0: no
        /// limit); past it, a new one is closed at accept.
        package var maxPendingPerAddress = 32
        /// How long an accepted connection may go without sending a byte, in milliseconds (0: no
        /// limit); then it is closed.
        package var firstByteTimeout: Int64 = 5_000
        /// Addresses whose connections no accept-time cap counts (`--trusted-proxy`): a proxy's
        /// volume is its clients', which are counted by the address it names once they upgrade.
        package var uncappedAddresses: Set<String> = []
        /// How often a line about an address cut off at accept is written, in milliseconds.
        package var cutOffLogEvery: Int64 = 10_000
        /// New connections per client address (nil: no limit); past it, close 4429.
        package var connectRate: Rate? = Rate(perSecond: 20, burst: 50)
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
        /// The transport hands the hub an event (at least a `tick`) this often, in milliseconds,
        /// while it is serving; a longer gap between two events is a stall of the server, and
        /// the time is not charged to the clients' message rates (`TokenBucket`). 0: gaps are
        /// never stalls (a transport without ticks).
        package var stallAfter: Int64 = 1_000
        /// Set when this node is one of a cluster on a shared store (`ClusterStore`); nil: one node.
        package var cluster: ClusterSettings?
        /// How often a quiet event stream gets a comment line, in milliseconds (`--stream-keepalive`).
        package var streamKeepalive: Int64 = 15_000
        /// How long an event stream lasts at most, in milliseconds (0: no limit;
        /// `--max-stream-seconds`): then it ends, and the client (an `EventSource` by itself)
        /// resumes with `Last-Event-ID`, perhaps on another node behind a balancer.
        package var maxStreamAge: Int64 = 0
        /// Event streams open at once (0: no limit); past it, 503 (`--max-streams`).
        package var maxStreams = 10_000
        /// Event streams open at once per client address (0: no limit); past it, 429
        /// (`--max-streams-per-address`).
        package var maxStreamsPerAddress = 16
        /// The revoked tokens in the store at start (the hub reloads them every second).
        package var revoked: [Revocation] = []
        /// The defaults.
        package init() {}
    }
}
