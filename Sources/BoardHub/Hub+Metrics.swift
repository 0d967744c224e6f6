internal import Basics
package import BoardCore
package import BoardMetrics

/// The hub's metric families, registered in `Hub.metrics` (docs/operations.md lists them all).
///
/// Counters move at one-line call sites in the handlers; the gauges that describe the hub's
/// state (boards, users, holds) are set by `collectMetrics()` just before a scrape renders them.
package final class HubMeters {
    /// Boards in memory.
    package let boardsLoaded: Gauge<NoLabels>
    /// Boards waiting for a store read that decides them.
    package let boardsLoading: Gauge<NoLabels>
    /// Users on boards (joined connections).
    package let users: Gauge<NoLabels>
    /// Users on the boards with the most users.
    package let boardUsers: Gauge<BoardLabel>
    /// Drag holds in progress.
    package let holds: Gauge<NoLabels>
    /// Connections that joined a board.
    package let joins: Counter<NoLabels>
    /// Ops made durable and broadcast.
    package let opsCommitted: Counter<OpType>
    /// From an op's arrival to its broadcast being queued (the store's fsync is most of it).
    package let opBroadcastDelay: Histogram<NoLabels>
    /// Rejects sent.
    package let rejects: Counter<RejectReason>
    /// Errors sent.
    package let errors: Counter<ProtocolError.Code>
    /// Messages refused with `rate_limited`.
    package let rateLimited: Counter<RateLimitedKind>
    /// Refusals by a limit (the transport counts `message_size` and `send_queue`).
    package let limitHits: Counter<LimitName>
    /// Connections closed at accept or for sending nothing (SocketGate.swift), by reason.
    package let connectionsRefused: Counter<SocketRefusal>
    /// Accepted connections that are not WebSockets (yet): TLS handshakes, HTTP, upgrades.
    package let pendingConnections: Gauge<NoLabels>
    /// Event streams (`GET /api/boards/{id}/events`), open or waiting for their board.
    package let eventStreams: Gauge<NoLabels>
    /// REST ops (`POST /api/boards/{id}/ops`) waiting for their answer.
    package let restOpsWaiting: Gauge<NoLabels>
    /// Refused credentials (the transport counts `/metrics`).
    package let authFailures: Counter<AuthFailure>
    /// How long drag holds lasted, by how they ended.
    package let holdDuration: Histogram<HoldEnd>
    /// Stalls of the server: gaps between events over `Hub.Config.stallAfter`.
    package let stalls: Counter<NoLabels>
    /// Store reads given up because the HTTP client that asked went away first.
    package let abandonedReads: Counter<NoLabels>

    /// The registry the families are in; the transport registers its own there too.
    package let registry: Metrics

    /// The families, registered in `registry`.
    package init(_ registry: Metrics) {
        self.registry = registry
        boardsLoaded = registry.gauge("shuffleboard_boards_loaded", "Boards in memory.")
        boardsLoading = registry.gauge(
            "shuffleboard_boards_loading", "Boards waiting for the store to say whether they exist, or to load them.")
        users = registry.gauge("shuffleboard_users", "Connections joined to a board.")
        boardUsers = registry.gauge(
            "shuffleboard_board_users",
            "Users on each of the boards with the most users (--metrics-top-boards of them).", labels: BoardLabel.self)
        holds = registry.gauge("shuffleboard_drag_holds", "Items held by a drag right now.")
        joins = registry.counter("shuffleboard_joins_total", "Connections that joined a board (welcome sent).")
        opsCommitted = registry.counter(
            "shuffleboard_ops_committed_total", "Ops made durable and broadcast, by type.", labels: OpType.self)
        opBroadcastDelay = registry.histogram(
            "shuffleboard_op_broadcast_delay_seconds",
            "Time from receiving an op that commits to queueing its broadcast (it waits for the store's fsync).",
            buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10])
        rejects = registry.counter("shuffleboard_rejects_total", "Rejects sent, by reason.", labels: RejectReason.self)
        errors = registry.counter(
            "shuffleboard_errors_total", "Error messages sent, by code.", labels: ProtocolError.Code.self)
        rateLimited = registry.counter(
            "shuffleboard_rate_limited_messages_total", "Messages refused with rate_limited (not acted on), by kind.",
            labels: RateLimitedKind.self)
        limitHits = registry.counter(
            "shuffleboard_limit_hits_total", "Clients refused or closed by a limit, by limit.", labels: LimitName.self)
        connectionsRefused = registry.counter(
            "shuffleboard_connections_refused_total",
            "Connections closed at accept (over a per-address cap, or at the open-file limit) or for sending no byte "
                + "in time, by reason.",
            labels: SocketRefusal.self)
        eventStreams = registry.gauge(
            "shuffleboard_event_streams", "Event streams (GET /api/boards/ID/events), open or waiting for their board.")
        restOpsWaiting = registry.gauge(
            "shuffleboard_rest_ops_waiting", "REST ops (POST /api/boards/ID/ops) waiting for their answer.")
        pendingConnections = registry.gauge(
            "shuffleboard_pending_connections",
            "Accepted connections that are not WebSockets: TLS handshakes, HTTP requests, upgrades under way.")
        authFailures = registry.counter(
            "shuffleboard_auth_failures_total", "Refused credentials, by where they were presented and why.",
            labels: AuthFailure.self)
        holdDuration = registry.histogram(
            "shuffleboard_drag_hold_seconds", "How long drag holds lasted, by how they ended.",
            buckets: [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300], labels: HoldEnd.self)
        stalls = registry.counter(
            "shuffleboard_service_stalls_total",
            "Times the service thread served nothing for over a second (clients' rates are not charged for it).")
        abandonedReads = registry.counter(
            "shuffleboard_http_reads_abandoned_total",
            "Store reads for HTTP requests given up (not run, if not started) because the client went away first.")
    }
}

