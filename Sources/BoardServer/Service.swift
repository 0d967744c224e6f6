internal import BoardCore
internal import BoardStore
internal import CLibWebSockets
import Foundation

/// A board that is loaded, and the connections on it.
final class BoardHost {
    var room: Room
    var members: [UserID: Connection] = [:]

    init(room: Room) { self.room = room }
}

/// An HTTP exchange in progress: the request as it arrives, then the response waiting for WRITEABLE.
final class HTTPExchange {
    let wsi: OpaquePointer
    var request: HTTPRequest
    var bodyTooLarge = false
    var response: HTTPResponse?

    init(wsi: OpaquePointer, request: HTTPRequest) {
        self.wsi = wsi
        self.request = request
    }
}

/// Everything the libwebsockets service thread owns: connections, boards, HTTP exchanges.
///
/// Confined to the service thread: every method runs inside an lws callback or the service loop.
/// Other threads reach it only through `inbox` (see `Inbox`).
final class Service {
    let config: ServerConfig
    let log: Logger
    let store: any BoardStore
    let inbox: Inbox
    let persister: Persister
    let files: StaticFiles

    var context: OpaquePointer?
    var connections: [UInt64: Connection] = [:]
    var exchanges: [UInt64: HTTPExchange] = [:]
    var boards: [BoardID: BoardHost] = [:]
    /// HTTP exchanges waiting for a store write to become durable, by ticket.
    var waitingForTicket: [UInt64: (exchange: UInt64, response: HTTPResponse)] = [:]
    /// Boards whose deletion is not yet durable, by ticket: until it is, the store still has them,
    /// and loading one would let ops be acknowledged onto a board about to vanish.
    var deleting: [UInt64: BoardID] = [:]
    private var nextID: UInt64 = 0
    private var nextUser: UInt64 = 0

    var stopping = false
    var stopDeadline: Int64 = 0
    var finished = false

    #if DEBUG
        var serviceThread: pthread_t?
    #endif

    init(config: ServerConfig, store: any BoardStore, log: Logger) {
        self.config = config
        self.log = log
        self.store = store
        inbox = Inbox()
        persister = Persister(store: store, inbox: inbox, log: log)
        files = StaticFiles(root: config.webRoot)
    }

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

