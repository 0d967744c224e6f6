internal import BoardAuth
internal import BoardCore
internal import BoardHub
internal import BoardStore
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// The libwebsockets side of the server: turns lws callbacks into hub events, and hub actions
/// into lws calls. Every session rule lives in the `Hub`; this type knows only what the transport
/// alone can know: frames and fragments, send queues, WRITEABLE, HTTP bodies and response bytes.
///
/// Confined to the service thread: every method runs inside an lws callback or the service loop.
/// Other threads reach it only through `inbox`.
final class Service {
    let config: ServerConfig
    let log: Logger
    let inbox: Inbox<Hub.Event>
    let persister: Persister
    let reader: Reader
    /// Encodes large HTTP answers that need no store (`StoreRead.encodeSnapshot`).
    let encoder: Reader
    /// In a cluster (the store is a `ClusterStore`): the renewal thread.
    let leaseKeeper: LeaseKeeper?
    let files: StaticFiles
    /// Every session rule. Events reach it only through `handle`; the operations endpoints
    /// (Service+Operations.swift) read its state and its metrics registry.
    let hub: Hub
    /// The transport's metric families, in the hub's registry.
    let meters: TransportMeters
    /// The one buffer raw writes are assembled in (`LWS_PRE` and `--max-write-bytes`): lws has
    /// sent or copied a raw write when `lws_write` returns, so every connection can share it.
    let scratch: UnsafeMutableRawBufferPointer

    var context: OpaquePointer?
    var connections: [ConnectionID: Connection] = [:]
    var exchanges: [ExchangeID: HTTPExchange] = [:]
    /// Forwarded connections' upstreams to boards' owners, by their own id (Service+Forwarding.swift).
    var upstreams: [UInt64: Upstream] = [:]
    /// The cluster secret as the `x-shuffleboard-cluster-key` header carries it (hex), and as a
    /// token to compare a received one with in constant time; nil when not clustered.
    let clusterKey: (hex: String, token: StaticToken)?
    /// The upstreams' ping policy and a warning's state.
    let forwarding: ForwardingSetup
    /// Accepted connections the hub counts until they upgrade or close (Service+Sockets.swift).
    var sockets = AcceptedSockets()
    /// Exchanges whose answer is being written in pieces, or that lws has only partly sent
    /// (see `watchFlushing`).
    var flushing: Set<ExchangeID> = []
    /// Bytes of HTTP answers made for their request since the heap was last trimmed
    /// (`trimHeapAfterAnswers`).
    var answeredBytes = 0
    /// The bytes of HTTP answers held for clients (`--max-http-answer-bytes`).
    let answerTally = AnswerTally()
    /// When `watchFlushing` last checked the exchanges sending their answers in pieces (µs).
    var sendingWatched: UInt64 = 0
    /// The timer that wakes feeds whose hovers wait (`--hover-pacing`); nil: hovers are not paced.
    var pacer: Pacer?
    /// Feeds with hovers waiting for their next wake-up, in the order they began to wait.
    private var pacedFeeds: [Feed] = []
    /// The service thread's share of a core over the last tick, and the clocks it was measured on.
    private(set) var saturation: Saturation
    private var nextID: UInt64 = 0
    private var nextSocketID: UInt64 = 0
    /// Bounds the log lines clients cause on the transport side (refused frames, full queues).
    private var logBudget: LogBudget?
    /// Set by the hub's `stop`: the service loop ends.
    private(set) var finished = false
    /// Set once the log has said that this libwebsockets cannot tell masked frames from unmasked.
    private var maskUnknownWarned = false
    /// When shutdown began: echo connections (which the hub does not know) get the same grace
    /// as the hub's sessions to take their 1001 before the loop ends.
    private var echoCloseDeadline: Instant?
    /// The hub said stop while echo connections were still closing.
    private var stopRequested = false
    /// Connections opened and closed since the heap was last trimmed, and since the last tick.
    private var churnSinceTrim = 0
    private var churnSinceTick = 0
    /// True while the hub's actions are being carried out: an event that an lws call made during
    /// them causes (an upstream that failed at once) waits in `later` instead of re-entering the hub.
    private var applying = false
    private var later: [Hub.Event] = []
    /// With the in-memory store: the writes and releases of the event being handled, written by
    /// the service thread itself once its actions are carried out (`Persister.writesInline`).
    private var inlineTasks: [Persister.Task] = []

