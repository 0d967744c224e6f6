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
        /// board's owner. `proxy`: with `Config.proxy`, its socket's address and the proxy's
        /// headers in its upgrade (Hub+Proxy.swift).
        case opened(ConnectionID, peer: String, relayed: Bool = false, proxy: ProxyHeaders? = nil)
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
        /// (EventStreams.swift), which gets `.stream` events until `.endStream` or its client leaves.
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
    /// The event being handled: its time, the durations, what has been decided so far and the
    /// metric families (Turn.swift).
    let turn: Turn

    /// Every open WebSocket connection's session: its phase, its limits, its `hello` deadline
    /// (Sessions.swift; routed by Hub+Sessions.swift).
    let sessions: Sessions
    /// Per client address: connections and rates (AddressBook.swift, Limits.swift).
    let addresses: AddressBook
    /// Accepted connections that are not WebSockets (yet), and the limits on them (SocketGate.swift).
    let gate: SocketGate
    /// The boards in memory, those waiting for the store, and the creations and deletions not
    /// durable yet (BoardDirectory.swift; the loading rules are BoardLoading's, routed by Hub+Boards.swift).
    let boards = BoardDirectory()
    /// The reads out to the store, with what to do with each answer (StoreReads.swift).
    let reads: StoreReads
    /// In a cluster: the leases, releases out, forwards and their retries, joins waiting for an
    /// answer, REST requests relayed to their owner (Cluster/Cluster.swift, routed by Hub+Cluster.swift).
    var cluster: Cluster
    /// Token checks, the revoked tokens and members' grants, as last loaded from the store
    /// (Access.swift).
    let access: Access
    /// `POST /api/boards/{id}/ops` waiting for their op's answer, by the user each was sent as
    /// (RESTOps.swift).
    let restOps: RESTOps
    /// Event streams, loading or open (EventStreams.swift).
    let streams: EventStreams
    /// The notices connected clients were told of (InboxFeed.swift, Hub+Inbox.swift).
    var inbox = InboxFeed()

    /// A hub with no sessions and no boards.
    package init(config: Config) {
        self.config = config
        let turn = Turn(config, meters: HubMeters(Metrics()))
        self.turn = turn
        sessions = Sessions(config: config)
        addresses = AddressBook(config: config, turn: turn)
        reads = StoreReads(turn: turn)
        cluster = Cluster(
            settings: config.cluster, lease: turn.timers.lease, forwardTimeout: turn.timers.forwardTimeout,
            maxMessagesWhileJoining: config.maxMessagesWhileJoining)
        gate = SocketGate(config: config, timers: turn.timers, meters: turn.meters, turn: turn)
        access = Access(config: config, turn: turn)
        restOps = RESTOps(config: config, turn: turn)
        streams = EventStreams(config: config, turn: turn)
    }

    /// Handles one event at monotonic time `now` and wall-clock time `wall`; returns what to do.
    package func handle(_ event: Event, now: Instant, wall: UnixTime) -> [Action] {
        if let stall = turn.begin(now: now, wall: wall) {
            meters.stalls.add()
            log(.warning, "the server did not serve for \(stall) ms; clients are not charged for that time")
        }
        switch event {
        case .accepted(let id, let peer): gate.accepted(id, peer: peer, address: addresses.state)
        case .upgraded(let id), .socketClosed(let id): gate.leftPending(id) { addresses[$0] }
        case .clusterPeer(let address): gate.clusterPeer(address)
        case .opened(let id, let peer, let relayed, let proxy): opened(id, peer: peer, relayed: relayed, proxy: proxy)
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
        case .forwardAnswered(let id): cluster.answered(id)
        case .released(let board): released(board)
        case .transportCounted(let count): meters.count(count)
        case .streamEnded(let exchange): streams.ended(exchange, boardHost: { boards[$0] }, idle: evictIfIdle)
        case .forwardedAnswer(let exchange, let response): forwardedAnswer(exchange, response)
        }
        return turn.take()
    }

    // MARK: What the transport may ask

    /// The number of open WebSocket connections.
    package var connectionCount: Int { sessions.count }
    /// The number of boards in memory.
    package var boardCount: Int { boards.count }
    /// The number of accepted connections that are not WebSockets (yet).
    package var pendingSocketCount: Int { gate.sockets.count }
    /// Bounds the log lines clients cause, the hub's and the transport's (`ClientLog`) together.
    package var logBudget: ClientLineBudget { turn.logBudget }
    /// The metrics registry: the hub's families (`meters`) and the transport's.
    package var metrics: Metrics { meters.registry }
    /// The hub's metric families (Hub+Metrics.swift).
    package var meters: HubMeters { turn.meters }
    /// The config's durations, converted once for the timers.
    var timers: Timers { turn.timers }
    /// True once shutdown has begun (stopping or stopped).
    var stopping: Bool { turn.stopping }
    /// In a cluster: this node's settings.
    package var clusterSettings: ClusterSettings? { config.cluster }

    // MARK: Helpers for the handlers

    /// The time of the event being handled.
    var now: Instant { turn.now }
    /// The wall-clock time of the event being handled.
    var wall: UnixTime { turn.wall }
    /// The milliseconds the server has been stalled so far (`Turn.stalled`).
    var stalled: Int64 { turn.stalled }

    func emit(_ action: Action) { turn.emit(action) }

    /// A log line, within the budget of lines clients can cause.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) { turn.log(level, message()) }

    func send(_ message: ServerMessage, to id: ConnectionID) {
        note(message, to: id)
        emit(.send(id, message))
    }

    func makeTicket() -> Ticket { reads.makeTicket() }

    /// Asks the store; the read's reply says what to do with the answer. A read made for
    /// `exchange` is of no use once its client goes away (`abandoned`).
    func read(_ request: StoreRead, for exchange: ExchangeID? = nil) { reads.ask(request, for: exchange) }

    /// True while the board's deletion is not yet durable.
    func isDeleting(_ id: BoardID) -> Bool { boards.pending.isDeleting(id) }

    /// Stores a board `hello` made (`unsaved`) now; the ticket of its creation.
    func storeNow(_ host: BoardHost) -> Ticket {
        host.unsaved = false
        let ticket = makeTicket()
        boards.pending.create(host.id, ticket: ticket)
        emit(.persist(.create(host.room.published), ticket: ticket))
        return ticket
    }

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
                    restOps.answer(message, to: user, on: host)
                }
            case .broadcast(let message, let except):
                if case .committed(let op) = message {
                    if !host.streams.open.isEmpty { streams.published(op, on: host) }
                    restOps.answer(message, to: op.by, on: host)
                }
                guard !host.members.isEmpty else { continue }
                emit(.broadcast(message, to: host.members, except: except.flatMap(host.connection(of:))))
            case .persist(let op):
                // A board made by `hello` is stored with its first op, not before.
                if host.unsaved { _ = storeNow(host) }
                emit(.persist(.append(host.id, [op]), ticket: nil))
                inboxPersisting(op, on: host.id)
            case .readBoard(let request, let user):
                guard case .restore(let to, _) = request.op else { continue }
                let board = host.id
                read(.boardAt(board, to, Reply { $0.restoreRead($1, board: board, user: user, request: request) }))
            }
        }
    }

    /// Forgets a board nobody is on once nothing waits for the disk; the store has all of it.
    /// The writer forgets it too after its writes (`release`), and in a cluster gives up its lease.
    func evictIfIdle(_ host: BoardHost) {
        // Cheapest first: a board with people on it goes no further (`room` is read last).
        guard host.members.isEmpty, host.room.isIdle, host.streams.isIdle,
            host.restOps == 0, !boards.pending.isCreating(host.id), boards[host.id] === host
        else { return }
        boards.remove(host.id)
        // A template board nobody changed was never written: the writer keeps nothing of it.
        if config.cluster != nil || !host.unsaved { releaseLease(host.id) }
    }

    // MARK: Store events

    private func durable(seqs: [BoardID: Seq], tickets: [Ticket]) {
        // In board order, so that runs are reproducible; one board (the usual batch) needs no sort.
        if seqs.count == 1, let (id, seq) = seqs.first {
            durable(id, upTo: seq)
        } else {
            for (id, seq) in seqs.sorted(by: { $0.key < $1.key }) { durable(id, upTo: seq) }
        }
        for ticket in tickets {
            // With access control, a deleted board's id stays taken until the next revocation
            // load shows its links' tokens revoked (BoardLog.delete revokes them); asked at once.
            let settlesAt = config.auth == nil ? nil : access.reloadsAsked + 1
            let done = boards.pending.durable(ticket, settlesAt: settlesAt)
            if settlesAt != nil, boards.pending.isSettling, !access.isLoading { access.reloadSoon() }
            if let id = done.created, let host = boards[id] { evictIfIdle(host) }
            if let (exchange, response) = done.answer { emit(.respond(exchange, response)) }
            if let (request, exchange) = done.read { read(request, for: exchange) }
        }
        inboxDurable(seqs)
    }

    /// `id`'s ops are durable up to `seq`: its room publishes them.
    private func durable(_ id: BoardID, upTo seq: Seq) {
        guard let host = boards[id] else { return }
        perform(host.room.markDurable(upTo: seq), on: host)
        evictIfIdle(host)
    }

    /// Cancels the reads made only to answer `exchange`. A write (`POST /api/revocations`) goes
    /// on: it was asked for, and it holds whether or not its client hears of it.
    private func abandoned(_ exchange: ExchangeID) {
        cluster.abandoned(exchange)
        for _ in 0..<reads.abandon(exchange) { meters.abandonedReads.add() }
    }

    /// A read came back: its reply does what it says, unless nobody wants the answer any more.
    private func answered(_ id: ReadID, _ answer: StoreAnswer) {
        guard reads.answered(id) else { return }
        answer.apply(to: self, read: id)
    }

    // MARK: Time and shutdown

    private func tick() {
        if let line = logBudget.report(now: now) { turn.logUnbudgeted(.warning, line) }
        enforceTimeouts()
        endSessions(.expired)
        streams.expire(boardHost: { boards[$0] }, idle: evictIfIdle)
        if let reload = access.reload() { read(reload) }
        inboxTick()
        if let reload = access.reloadGrants() { read(reload) }
        gate.tick { addresses[$0] }
        if config.cluster != nil { clusterTick() }
        for host in boards.hosts {
            if host.room.hasTimers { perform(host.room.expireHolds(now: now), on: host) }
            perform(host.room.presence(now: now), on: host)
        }
        streams.endOld(boardHost: { boards[$0] }, idle: evictIfIdle)
        streams.keepAlive(boards.hosts)
        if case .stopping(let deadline) = turn.lifecycle, now >= deadline { stop() }
    }

    private func beginShutdown() {
        guard case .serving = turn.lifecycle else { return }
        turn.stop(at: now + timers.shutdownGrace)
        log(.info, "shutting down: closing \(sessions.count) connection(s) with 1001")
        for id in sessions.ids.sorted() { closeSession(id, code: 1001, reason: "server shutting down", flush: false) }
        for id in boards.ids.sorted() {
            guard let host = boards[id] else { continue }
            streams.end(of: host, deleted: false)
            evictIfIdle(host)  // Kept in memory for its streams alone: nothing keeps it now.
        }
        streams.refuseWaiting()
        if sessions.isEmpty { stop() }
    }

    /// The hub's phases: it serves until `shutdown`, then closes everything until the grace period
    /// is over (or nothing is left), then stops.
    enum Lifecycle: Equatable {
        case serving
        /// Shutting down: whatever is still open at `until` is left behind.
        case stopping(until: Instant)
        /// `.stop` was emitted: nothing more happens.
        case stopped
    }

    func stop() {
        turn.stopped()
        // The leases of the boards still in memory go after their final writes, so that other
        // nodes take them at once instead of waiting for them to run out.
        if config.cluster != nil {
            for id in boards.ids.sorted() where !cluster.isReleasing(id) { emit(.release(id)) }
        }
        emit(.stop)
    }
}
