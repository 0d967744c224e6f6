internal import Basics
internal import BoardAuth
package import BoardCore
package import BoardMetrics
package import BoardStore

/// Every session rule of the server, as a state machine: events in, actions out.
///
/// The hub owns the sessions (phases, hello, joining a board), the loaded boards and their
/// `Room`s, the boards waiting for the store, the durable tickets, the HTTP API and shutdown. It
/// knows nothing of sockets, disks, threads or clocks: the transport turns libwebsockets callbacks
/// and store answers into `Event`s, passes the time in, and carries out the `Action`s in order.
/// Confined to one thread (the service thread); not Sendable.
package final class Hub {
    /// Something that happened. The cases with large payloads are `indirect`: one is made for
    /// every message a client sends, and a received message is then all it copies
    /// (`HubLayoutTests`).
    package enum Event: Sendable {
        /// The transport accepted a TCP connection from `peer` (before any byte of it is read).
        case accepted(SocketID, peer: String)
        /// The accepted connection became a WebSocket (its `opened` follows).
        case upgraded(SocketID)
        /// The accepted connection closed before it became a WebSocket.
        case socketClosed(SocketID)
        /// A connection from this address carried the cluster's secret: it is another node of
        /// the cluster, whose connections (forwarded clients') no accept-time cap counts.
        case clusterPeer(String)
        /// A WebSocket connection opened from `peer`; `relayed` when another node of the cluster
        /// forwards it here (over a node link, or with the cluster key), taking this node for its
        /// board's owner.
        case opened(ConnectionID, peer: String, relayed: Bool = false)
        /// A complete client message arrived (or failed to parse).
        case received(ConnectionID, Result<ClientMessage, ProtocolError>)
        /// A WebSocket connection closed.
        case closed(ConnectionID)
        /// An HTTP request for the API or `/healthz`, body included.
        indirect case request(ExchangeID, HTTPRequest)
        /// The store answered a read.
        indirect case answered(ReadID, StoreAnswer)
        /// The client of an HTTP request went away before its answer: reads made only for it
        /// are of no use now, and a client that asks for large pages and hangs up must not be
        /// able to keep the reader thread busy for nobody.
        case abandoned(ExchangeID)
        /// The store made these boards durable up to these seqs, and these tickets' writes.
        case durable(seqs: [BoardID: Seq], tickets: [Ticket])
        /// The store cannot write these writes of one board, however often it tries.
        case writeFailed(WriteFailure)
        /// Time passed: expire holds, watch the shutdown deadline.
        case tick
        /// Close everything with 1001 and stop.
        case shutdown
        /// In a cluster: the renewal thread renewed this node's leases. It holds these boards'
        /// leases until `validUntil` at the latest (the renewal's start plus one lease, by this
        /// node's monotonic clock), and these nodes are alive.
        case leases(held: Set<BoardID>, validUntil: Instant, alive: Set<String>)
        /// In a cluster: the owner's end of a forwarded connection closed with `code` (nil: it
        /// failed or closed without a close frame); `answered` says whether the owner had sent
        /// the client anything (a connection that never got through may be tried again).
        /// `unrelayed`: what the client sent after the forward that never reached the owner (for
        /// that retry; the transport may leave it empty, and then those messages are lost).
        case forwardEnded(ConnectionID, code: UInt16?, answered: Bool, unrelayed: [ClientMessage] = [])
        /// In a cluster: the owner sent a forwarded connection its first message (its `welcome`,
        /// or the error it was refused with): the owner has the connection's `hello`.
        case forwardAnswered(ConnectionID)
        /// In a cluster: the store has carried out a `release` of the board (after every write
        /// queued before it), whether or not it still held the lease.
        case released(BoardID)
        /// The transport refused something by a rule of its own (a limit, a silent socket, a
        /// `/metrics` token): the hub's metrics count it with the hub's own refusals.
        case transportCounted(TransportCount)
        /// An event stream's exchange ended (its client went away, or the transport cut it off as a
        /// stalled reader). The transport says so for every exchange it handed over as a stream
        /// request (`GET /api/boards/{id}/events`), whether or not the stream had opened.
        case streamEnded(ExchangeID)
        /// In a cluster: the owner's answer to a REST request this node relayed (`.forwardHTTP`),
        /// or nil when none came (no connection, an answer over the size bound, a timeout).
        case forwardedAnswer(ExchangeID, HTTPResponse?)
    }

    /// Something the transport must do, in order.
    package enum Action: Equatable, Sendable {
        /// Send a message to one connection.
        case send(ConnectionID, ServerMessage)
        /// Send one message (encoded once) to these connections, leaving out `except`.
        case broadcast(ServerMessage, to: [ConnectionID], except: ConnectionID?)
        /// Close the socket just accepted, before reading a byte of it (its address is over a cap).
        case refuseSocket(SocketID)
        /// Close the socket if it has still not sent a byte (`firstByteTimeout` is over); the
        /// transport counts the close (`SocketRefusal.firstByteTimeout`).
        case closeIfSilent(SocketID)
        /// Close a connection with `code` after what is queued when `flush`, at once otherwise.
        case close(ConnectionID, code: UInt16, reason: String, flush: Bool)
        /// Queue a store write; a ticket comes back in `durable` once it is on disk.
        case persist(StoreWrite, ticket: Ticket?)
        /// Ask the store, off the service thread; the answer comes back as `answered`.
        indirect case read(ReadID, StoreRead)
        /// Drop this read if it has not run yet: nobody waits for its answer any more.
        case cancelRead(ReadID)
        /// Answer an HTTP request.
        case respond(ExchangeID, HTTPResponse)
        /// Write a log line.
        case log(LogLevel, String)
        /// Everything is closed (or the grace period is over): stop serving.
        case stop
        /// In a cluster: from now on relay this connection to the board's owner at `advertise`
        /// (`HOST:PORT`), sending these messages first (the `hello` and what followed it).
        case forward(ConnectionID, advertise: String, messages: [ClientMessage])
        /// The board left memory: after the board's queued writes, the writer forgets what it keeps
        /// of it (its replica) and, in a cluster, gives up the board's lease.
        case release(BoardID)
        /// Answer the exchange with `200 text/event-stream` and keep it open: an event stream
        /// (Hub+Streams.swift), which gets `.stream` events until `.endStream` or its client leaves.
        case openStream(ExchangeID)
        /// Send one stream event (encoded once) to these open streams, in order after earlier ones.
        case stream(StreamEvent, to: [ExchangeID])
        /// Close these streams once what is queued for them is sent.
        case endStream([ExchangeID])
        /// In a cluster: relay this HTTP request to the board's owner at `advertise` (`HOST:PORT`);
        /// its answer comes back as `.forwardedAnswer` (Hub+Cluster.swift).
        indirect case forwardHTTP(ExchangeID, advertise: String, HTTPRequest)
    }

    let config: Config
    /// The config's durations, converted once for the timers.
    let timers: Timers
    /// The metrics registry: the hub's families (`meters`) and the transport's.
    package let metrics = Metrics()
    /// The hub's families in `metrics` (Hub+Metrics.swift).
    package let meters: HubMeters
    /// What a handler has decided so far; `handle` returns and clears it.
    var actions: [Action] = []
    /// The time of the event being handled.
    var now = Instant(milliseconds: 0)
    /// The wall-clock time of the event being handled.
    var wall = UnixTime(milliseconds: 0)

    /// Every open WebSocket connection.
    var sessions: [ConnectionID: Session] = [:]
    /// Per client address: connections and rates (see Limits.swift).
    var addresses: [String: AddressState] = [:]
    /// Accepted connections that are not WebSockets (yet), by the transport's id (Hub+Sockets.swift).
    var sockets: [SocketID: PendingSocket] = [:]
    /// Sockets to check for silence, with when, in accept order (so in order of time).
    var silenceChecks = FIFO<(id: SocketID, due: Instant)>()
    /// Addresses of the cluster's other nodes, as their forwarded connections showed them.
    var clusterPeers: Set<String> = []
    /// Addresses refused at accept whose refusals are not all logged yet.
    var cutOff: Set<String> = []
    /// When each connection that has not sent `hello` yet opened, to close it if it sends none in
    /// time. It holds only those: a connection leaves it with its `hello`, and its storage goes
    /// when it empties, so a server of idle joined connections keeps none of it.
    var awaitingHello: [ConnectionID: Instant] = [:]
    /// The boards in memory.
    var boards: [BoardID: BoardHost] = [:]
    /// Boards waiting for a store read that decides what happens to them, with the work that
    /// waits behind it, in arrival order. A board is never both here and in `boards`.
    var waiting: [BoardID: FIFO<Deferred>] = [:]
    /// What to do with each answer still to come.
    var reads: [ReadID: Continuation] = [:]
    /// HTTP answers waiting for their write to be durable.
    var answerWhenDurable: [Ticket: (ExchangeID, HTTPResponse)] = [:]
    /// Boards whose creation is not yet durable (they must not be evicted and reloaded before).
    var creating: [Ticket: BoardID] = [:]
    /// Boards whose deletion is not yet durable: the store still has them, so they must not be
    /// loaded (ops could be acknowledged onto a board about to vanish).
    var deleting: [Ticket: BoardID] = [:]
    /// In a cluster: boards whose `release` has not been carried out yet. They are not claimed
    /// again before it is (Hub+Cluster.swift).
    var releasing: Set<BoardID> = []
    /// Revoked tokens, as last loaded from the store (Hub+Revocations.swift).
    var revocations = RevocationList()
    /// In a cluster: joining sessions waiting to claim their board again after a forward that
    /// never reached the owner (`Session.retry` says when).
    var retrying: Set<ConnectionID> = []
    /// In a cluster: when each session that said `hello` and has no answer yet (no `welcome`
    /// here, nothing from the owner it was forwarded to) is closed anyway (Hub+Cluster.swift).
    var joinDeadlines: [ConnectionID: Instant] = [:]
    /// `POST /api/boards/{id}/ops` waiting for their op's answer, by the user each was sent as
    /// (Hub+REST.swift).
    var restOps: [UserID: RESTOp] = [:]
    /// In a cluster: REST requests relayed to their board's owner, waiting for its answer (Hub+Cluster.swift).
    var httpForwards: [ExchangeID: HTTPForward] = [:]
    /// Event streams, loading or open, by their exchange (Hub+Streams.swift).
    var streams: [ExchangeID: EventStream] = [:]
    /// History reads (`?at=`, `/history`) waiting for the store, with their client's address
    /// (Hub+History.swift).
    var historyReads: [ReadID: String] = [:]

    /// The milliseconds the server has been stalled so far (gaps between events over
    /// `timers.stallAfter`), which the clients' rate buckets are not charged for.
    var stalled: Int64 = 0
    /// When the last event was handled.
    private var lastEvent: Instant?

    /// Bounds the log lines clients cause, the hub's and the transport's (`ClientLog`) together.
    package let logBudget: ClientLineBudget
    var stopping = false
    var stopDeadline = Instant(milliseconds: 0)
    var stopped = false
    private var nextUser: UInt64 = 0
    private var nextNumber: UInt64 = 0

    /// A hub with no sessions and no boards.
    package init(config: Config) {
        self.config = config
        timers = Timers(config)
        logBudget = ClientLineBudget(config.logRate)
        meters = HubMeters(metrics)
        revocations = RevocationList(config.revoked)
    }

    /// Handles one event at monotonic time `now` and wall-clock time `wall`; returns what to do.
    package func handle(_ event: Event, now: Instant, wall: UnixTime) -> [Action] {
        self.now = now
        self.wall = wall
        noteStall(now: now)
        switch event {
        case .accepted(let id, let peer): accepted(id, peer: peer)
        case .upgraded(let id): leftPending(id)
        case .socketClosed(let id): leftPending(id)
        case .clusterPeer(let address): clusterPeer(address)
        case .opened(let id, let peer, let relayed): opened(id, peer: peer, relayed: relayed)
        case .received(let id, let message): received(message, on: id)
        case .closed(let id): closed(id)
        case .request(let exchange, let request): route(request, exchange: exchange)
        case .answered(let read, let answer): answered(read, answer)
        case .abandoned(let exchange): abandoned(exchange)
        case .durable(let seqs, let tickets): durable(seqs: seqs, tickets: tickets)
        case .writeFailed(let failure): writeFailed(failure)
        case .tick: tick()
        case .shutdown: beginShutdown()
        case .leases(let held, let validUntil, let alive): leases(held: held, validUntil: validUntil, alive: alive)
        case .forwardEnded(let id, let code, let answered, let unrelayed):
            forwardEnded(id, code: code, answered: answered, unrelayed: unrelayed)
        case .forwardAnswered(let id): joinDeadlines[id] = nil
        case .released(let board): released(board)
        case .transportCounted(let count): meters.count(count)
        case .streamEnded(let exchange): streamEnded(exchange)
        case .forwardedAnswer(let exchange, let response): forwardedAnswer(exchange, response)
        }
        // Not removeAll(keepingCapacity:): the returned array shares the storage, so that would
        // allocate a new buffer as large as the largest burst of actions ever, on every event.
        defer { actions = [] }
        return actions
    }

    /// A gap since the last event longer than `stallAfter` was a stall: the service thread was
    /// busy (or the process stopped) and the clients' messages of that time wait to be handled now.
    private func noteStall(now: Instant) {
        defer { lastEvent = now }
        guard timers.stallAfter > .zero, let lastEvent, now > lastEvent + timers.stallAfter else { return }
        stalled += now - lastEvent
        meters.stalls.add()
        log(.warning, "the server did not serve for \(now - lastEvent) ms; clients are not charged for that time")
    }

    // MARK: What the transport may ask

    /// The number of open WebSocket connections.
    package var connectionCount: Int { sessions.count }
    /// The number of boards in memory.
    package var boardCount: Int { boards.count }
    /// The number of accepted connections that are not WebSockets (yet).
    package var pendingSocketCount: Int { sockets.count }
    /// In a cluster: this node's settings.
    package var clusterSettings: ClusterSettings? { config.cluster }

    // MARK: Helpers for the handlers

    func emit(_ action: Action) { actions.append(action) }

    /// A log line, within the budget of lines clients can cause.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= config.logLevel else { return }
        guard logBudget.allows(now: now) else { return }
        actions.append(.log(level, message()))
    }

    func send(_ message: ServerMessage, to id: ConnectionID) {
        note(message, to: id)
        actions.append(.send(id, message))
    }

    func makeTicket() -> Ticket {
        nextNumber += 1
        return Ticket(nextNumber)
    }

    /// Asks the store; `then` says what to do with the answer.
    func read(_ request: StoreRead, then continuation: Continuation) {
        readID(request, then: continuation)
    }

    /// `read`, returning the read's id.
    @discardableResult
    func readID(_ request: StoreRead, then continuation: Continuation) -> ReadID {
        nextNumber += 1
        let id = ReadID(nextNumber)
        reads[id] = continuation
        actions.append(.read(id, request))
        return id
    }

    func makeUser(name: String, member: MemberID? = nil) -> User {
        nextUser += 1
        return User(
            id: UserID(number: nextUser), name: name, color: User.color(forUserNumber: nextUser), member: member)
    }

    /// True while the board's deletion is not yet durable.
    func isDeleting(_ id: BoardID) -> Bool { deleting.values.contains(id) }

    /// A room for a new `board` as the config says.
    func makeRoom(board: Board) -> Room { Room(board: board, settings: config.room) }

    /// Carries out what a room asked for, naming connections instead of users.
    func perform(_ effects: [Room.Effect], on host: BoardHost) {
        for effect in effects {
            track(effect, on: host)
            switch effect {
            case .send(let user, let message):
                if let connection = host.connection(of: user) {
                    send(message, to: connection)
                } else {
                    answerREST(message, to: user)
                }
            case .broadcast(let message, let except):
                if case .committed(let op) = message {
                    if !host.streams.isEmpty {
                        host.streamed = now
                        emit(.stream(.ops([op]), to: host.streams))
                    }
                    answerREST(message, to: op.by)
                }
                guard !host.members.isEmpty else { continue }
                actions.append(.broadcast(message, to: host.members, except: except.flatMap(host.connection(of:))))
            case .persist(let op):
                if host.unsaved {
                    // A board made by `hello` is stored with its first op, not before.
                    host.unsaved = false
                    let ticket = makeTicket()
                    creating[ticket] = host.room.id
                    actions.append(.persist(.create(host.room.published), ticket: ticket))
                }
                actions.append(.persist(.append(host.room.id, [op]), ticket: nil))
            case .readBoard(let request, let user):
                guard case .restore(let to, _) = request.op else { continue }
                read(.boardAt(host.room.id, to), then: .restore(host.room.id, user, request))
            }
        }
    }

    /// Forgets a board nobody is on once nothing waits for the disk; the store has all of it.
    /// The writer forgets it too after its writes (`release`), and in a cluster gives up its lease.
    func evictIfIdle(_ host: BoardHost) {
        guard host.room.isIdle, host.members.isEmpty, host.streams.isEmpty, host.awaitingReset.isEmpty,
            host.restOps == 0, !creating.values.contains(host.room.id), boards[host.room.id] === host
        else { return }
        boards[host.room.id] = nil
        // A template board nobody changed was never written: the writer keeps nothing of it.
        if config.cluster != nil || !host.unsaved { releaseLease(host.room.id) }
    }

    // MARK: Store events

    private func durable(seqs: [BoardID: Seq], tickets: [Ticket]) {
        for (id, seq) in seqs.sorted(by: { $0.key < $1.key }) {
            guard let host = boards[id] else { continue }
            perform(host.room.markDurable(upTo: seq), on: host)
            evictIfIdle(host)
        }
        for ticket in tickets {
            deleting[ticket] = nil
            if let id = creating.removeValue(forKey: ticket), let host = boards[id] { evictIfIdle(host) }
            if let (exchange, response) = answerWhenDurable.removeValue(forKey: ticket) {
                emit(.respond(exchange, response))
            }
        }
    }

    /// Cancels the reads made only to answer `exchange`. A write (`POST /api/revocations`) goes
    /// on: it was asked for, and it holds whether or not its client hears of it.
    private func abandoned(_ exchange: ExchangeID) {
        httpForwards[exchange] = nil
        let unwanted = reads.compactMap { id, continuation -> ReadID? in
            guard case .http(exchange, let route) = continuation else { return nil }
            if route.writes { return nil }
            return id
        }
        for id in unwanted.sorted(by: { $0.rawValue < $1.rawValue }) {
            reads[id] = nil
            historyReadEnded(id)
            meters.abandonedReads.add()
            actions.append(.cancelRead(id))
        }
    }

    private func answered(_ id: ReadID, _ answer: StoreAnswer) {
        guard let continuation = reads.removeValue(forKey: id) else { return }
        historyReadEnded(id)
        switch continuation {
        case .decide(let board): decided(board, answer)
        case .claimed(let board, let sent, let force): decided(board, answer, claim: (sent, force))
        case .http(let exchange, let route): answered(route, answer, exchange: exchange)
        case .revocations: revocationsLoaded(answer)
        case .restore(let board, let user, let request): restoreRead(answer, board: board, user: user, request: request)
        case .streamReset(let board): resetEncoded(answer, read: id, board: board)
        }
    }

    // MARK: Time and shutdown

    private func tick() {
        if let line = logBudget.report(now: now) { actions.append(.log(.warning, line)) }
        enforceTimeouts()
        expireTokens()
        expireStreams()
        reloadRevocations()
        checkSockets()
        if config.cluster != nil { clusterTick() }
        for host in boards.values {
            if host.room.hasTimers { perform(host.room.expireHolds(now: now), on: host) }
            perform(host.room.presence(now: now), on: host)
        }
        if !streams.isEmpty { keepStreamsAlive() }
        if stopping && !stopped && now >= stopDeadline { stop() }
    }

    private func beginShutdown() {
        guard !stopping else { return }
        stopping = true
        stopDeadline = now + timers.shutdownGrace
        log(.info, "shutting down: closing \(sessions.count) connection(s) with 1001")
        for id in sessions.keys.sorted() { closeSession(id, code: 1001, reason: "server shutting down", flush: false) }
        endAllStreams()
        if sessions.isEmpty { stop() }
    }

    func stop() {
        stopped = true
        // The leases of the boards still in memory go after their final writes, so that other
        // nodes take them at once instead of waiting for them to run out.
        if config.cluster != nil {
            for id in boards.keys.sorted() where !releasing.contains(id) { emit(.release(id)) }
        }
        emit(.stop)
    }
}