    #if DEBUG
        var serviceThread: pthread_t?
    #endif

    init(config: ServerConfig, store: any BoardStore, log: Logger) {
        self.config = config
        self.log = log
        inbox = Inbox()
        saturation = Saturation(threshold: config.hoverPacingBusy)
        persister = Persister(
            store: store, inbox: inbox, log: log, stopRetry: .milliseconds(Int64(config.shutdownWriteRetry * 1000)))
        reader = Reader(store: store, inbox: inbox)
        encoder = Reader(store: store, inbox: inbox, name: "shuffleboard-encoder")
        files = StaticFiles(root: config.webRoot)
        for line in files.skipped { log.log(.warning, "web folder: not served: \(line)") }
        var hubConfig = Hub.Config()
        hubConfig.createBoards = config.createBoards
        hubConfig.origins = config.origins
        hubConfig.defaultTemplate = Template(rawValue: config.defaultTemplate) ?? .colors
        hubConfig.room.historyLimit = config.historyLimit
        hubConfig.room.holdTimeout = Int64(config.holdTimeout * 1000)
        hubConfig.shutdownGrace = Int64(config.shutdownGrace * 1000)
        hubConfig.helloTimeout = Int64(config.helloTimeout * 1000)
        hubConfig.room.holdLifetime = Int64(config.holdLifetime * 1000)
        hubConfig.room.holdCooldown = Int64(config.holdCooldown * 1000)
        hubConfig.room.maxHoldsPerAddress = config.maxHoldsPerAddress
        func rate(_ perSecond: Double, burst: Double) -> Rate? {
            perSecond > 0 ? Rate(perSecond: perSecond, burst: burst) : nil
        }
        hubConfig.opRate = rate(config.opRate, burst: 2 * config.opRate)
        hubConfig.messageRate = rate(config.messageRate, burst: 2 * config.messageRate)
        hubConfig.maxConnectionsPerAddress = config.maxConnectionsPerAddress
        hubConfig.maxPendingPerAddress = config.maxPendingPerAddress
        hubConfig.firstByteTimeout = Int64(config.firstByteTimeout * 1000)
        hubConfig.uncappedAddresses = Set(config.trustedProxies)
        hubConfig.connectRate = rate(config.connectRate, burst: 2 * config.connectRate)
        hubConfig.boardCreationRate = rate(config.boardCreationsPerMinute / 60, burst: config.boardCreationsPerMinute)
        hubConfig.maxUsersPerBoard = config.maxUsersPerBoard
        hubConfig.room.presenceLimit = config.presenceLimit
        hubConfig.maxBoardsInMemory = config.maxBoards
        hubConfig.logLevel = config.logLevel
        hubConfig.auth = config.authSecrets.map { TokenAuthority(secrets: $0) }
        if hubConfig.auth != nil { hubConfig.revoked = Self.revocations(in: store, log: log) }
        hubConfig.metricsTopBoards = config.metricsTopBoards
        hubConfig.maxPageBytes = config.maxPageBytes
        if let cluster = store as? any ClusterStore {
            // The store holds the leases: its node name and lease are the ones that count.
            hubConfig.cluster = ClusterSettings(node: cluster.node, lease: Int64(cluster.leaseSeconds * 1000))
            leaseKeeper = LeaseKeeper(store: cluster, inbox: inbox, log: log)
        } else {
            leaseKeeper = nil
        }
        hub = Hub(config: hubConfig)
        meters = TransportMeters(hub.metrics)
        scratch = .allocate(byteCount: Int(shuffleboard_lws_pre()) + config.maxWriteBytes, alignment: 16)
        forwarding = ForwardingSetup(timeout: config.forwardTimeout)
        clusterKey = Self.clusterSecret(config: config, store: store, log: log).map { secret in
            let hex = Self.hex(secret)
            return (hex, StaticToken(Array(hex.utf8)))
        }
    }

    deinit { scratch.deallocate() }

    func assertOnServiceThread() {
        #if DEBUG
            if let serviceThread {
                precondition(pthread_equal(serviceThread, pthread_self()) != 0, "off the service thread")
            }
        #endif
    }