    static func monotonicMillis() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    static func wallMillis() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000
    }

    // MARK: Sending

    func send(_ frame: Frame, to connection: Connection) {
        if !connection.enqueue(frame, limit: config.maxPendingBytes) {
            log.warning(
                "connection \(connection.id) from \(connection.peer) is over its send limit of \(config.maxPendingBytes) bytes; closing with 1008"
            )
            connection.close(code: 1008, reason: "send queue over limit")
        }
    }

    func send(_ message: ServerMessage, to connection: Connection) {
        send(Frame(message), to: connection)
    }

    /// Carries out what a room asked for. Each broadcast is encoded and framed once.
    func perform(_ effects: [Room.Effect], on host: BoardHost) {
        for effect in effects {
            switch effect {
            case .send(let user, let message):
                if let connection = host.members[user] { send(message, to: connection) }
            case .broadcast(let message, let except):
                let frame = Frame(message)
                for (user, connection) in host.members where user != except { send(frame, to: connection) }
            case .persist(let op):
                persister.submit(.append(host.room.id, [op]))
            }
        }
    }

    // MARK: WebSocket lifecycle

    func opened(_ wsi: OpaquePointer) -> UInt64 {
        let id = makeID()
        let deflate = config.deflate && Self.header(wsi, WSI_TOKEN_EXTENSIONS)?.contains("permessage-deflate") == true
        let connection = Connection(id: id, wsi: wsi, deflate: deflate, peer: Self.peer(of: wsi))
        connections[id] = connection
        log.debug("connection \(id) opened from \(connection.peer)\(deflate ? " (permessage-deflate)" : "")")
        if stopping { connection.close(code: 1001, reason: "server shutting down") }
        return id
    }

    func closed(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: id) else { return }
        log.debug("connection \(id) closed")
        guard case .joined(let boardID, let user) = connection.phase, let host = boards[boardID],
            host.members[user.id] === connection
        else { return }
        host.members[user.id] = nil
        perform(host.room.leave(user.id), on: host)
        evictIfIdle(host)
    }

    /// A complete message from a client.
    func received(_ bytes: [UInt8], binary: Bool, on connection: Connection) {
        guard !binary else {
            send(.error(ProtocolError(.badMessage, "binary frames are not supported; send JSON text")), to: connection)
            return
        }
        let message: ClientMessage
        switch ClientMessage.parse(bytes) {
        case .success(let m): message = m
        case .failure(let error):
            log.debug("connection \(connection.id): \(error.code.rawValue): \(error.message)")
            send(.error(error), to: connection)
            return
        }
        if case .ping = message {
            send(.pong, to: connection)
            return
        }
        switch connection.phase {
        case .awaitingHello:
            guard case .hello(let board, let name, let since) = message else {
                send(.error(ProtocolError(.notJoined, "send hello first")), to: connection)
                return
            }
            hello(connection, board: board, name: name, since: since)
        case .joined(let boardID, let user):
            if case .hello = message {
                send(
                    .error(ProtocolError(.alreadyJoined, "this connection already joined board \(boardID)")),
                    to: connection)
                return
            }
            // The board may have been deleted (and even recreated) while this connection closes.
            guard let host = boards[boardID], host.members[user.id] === connection else { return }
            let now = Instant(milliseconds: Self.monotonicMillis()), wall = UnixTime(milliseconds: Self.wallMillis())
            perform(host.room.handle(message, from: user.id, now: now, wall: wall), on: host)
        }
    }

    private func hello(_ connection: Connection, board id: BoardID, name: String, since: Seq?) {
        let host: BoardHost
        do {
            guard let loaded = try loadBoard(id, create: config.createBoards) else {
                send(.error(ProtocolError(.unknownBoard, "there is no board \(id)")), to: connection)
                connection.close(code: 4404, reason: "unknown board", flush: true)
                return
            }
            host = loaded
        } catch {
            log.error("loading board \(id) failed: \(error.message)")
            send(.error(ProtocolError(.unavailable, "board \(id) cannot be loaded right now")), to: connection)
            connection.close(code: 1011, reason: "board unavailable", flush: true)
            return
        }
        nextUser += 1
        let user = User(id: UserID(number: nextUser), name: name, color: User.color(forUserNumber: nextUser))
        connection.phase = .joined(id, user)
        host.members[user.id] = connection
        log.info("\(user.id) \"\(name)\" joined board \(id) from \(connection.peer)")
        perform(host.room.join(user, since: since), on: host)
    }

    /// The loaded board, loading it from the store, or creating it from the template when allowed.
    func loadBoard(_ id: BoardID, create: Bool) throws(StoreError) -> BoardHost? {
        if let host = boards[id] { return host }
        if deleting.values.contains(id) { throw StoreError("board \(id) is being deleted; try again") }
        let room: Room
        let holdTimeout = Int64(config.holdTimeout * 1000)
        if let stored = try store.load(id, recentLimit: config.historyLimit) {
            room = Room(
                board: stored.board, seq: stored.seq, recent: stored.recent, historyLimit: config.historyLimit,
                holdTimeout: holdTimeout)
        } else if create {
            let board = Board.defaultTemplate(id: id)
            persister.submit(.create(board))
            room = Room(board: board, historyLimit: config.historyLimit, holdTimeout: holdTimeout)
            log.info("created board \(id) from the default template")
        } else {
            return nil
        }
        let host = BoardHost(room: room)
        boards[id] = host
        return host
    }

    /// Forgets a board nobody is on once nothing waits for the disk; the store has all of it.
    func evictIfIdle(_ host: BoardHost) {
        if host.room.isIdle, boards[host.room.id] === host { boards[host.room.id] = nil }
    }

    // MARK: Inbox

    func drainInbox() {
        for event in inbox.drain() {
            switch event {
            case .durable(let seqs, let tickets):
                for (id, seq) in seqs {
                    guard let host = boards[id] else { continue }
                    perform(host.room.markDurable(upTo: seq), on: host)
                    evictIfIdle(host)
                }
                for ticket in tickets {
                    deleting[ticket] = nil
                    guard let waiting = waitingForTicket.removeValue(forKey: ticket) else { continue }
                    respond(waiting.exchange, waiting.response)
                }
            case .tick:
                tick()
            case .shutdown:
                beginShutdown()
            }
        }
    }

    private func tick() {
        let now = Self.monotonicMillis()
        for host in boards.values where !host.room.holds.isEmpty {
            perform(host.room.expireHolds(now: Instant(milliseconds: now)), on: host)
        }
        if stopping && (connections.isEmpty || now >= stopDeadline) { finished = true }
    }

    private func beginShutdown() {
        guard !stopping else { return }
        stopping = true
        stopDeadline = Self.monotonicMillis() + Int64(config.shutdownGrace * 1000)
        log.info("shutting down: closing \(connections.count) connection(s) with 1001")
        for connection in connections.values { connection.close(code: 1001, reason: "server shutting down") }
        if connections.isEmpty { finished = true }
    }

    // MARK: Helpers on lws

    static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return text(of: buffer)
    }

    static func peer(of wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "?" }
        return text(of: buffer)
    }

    /// The text of a NUL-terminated buffer that lws filled.
    static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
