import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// A hub driven by hand: events in, actions out, time moved by the test. Plays the transport.
final class HubHarness {
    let hub: Hub
    var now = Instant(milliseconds: 1_000)
    var wall = UnixTime(milliseconds: 1_764_000_000_000)
    /// Every action so far, in order.
    private(set) var log: [Hub.Action] = []

    init(_ configure: (inout Hub.Config) -> Void = { _ in }) {
        var config = Hub.Config()
        configure(&config)
        hub = Hub(config: config)
    }

    /// Handles `event`; returns its actions without log lines.
    @discardableResult
    func on(_ event: Hub.Event) -> [Hub.Action] {
        let actions = hub.handle(event, now: now, wall: wall)
        log += actions
        return actions.filter { if case .log = $0 { false } else { true } }
    }

    func open(_ n: UInt64, peer: String = "127.0.0.1") -> ConnectionID {
        let id = ConnectionID(n)
        on(.opened(id, peer: peer))
        return id
    }

    /// Sends a raw JSON text message, parsed as the transport would.
    @discardableResult
    func send(_ id: ConnectionID, _ json: String) -> [Hub.Action] {
        on(.received(id, ClientMessage.parse(Array(json.utf8))))
    }

    @discardableResult
    func hello(_ id: ConnectionID, board: String = "demo", name: String = "Ada", since: Int? = nil) -> [Hub.Action] {
        var text = #"{"type":"hello","board":"\#(board)","name":"\#(name)""#
        if let since { text += #","since":\#(since)"# }
        return send(id, text + "}")
    }

    /// The one read among `actions`.
    func read(in actions: [Hub.Action], sourceLocation: SourceLocation = #_sourceLocation) -> (ReadID, StoreRead)? {
        let reads = actions.compactMap { action -> (ReadID, StoreRead)? in
            if case .read(let id, let request) = action { (id, request) } else { nil }
        }
        #expect(reads.count == 1, "expected one read in \(actions)", sourceLocation: sourceLocation)
        return reads.first
    }

    /// `actions` with each encoding read (`encodeSnapshot`, `encodeStreamReset`) carried out as
    /// the encoder thread would, and replaced by what the hub did with its answer.
    func encoding(_ actions: [Hub.Action]) -> [Hub.Action] {
        actions.flatMap { action -> [Hub.Action] in
            guard case .read(let id, let job) = action else { return [action] }
            switch job {
            case .encodeSnapshot, .encodeStreamReset: return on(.answered(id, job.run(on: MemoryStore())))
            default: return [action]
            }
        }
    }

    /// Joins `id` to a board the store does not have (so it is created from the template).
    @discardableResult
    func joinNew(_ id: ConnectionID, board: String = "demo", name: String = "Ada") -> [Hub.Action] {
        let actions = hello(id, board: board, name: name)
        guard let (read, _) = read(in: actions) else { return actions }
        return on(.answered(read, .room(nil)))
    }

    /// Reports every persisted write so far (not yet reported) as durable.
    @discardableResult
    func makeDurable() -> [Hub.Action] {
        var seqs: [BoardID: Seq] = [:]
        var tickets: [Ticket] = []
        for action in log[durableUpTo...] {
            guard case .persist(let write, let ticket) = action else { continue }
            if case .append(let board, let ops) = write, let last = ops.last { seqs[board] = last.seq }
            if let ticket { tickets.append(ticket) }
        }
        durableUpTo = log.count
        return on(.durable(seqs: seqs, tickets: tickets))
    }
    private var durableUpTo = 0
}

func board(_ text: String) -> BoardID { BoardID(text)! }

/// The message of every `send` to `id` among `actions`, and every broadcast that reaches it.
func messages(to id: ConnectionID, in actions: [Hub.Action]) -> [ServerMessage] {
    actions.compactMap { action in
        switch action {
        case .send(id, let message): message
        case .broadcast(let message, let members, let except) where members.contains(id) && except != id: message
        default: nil
        }
    }
}

/// The `type` of each message, for compact expectations.
func types(_ messages: [ServerMessage]) -> [String] {
    messages.map { message in
        switch message {
        case .welcome: "welcome"
        case .join: "join"
        case .leave: "leave"
        case .committed(let op): op.op.kind
        case .reject(let r, _): "reject:\(r.reason.rawValue)"
        case .ack: "ack"
        case .dragStart: "dragStart"
        case .hover: "hover"
        case .drop(_, _, _, let reason): reason.map { "drop:\($0.rawValue)" } ?? "drop"
        case .error(let e): "error:\(e.code.rawValue)"
        case .pong: "pong"
        case .presence: "presence"
        case .auth: "auth"
        case .notice: "notice"
        }
    }
}

/// The close actions among `actions`.
func closes(in actions: [Hub.Action]) -> [(ConnectionID, UInt16, Bool)] {
    actions.compactMap { action in
        if case .close(let id, let code, _, let flush) = action { (id, code, flush) } else { nil }
    }
}

/// The HTTP answers among `actions`.
func responses(in actions: [Hub.Action]) -> [(ExchangeID, HTTPResponse)] {
    actions.compactMap { action in
        if case .respond(let id, let response) = action { (id, response) } else { nil }
    }
}

extension HTTPResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