    func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// An accepted socket's id: numbered on their own, so that connections' and exchanges' ids
    /// (which logs and tests name) do not depend on how many sockets were accepted.
    func makeSocketID() -> SocketID {
        nextSocketID += 1
        return SocketID(nextSocketID)
    }

    // MARK: Events in

    /// Hands one event to the hub with the current time, and carries out its actions. Called
    /// while actions are being carried out, it runs once they are done.
    func handle(_ event: Hub.Event) {
        guard !applying else { return later.append(event) }
        if case .tick = event { forgetUnbound() }
        let now = Clock.now()
        if case .shutdown = event, echoCloseDeadline == nil {
            // The hub closes its sessions; echo connections are the transport's own.
            echoCloseDeadline = now + Int64(config.shutdownGrace * 1000)
            for connection in connections.values where connection.endpoint == .echo {
                connection.close(code: 1001, reason: "server shutting down")
            }
        }
        applying = true
        if let intercept = config.interceptEvent, let actions = intercept(event) {
            apply(actions)
        } else {
            apply(hub.handle(event, now: now, wall: Clock.wall()))
        }
        applying = false
        if !inlineTasks.isEmpty {
            // What the writer thread would report through the inbox comes next, in order.
            let tasks = inlineTasks
            inlineTasks.removeAll(keepingCapacity: true)
            persister.run(tasks) { later.append($0) }
        }
        if case .tick = event {
            saturation.sample()
            sweepExchanges()
            sweepUpstreams(now: now)
            trimHeapAfterChurn()
        }
        finishIfStopped(now: now)
        while !later.isEmpty { handle(later.removeFirst()) }
    }

    /// Once a burst of connections opening or closing (at least 256 of them) has been over for a
    /// tick, gives the freed heap pages back to the kernel (`shuffleboard_trim_heap`): their
    /// handshake buffers are freed, but glibc keeps the pages between the connections that stay.
    /// A trim walks the free lists (a few milliseconds for a heap of thousands of connections),
    /// so it happens only after such a burst.
    private func trimHeapAfterChurn() {
        defer { churnSinceTick = 0 }
        guard churnSinceTrim >= 256, churnSinceTick == 0 else { return }
        let churn = churnSinceTrim
        churnSinceTrim = 0
        var start = timespec()
        clock_gettime(CLOCK_MONOTONIC, &start)
        let released = shuffleboard_trim_heap() != 0
        var end = timespec()
        clock_gettime(CLOCK_MONOTONIC, &end)
        let micros = (end.tv_sec - start.tv_sec) * 1_000_000 + (end.tv_nsec - start.tv_nsec) / 1000
        log.debug(
            "heap trimmed after \(churn) connections opened or closed in \(micros) µs"
                + (released ? "" : " (nothing to release)"))
    }

    /// Ends the loop once the hub has stopped and no echo connection is left (or their grace is over).
    private func finishIfStopped(now: Instant) {
        guard stopRequested, !finished else { return }
        let echoLeft = connections.values.contains { $0.endpoint == .echo }
        if !echoLeft || now >= echoCloseDeadline ?? now { finished = true }
    }

    func drainInbox() {
        for event in inbox.drain() { handle(event) }
    }

