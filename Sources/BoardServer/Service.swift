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
    let files: StaticFiles
    private let hub: Hub

    var context: OpaquePointer?
    var connections: [ConnectionID: Connection] = [:]
    var exchanges: [ExchangeID: HTTPExchange] = [:]
    /// Exchanges whose answer lws has only partly sent (see `watchFlushing`).
    var flushing: Set<ExchangeID> = []
    private var nextID: UInt64 = 0
    /// Set by the hub's `stop`: the service loop ends.
    private(set) var finished = false

    #if DEBUG
        var serviceThread: pthread_t?
    #endif

    init(config: ServerConfig, store: any BoardStore, log: Logger) {
        self.config = config
        self.log = log
        inbox = Inbox()
        persister = Persister(store: store, inbox: inbox, log: log)
        reader = Reader(store: store, inbox: inbox)
        files = StaticFiles(root: config.webRoot)
        var hubConfig = Hub.Config()
        hubConfig.createBoards = config.createBoards
        hubConfig.historyLimit = config.historyLimit
        hubConfig.holdTimeout = Int64(config.holdTimeout * 1000)
        hubConfig.shutdownGrace = Int64(config.shutdownGrace * 1000)
        hub = Hub(config: hubConfig)
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

    // MARK: Events in

    /// Hands one event to the hub with the current time, and carries out its actions.
    func handle(_ event: Hub.Event) {
        apply(hub.handle(event, now: Clock.now(), wall: Clock.wall()))
        if case .tick = event { sweepExchanges() }
    }

    func drainInbox() {
        for event in inbox.drain() { handle(event) }
    }

    func opened(_ wsi: OpaquePointer) -> UInt64 {
        let id = ConnectionID(makeID())
        let deflate = config.deflate && LWS.header(wsi, WSI_TOKEN_EXTENSIONS)?.contains("permessage-deflate") == true
        connections[id] = Connection(id: id.rawValue, wsi: wsi, deflate: deflate)
        let peer = LWS.peer(of: wsi)
        if deflate { log.debug("\(id) from \(peer) uses permessage-deflate") }
        handle(.opened(id, peer: peer))
        return id.rawValue
    }

    func closed(_ id: UInt64) {
        guard connections.removeValue(forKey: ConnectionID(id)) != nil else { return }
        handle(.closed(ConnectionID(id)))
    }

    /// A complete message from a client.
    func received(_ bytes: [UInt8], binary: Bool, on connection: Connection) {
        let parsed: Result<ClientMessage, ProtocolError> =
            binary
            ? .failure(ProtocolError(.badMessage, "binary frames are not supported; send JSON text"))
            : ClientMessage.parse(bytes)
        handle(.received(ConnectionID(connection.id), parsed))
    }

    // MARK: Actions out

    private func apply(_ actions: [Hub.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message):
                if let connection = connections[id] { send(Frame(message), to: connection) }
            case .broadcast(let message, let members, let except):
                let frame = Frame(message)
                for id in members where id != except {
                    if let connection = connections[id] { send(frame, to: connection) }
                }
            case .close(let id, let code, let reason, let flush):
                connections[id]?.close(code: code, reason: reason, flush: flush)
            case .persist(let write, let ticket):
                persister.submit(write, ticket: ticket)
            case .read(let id, let request):
                reader.submit(request, id: id)
            case .respond(let exchange, let response):
                respond(exchange, response)
            case .log(let level, let line):
                log.log(level, line)
            case .stop:
                finished = true
            }
        }
    }

    private func send(_ frame: Frame, to connection: Connection) {
        if !connection.enqueue(frame, limit: config.maxPendingBytes) {
            log.warning(
                "connection \(connection.id) is over its send limit of \(config.maxPendingBytes) bytes; closing with 1008"
            )
            connection.close(code: 1008, reason: "send queue over limit")
        }
    }
}

/// The two clocks the hub is given.
enum Clock {
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