/// When a board's unpublished ops arrived and when its holds began: what the timing metrics need
/// and the room does not keep. It lives and dies with its `BoardHost`, so it holds no more than
/// the room's gated ops and holds.
struct BoardTimings {
    /// Committed ops waiting for the disk: their seq and arrival, in seq order.
    var received = FIFO<(seq: Seq, at: Instant)>()
    /// Each holder's item and when the hold began.
    var holds: [UserID: (item: ItemID, since: Instant)] = [:]
}

extension Hub {
    /// True once shutdown has begun (`/readyz` says so).
    package var isStopping: Bool { stopping }

    /// Counts what is sent to one connection: rejects by reason (logged at debug), errors by code.
    func note(_ message: ServerMessage, to id: ConnectionID) {
        switch message {
        case .reject(let rejection, _):
            meters.rejects.add(rejection.reason)
            log(.debug, "\(id) from \(sessions[id]?.peer ?? "?"): reject \(Self.describe(rejection))")
        case .error(let error):
            meters.errors.add(error.code)
        default:
            break
        }
    }

    private static func describe(_ rejection: Rejection) -> String {
        var text = rejection.reason.rawValue
        if let op = rejection.opID { text += " op \(op.rawValue)" }
        if let item = rejection.item { text += " item \(item)" }
        if let by = rejection.by { text += " by \(by)" }
        return text
    }

    /// Watches a room's effects for the timing metrics: an op's arrival (`persist`) and its
    /// broadcast, a hold's start (`dragStart`) and end (`drop`).
    func track(_ effect: Room.Effect, on host: BoardHost) {
        switch effect {
        case .persist(let op):
            host.timings.received.append((op.seq, now))
        case .broadcast(.committed(let op), _):
            meters.opsCommitted.add(OpType(op.op))
            while let first = host.timings.received.first, first.seq <= op.seq {
                _ = host.timings.received.popFirst()
                if first.seq == op.seq { meters.opBroadcastDelay.observe(Double(now - first.at) / 1000) }
            }
        case .broadcast(.dragStart(let item, let by, _, _, _), _):
            // Lifting the held item again does not make the hold younger (as in the room).
            if host.timings.holds[by]?.item != item { host.timings.holds[by] = (item, now) }
        case .broadcast(.drop(let item, let by, _, let reason), _):
            guard let hold = host.timings.holds[by], hold.item == item else { return }
            host.timings.holds[by] = nil
            let end: HoldEnd =
                switch reason {
                case nil: .dropped
                case .left: .left
                case .expired: .expired
                }
            meters.holdDuration.observe(end, Double(now - hold.since) / 1000)
        default:
            break
        }
    }

    /// Sets the gauges that describe the hub's state, for a scrape.
    package func collectMetrics() {
        meters.boardsLoaded.set(boards.count)
        meters.boardsLoading.set(boards.waitingCount)
        meters.pendingConnections.set(gate.sockets.count)
        meters.eventStreams.set(streams.count)
        meters.restOpsWaiting.set(restOps.count)
        var users = 0
        var holds = 0
        for host in boards.hosts {
            users += host.members.count
            holds += host.room.holds.count
        }
        meters.users.set(users)
        meters.holds.set(holds)
        meters.boardUsers.removeAll()
        guard config.metricsTopBoards > 0 else { return }
        let busiest = boards.hosts.filter { !$0.members.isEmpty }.sorted {
            $0.members.count != $1.members.count ? $0.members.count > $1.members.count : $0.id < $1.id
        }
        for host in busiest.prefix(config.metricsTopBoards) {
            meters.boardUsers.set(BoardLabel(host.id), Double(host.members.count))
        }
    }
}

/// A refusal the transport makes by a rule of its own, counted in the hub's metric families
/// (`Event.transportCounted`), so that the hub's state changes only in `Hub.handle`.
package enum TransportCount: Sendable, Equatable {
    /// A limit the transport enforces (send queue, message size, HTTP answers).
    case limit(LimitName)
    /// A socket the transport closed (the first-byte timeout).
    case socketRefused(SocketRefusal)
    /// A `/metrics` request without the right token.
    case authFailure(AuthFailure)
}

extension HubMeters {
    /// Counts a refusal the transport made.
    func count(_ count: TransportCount) {
        switch count {
        case .limit(let name): limitHits.add(name)
        case .socketRefused(let reason): connectionsRefused.add(reason)
        case .authFailure(let failure): authFailures.add(failure)
        }
    }
}