    func opened(_ wsi: OpaquePointer, endpoint: Endpoint) -> UInt64 {
        let id = ConnectionID(makeID())
        churnSinceTrim += 1
        churnSinceTick += 1
        let deflate = config.deflate && LWS.header(wsi, WSI_TOKEN_EXTENSIONS)?.contains("permessage-deflate") == true
        // An echo connection's bound fits one message as large as the echo endpoint takes.
        let bound =
            endpoint == .echo
            ? max(config.maxPendingBytes, config.echoMaxMessageBytes + Frame.maximumHeaderLength)
            : config.maxPendingBytes
        let connection = Connection(
            id: id.rawValue, wsi: wsi, deflate: deflate, maxPendingBytes: bound, maxWriteBytes: config.maxWriteBytes)
        connection.endpoint = endpoint
        connections[id] = connection
        limitUnsent(wsi)
        let socketPeer = LWS.peer(of: wsi)
        let proxied = proxiedAddress(wsi, socketPeer: socketPeer)
        let direct = proxied ?? socketPeer
        let forwardedFor = endpoint == .board ? forwardedAddress(wsi, socketPeer: direct, id: id) : nil
        if forwardedFor != nil, proxied == nil { handle(.clusterPeer(socketPeer)) }
        let peer = forwardedFor ?? direct
        connection.address = peer
        connection.peer =
            forwardedFor.map { "\($0) (via \(socketPeer))" } ?? proxied.map { "\($0) (via proxy \(socketPeer))" }
            ?? socketPeer
        if clusterKey != nil {  // Only a cluster node forwards, and so needs it later.
            connection.origin = LWS.header(wsi, WSI_TOKEN_ORIGIN).flatMap {
                $0.utf8.count <= Self.maximumOriginBytes ? $0 : nil
            }
        }
        meters.accepted.add(EndpointLabel(endpoint))
        if deflate { log.debug("\(id) from \(connection.peer) uses permessage-deflate") }
        switch endpoint {
        case .board: handle(.opened(id, peer: peer))
        case .echo: log.debug("\(id) from \(peer) is on the echo endpoint")
        }
        return id.rawValue
    }

    /// Lets the kernel hold at most `--unsent-bytes` not yet sent to the client
    /// (`TCP_NOTSENT_LOWAT`): lws hears the socket is writable only below that. Without it a
    /// client that stops reading gets megabytes of stale hovers buffered in the kernel (TCP
    /// autotuning grows the send buffer to 4 MiB) before the server sees it as behind and
    /// coalesces them; with it, what a slow reader has not taken stays where the server can
    /// coalesce and bound it.
    func limitUnsent(_ wsi: OpaquePointer) {
        guard config.unsentBytes > 0 else { return }
        var bytes = Int32(config.unsentBytes)
        let fd = lws_get_socket_fd(wsi)
        if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &bytes, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            log.debug("TCP_NOTSENT_LOWAT on socket \(fd): errno \(errno)")
        }
    }

    /// Behind a proxy in `--trusted-proxy`, the client address it added to `X-Forwarded-For` (the
    /// last one: those before it are whatever the client sent); nil for anyone else, or when the
    /// header is missing or its last entry is not an address.
    func proxiedAddress(_ wsi: OpaquePointer, socketPeer: String) -> String? {
        guard config.trustedProxies.contains(socketPeer),
            let header = LWS.header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        else { return nil }
        let last = header.split(separator: ",").last.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
        guard Self.isAddress(last) else {
            clientLog(
                "a request through proxy \(socketPeer) names no client address in X-Forwarded-For; using the proxy's")
            return nil
        }
        return last
    }

    func closed(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: ConnectionID(id)) else { return }
        churnSinceTrim += 1
        churnSinceTick += 1
        connection.closed()
        logClose(of: connection)
        if connection.upstream != nil { clientWent(connection) }
        switch connection.endpoint {
        case .board: handle(.closed(ConnectionID(id)))
        case .echo: finishIfStopped(now: Clock.now())
        }
    }

    /// A complete text message from a client on `/ws`: to the hub, or to the board's owner when
    /// the connection is forwarded.
    func received(_ bytes: [UInt8], on connection: Connection) {
        if connection.upstream != nil { return relay(bytes, from: connection) }
        let parsed = ClientMessage.parse(bytes)
        let type = ClientMessageType(parsed)
        meters.received.add(type)
        meters.receivedBytes.add(type, UInt64(bytes.count))
        handle(.received(ConnectionID(connection.id), parsed))
    }

    /// A complete message on the echo endpoint goes back to its sender, under the same send
    /// bound as everything else (raised to fit one message as large as the echo endpoint takes).
    func echo(_ frame: Frame, to connection: Connection) {
        send(frame, to: connection)
    }

    /// Says once that frames cannot be checked for a mask (a libwebsockets other than 4.1).
    func warnMaskUnknown() {
        guard !maskUnknownWarned else { return }
        maskUnknownWarned = true
        log.warning("this libwebsockets does not say whether client frames are masked; unmasked frames are accepted")
    }

    /// A warning a client caused, within the budget of such lines (see `LogBudget`).
    func clientLog(_ line: @autoclosure () -> String) { clientLog(.warning, line()) }

    /// A line a client caused, within the budget of such lines (see `LogBudget`). A line below
    /// the log level is not made and uses none of the budget.
    func clientLog(_ level: LogLevel, _ line: @autoclosure () -> String) {
        guard log.writes(level) else { return }
        let now = Clock.now()
        if logBudget == nil { logBudget = LogBudget(Rate(perSecond: 50, burst: 500), now: now) }
        if let report = logBudget!.report(now: now) { log.warning(report) }
        guard logBudget!.allows(now: now) else { return }
        log.log(level, line())
    }

    /// The close line (info) and the close metric: the code the server sent, or the one the client
    /// sent, or 1006 when the connection ended without a close frame.
    private func logClose(of connection: Connection) {
        let code: UInt16
        let reason: String
        let initiator: CloseLabel.Initiator
        if let request = connection.closeRequest {
            (code, reason, initiator) = (request.code, request.reason, .server)
        } else if let closing = connection.closing {
            (code, reason, initiator) = (closing.code, closing.reason, closing.byServer ? .server : .client)
        } else {
            (code, reason, initiator) = (1006, "", .network)
        }
        meters.closes.add(CloseLabel(code: code, initiator: initiator))
        clientLog(
            .info,
            initiator == .network
                ? "connection \(connection.id) from \(connection.peer) closed without a close frame (1006)"
                : "connection \(connection.id) from \(connection.peer) closed by the \(initiator.rawValue): \(code)"
                    + (reason.isEmpty ? "" : " \(reason)"))
    }

    // MARK: Actions out

    private func apply(_ actions: [Hub.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message):
                if let connection = connections[id] {
                    let frame = Frame(message)
                    meters.sent(message, bytes: frame.count, recipients: 1)
                    send(frame, to: connection)
                }
            case .broadcast(let message, let members, let except):
                let frame = Frame(message)
                var recipients = 0
                if let feed = feed(of: members) {
                    // The clock only while pacing: without it, no hover waits for a time.
                    let pacing = hoverPacing
                    let now = pacing == 0 ? 0 : Clock.microseconds()
                    recipients = feed.append(frame, except: except, now: now, pacing: pacing) {
                        overBound($0, holding: $0.pendingBytes)
                    }
                    if feed.wakePending && !feed.paced { pace(feed) }
                }
                meters.sent(message, bytes: frame.count, recipients: recipients)
            case .refuseSocket(let id):
                refuse(id)
            case .closeIfSilent(let id):
                closeIfSilent(id)
            case .close(let id, let code, let reason, let flush):
                connections[id]?.close(code: code, reason: reason, flush: flush)
            case .persist(let write, let ticket):
                persist(.write((write, ticket)))
            case .read(let id, .encodeSnapshot(let board, let seq, let clustered, let owner)):
                encoder.submit(.encodeSnapshot(board, seq: seq, clustered: clustered, owner: owner), id: id)
            case .read(let id, let request):
                reader.submit(request, id: id)
            case .respond(let exchange, let response):
                respond(exchange, response)
            case .log(let level, let line):
                log.log(level, line)
            case .stop:
                stopRequested = true
            case .forward(let id, let advertise, let messages):
                forward(id, to: advertise, messages: messages)
            case .release(let board):
                persist(.release(board))
            }
        }
    }

    /// The feed of the board whose members these are (the feed of the first of them on one),
    /// made to read exactly these; nil when none of them is open.
    private func feed(of members: [ConnectionID]) -> Feed? {
        var found: Feed?
        var open = false
        for id in members {
            guard let connection = connections[id] else { continue }
            open = true
            if let feed = connection.feed {
                found = feed
                break
            }
            if connection.closeRequest == nil { break }
        }
        guard open else { return nil }
        let feed =
            found
            ?? Feed(capacity: config.ringBytes) { [unowned self] connection, bytes in
                clientLog(
                    .debug,
                    "connection \(connection.id) from \(connection.peer) fell \(bytes) bytes behind its board's "
                        + "broadcasts; it gets copies until it catches up")
            }
        if feed.members != members { feed.reconcile(members, connections: connections) }
        return feed
    }

    /// A store write or lease release: to the writer thread, or, when the store's writes never
    /// wait, kept for the service thread to run once the event's actions are carried out.
    private func persist(_ task: Persister.Task) {
        if persister.writesInline {
            inlineTasks.append(task)
        } else {
            persister.submit(task)
        }
    }

    /// The least time between two wake-ups of a board's readers for hovers, in microseconds:
    /// `--hover-pacing` while the service thread is saturated, otherwise 0 (every hover wakes
    /// them at once: when the thread has time to spare, pacing would only add latency).
    private var hoverPacing: UInt64 {
        pacer != nil && saturation.saturated ? UInt64(config.hoverPacing) : 0
    }

    /// `feed` has hovers waiting: the pacer wakes it once its pacing interval is over.
    private func pace(_ feed: Feed) {
        feed.paced = true
        pacedFeeds.append(feed)
        pacer?.fire(at: feed.wakeDue)
    }

    /// The pacer's timer fired: wakes the feeds whose interval is over (or nearly: within 100 µs,
    /// rather than set the timer again for a few microseconds), and sets it for the next.
    func pacerFired() {
        guard let pacer else { return }
        pacer.fired()
        let now = Clock.microseconds()
        var next: UInt64?
        pacedFeeds.removeAll { feed in
            guard feed.wakePending else {
                feed.paced = false
                return true
            }
            let due = feed.wakeDue
            if now + 100 >= due {
                feed.wakeReaders(now: now)
                feed.paced = false
                return true
            }
            next = min(next ?? due, due)
            return false
        }
        if let next { pacer.fire(at: next) }
    }

    /// Queues `frame`; a connection it would take over `--max-pending-bytes` (counting what lws
    /// still holds of its last write) is closed with 1008 instead, even when its queue is empty.
    func send(_ frame: Frame, to connection: Connection) {
        guard !connection.enqueue(frame) else { return }
        overBound(connection, holding: connection.pendingBytes + frame.count)
    }

    /// A frame would take `connection` to `held` bytes, over `--max-pending-bytes`: it is closed
    /// with 1008.
    private func overBound(_ connection: Connection, holding held: Int) {
        hub.meters.limitHits.add(.sendQueue)
        clientLog(
            "connection \(connection.id) from \(connection.peer) would hold \(held) bytes of output, "
                + "over its send limit of \(config.maxPendingBytes) bytes; closing with 1008")
        connection.close(code: 1008, reason: "send queue over limit")
    }
}

/// Whether the service thread is saturated: busy (on a core, not waiting in `poll`) for at least
/// `threshold` of the last tick (95%), and until it is busy for less than 10 points below that
/// (so that pacing, which lowers the load, does not turn itself off and on at every tick); with
/// a threshold of 0, always. Sampled on the service thread.
struct Saturation {
    private(set) var saturated: Bool
    /// The busy share of the last tick.
    private(set) var busy = 0.0
    private let threshold: Double
    private var cpu: UInt64 = 0
    private var wall: UInt64 = 0

    init(threshold: Double) {
        self.threshold = threshold
        saturated = threshold <= 0
    }

    /// Samples the thread's CPU clock and the monotonic clock (on the service thread).
    mutating func sample() {
        record(cpu: Clock.microseconds(CLOCK_THREAD_CPUTIME_ID), wall: Clock.microseconds())
    }

    /// One sample: the thread's CPU time and the wall time, in microseconds.
    mutating func record(cpu: UInt64, wall: UInt64) {
        defer { (self.cpu, self.wall) = (cpu, wall) }
        guard self.wall != 0, wall > self.wall else { return }
        busy = Double(cpu &- self.cpu) / Double(wall - self.wall)
        saturated = saturated ? busy >= threshold - 0.1 : busy >= threshold
    }
}

/// The two clocks the hub is given.
enum Clock {
    /// A clock in microseconds: by default the monotonic one (for pacing hovers; `Pacer` sets
    /// its timer on it).
    static func microseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
    }

    /// The monotonic clock, for timers.
    static func now() -> Instant {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Instant(milliseconds: Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000)
    }

    /// The wall clock, for committed ops' `time`.
    static func wall() -> UnixTime {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return UnixTime(milliseconds: Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000)
    }
}
