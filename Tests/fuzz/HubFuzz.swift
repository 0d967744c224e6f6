// libFuzzer target: sequences of hub events, decoded from the fuzz input, driven through
// `Hub.handle(_:now:wall:)` the way the transport drives it, with a `MemoryStore` playing the
// reader and writer threads.
//
// The input is a first byte that picks the hub's config, then events, each an opcode and its
// arguments (`HubDriver.step`; the table is in docs/fuzzing.md). Opcodes are letters, so a seed
// can be written by hand.
//
// Checked after every event: no crash; every action names a connection that is open and that the
// hub has not closed; a connection gets one welcome, then every committed op in seq order without
// a gap, each one only once the store has it; replies and drags never mention a seq the
// connection has not seen; every message encodes to valid JSON; every read id is new, every
// ticket is new; a store write appends exactly the next seqs of a board the store has, and never
// creates a board the store already has; an HTTP exchange is answered at most once; the hub's
// connection count is what the transport opened minus what it closed; an item has one holder, a
// user holds one item, an address at most `maxHoldsPerAddress` of a board; answers to reads already
// answered and second `closed` events do nothing; only the socket being accepted is refused, an
// address never has more sockets not upgraded than its cap, only pending sockets are checked for
// silence. At the end, with every read answered and every
// write durable: every exchange was answered; each connection's board is what
// `GET /api/boards/{id}` says, from memory and, once everyone has left, from the store; nothing
// stays in memory; no socket is left pending; after a shutdown, `stop` came exactly once.

import BoardCore
import BoardHub
import BoardReads
import BoardStore

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var input = FuzzInput(data, size)
    let driver = HubDriver(variant: input.below(4))
    var steps = 0
    while !input.isEmpty && steps < 4096 {
        driver.step(&input)
        steps += 1
    }
    driver.finish()
    return 0
}

/// What the driver knows of one open connection: what a well-behaved client would have seen.
final class Client {
    /// The hub closed it; it must hear nothing more.
    var closing = false
    /// It got its welcome.
    var welcomed = false
    /// The last seq it has seen.
    var seq: Seq = 0
    /// Its copy of the board, when it was sent one (not after a `since` resume).
    var view: Board?
}

/// The transport, the reader and the writer, played by hand, checking the hub at every step.
final class HubDriver {
    enum Event: CaseIterable {
        case open, close, message, rawMessage, runRead, deliverAnswer, replayAnswer, commitWrites, reportDurable
        case tick, longTick, closeAgain, request, shutdown, accept, socketEnd
    }
    /// The opcode letter of each event, in `Event.allCases` order.
    static let eventLetters = "ocmjrdawptTxhsku"

    static let boardIDs = ["demo", "b", "c-1"]
    static let itemIDs = ["t1", "t2", "t3", "t4", "t12", "t13"]
    static let zoneIDs = ["grid", "tray", "nope"]
    static let opIDs = ["o1", "o2", "o3", "o4", "o5", "o6"]
    static let names = ["Ada", " Bo ", #"\u202eEve"#, #"e\u0301"#]

    let hub: Hub
    let store = MemoryStore()
    var now = Instant(milliseconds: 1_000_000)
    var wall = UnixTime(milliseconds: 1_764_000_000_000)

    private var nextConnection: UInt64 = 0
    private var nextExchange: UInt64 = 0
    /// Connections opened and not yet reported closed, in the order they opened.
    private var open: [ConnectionID] = []
    private var clients: [ConnectionID: Client] = [:]
    private var closed: [ConnectionID] = []

    private var readIDs: Set<ReadID> = []
    private var readsToRun: [(ReadID, StoreRead)] = []
    /// Exchanges whose client hung up: nothing need answer them, and an answer goes nowhere.
    private var abandoned: Set<ExchangeID> = []
    private var answersToDeliver: [(ReadID, StoreAnswer)] = []
    private var delivered: [(ReadID, StoreAnswer)] = []
    private var tickets: Set<Ticket> = []
    private var writesToCommit: [(StoreWrite, Ticket?)] = []
    private var reportsToDeliver: [(seqs: [BoardID: Seq], tickets: [Ticket])] = []
    /// Every op the store has made durable, as `user seq op-id`.
    private var durableOps: Set<String> = []
    /// Each exchange and its answer once it came.
    private var exchanges: [ExchangeID: HTTPResponse?] = [:]
    /// Event streams the hub opened that have not ended.
    var streamsOpen: Set<ExchangeID> = []
    private var shutdownSent = false
    private var nextSocket: UInt64 = 0
    /// Accepted sockets not upgraded or closed yet, and their addresses.
    private var sockets: [SocketID: String] = [:]
    /// The socket being accepted (the only one the hub may refuse).
    private var accepting: SocketID?
    private let maxPending: Int
    private var stopped = false

    /// `config.room.maxHoldsPerAddress`.
    private let maxHoldsPerAddress: Int
    /// Each connection's address, the board its first `hello` named, and its user once welcomed.
    private var peerOf: [ConnectionID: String] = [:]
    private var asked: [ConnectionID: BoardID] = [:]
    private var userOf: [ConnectionID: UserID] = [:]
    private var connectionOf: [UserID: ConnectionID] = [:]
    /// The holds the broadcasts announced: per board, item → holder.
    private var holds: [BoardID: [ItemID: UserID]] = [:]

    init(variant: Int) {
        var config = Hub.Config()
        if variant & 1 == 1 {
            // Tight limits, so that short inputs reach every refusal.
            config.room.historyLimit = 3
            config.room.holdTimeout = .seconds(1)
            config.room.holdLifetime = .seconds(3)
            config.room.holdCooldown = .seconds(2)
            config.room.maxHoldsPerAddress = 1
            config.helloTimeout = .seconds(2)
            config.maxMessagesWhileJoining = 2
            config.opRate = Rate(perSecond: 1, burst: 3)
            config.messageRate = Rate(perSecond: 2, burst: 5)
            config.strikeRate = Rate(perSecond: 0.5, burst: 2)
            config.maxConnectionsPerAddress = 3
            config.maxPendingPerAddress = 2
            config.firstByteTimeout = .milliseconds(500)
            config.connectRate = Rate(perSecond: 1, burst: 4)
            config.boardCreationRate = Rate(perSecond: 0.1, burst: 2)
            config.maxUsersPerBoard = 2
            config.maxBoardsInMemory = 2
        }
        if variant & 2 == 2 { config.createBoards = false }
        maxPending = config.maxPendingPerAddress
        maxHoldsPerAddress = config.room.maxHoldsPerAddress
        hub = Hub(config: config)
        trace("config \(variant)")
    }

    // MARK: Events

    /// Decodes one event from `input` and handles it.
    func step(_ input: inout FuzzInput) {
        switch input.pick(Event.allCases, letters: Self.eventLetters) {
        case .open:
            nextConnection += 1
            let id = ConnectionID(nextConnection)
            open.append(id)
            clients[id] = Client()
            handle(.opened(id, peer: "10.0.0.\(input.below(3))"))
        case .close:
            guard let id = pickOpen(&input) else { return }
            open.removeAll { $0 == id }
            clients[id] = nil
            closed.append(id)
            handle(.closed(id))
        case .closeAgain:
            guard !closed.isEmpty else { return }
            let id = closed[input.below(min(closed.count, 256))]
            let actions = handle(.closed(id))
            require(actions.allSatisfy(isLog), "a second `closed` for \(id) did something: \(actions)")
        case .message:
            guard let id = pickOpen(&input) else { return }
            let text = message(&input)
            trace("  \(id) sends \(text)")
            handle(.received(id, ClientMessage.parse(Array(text.utf8))))
        case .rawMessage:
            guard let id = pickOpen(&input) else { return }
            handle(.received(id, ClientMessage.parse(input.chunk())))
        case .runRead:
            guard !readsToRun.isEmpty else { return }
            let (id, request) = readsToRun.removeFirst()
            let answer =
                input.below(8) == 0 ? request.failed(StoreError("fuzz: the store failed")) : request.run(on: store)
            answersToDeliver.append((id, answer))
        case .deliverAnswer:
            deliverAnswer()
        case .replayAnswer:
            guard !delivered.isEmpty else { return }
            let (id, answer) = delivered[input.below(delivered.count)]
            let actions = handle(.answered(id, answer))
            require(actions.allSatisfy(isLog), "a second answer to a read did something: \(actions)")
        case .commitWrites:
            guard !writesToCommit.isEmpty else { return }
            commitWrites(1 + input.below(writesToCommit.count))
        case .reportDurable:
            reportDurable()
        case .tick:
            advance(by: Int64(input.below(64)) * 50)
        case .longTick:
            advance(by: Int64(input.byte()) * 1_000)
        case .request:
            request(&input)
        case .shutdown:
            shutdownSent = true
            handle(.shutdown)
        case .accept:
            nextSocket += 1
            let id = SocketID(nextSocket)
            let peer = "10.0.0.\(input.below(3))"
            accepting = id
            let refused = handle(.accepted(id, peer: peer)).contains(.refuseSocket(id))
            accepting = nil
            guard !refused else { return }
            sockets[id] = peer
            require(
                sockets.values.filter { $0 == peer }.count <= maxPending,
                "\(peer) has more than \(maxPending) sockets not upgraded")
        case .socketEnd:
            guard !sockets.isEmpty else { return }
            let id = sockets.keys.sorted()[input.below(min(sockets.count, 256))]
            let peer = sockets.removeValue(forKey: id)!
            guard input.below(2) == 0 else { return _ = handle(.socketClosed(id)) }
            handle(.upgraded(id))
            nextConnection += 1
            let connection = ConnectionID(nextConnection)
            open.append(connection)
            clients[connection] = Client()
            handle(.opened(connection, peer: peer))
        }
    }

    private func pickOpen(_ input: inout FuzzInput) -> ConnectionID? {
        guard !open.isEmpty else { return nil }
        return open[input.below(min(open.count, 256))]
    }

    private func advance(by milliseconds: Int64) {
        now = now + milliseconds
        wall = UnixTime(milliseconds: wall.milliseconds + milliseconds)
        handle(.tick)
    }

    /// A client message as JSON text, built from the input so that it is usually valid.
    private func message(_ input: inout FuzzInput) -> String {
        func pick(_ choices: [String]) -> String { input.pick(choices) }
        func base() -> Int { input.below(8) }
        switch input.pick(Array(0..<11), letters: "hsmtgvdpbxe") {
        case 0:
            let since = input.below(8)
            let board = pick(Self.boardIDs)
            let name = pick(Self.names)
            return #"{"type":"hello","board":"\#(board)","name":"\#(name)""#
                + (since < 6 ? #","since":\#(since)}"# : "}")
        case 1:
            return
                #"{"type":"swap","op":"\#(pick(Self.opIDs))","base":\#(base()),"a":"\#(pick(Self.itemIDs))","b":"\#(pick(Self.itemIDs))"}"#
        case 2:
            let (op, b, item, zone) = (pick(Self.opIDs), base(), pick(Self.itemIDs), pick(Self.zoneIDs))
            let before = input.below(3) == 0 ? "null" : "\"\(pick(Self.itemIDs))\""
            return
                #"{"type":"move","op":"\#(op)","base":\#(b),"item":"\#(item)","zone":"\#(zone)","before":\#(before)}"#
        case 3:
            let (op, b, item) = (pick(Self.opIDs), base(), pick(Self.itemIDs))
            return #"{"type":"toggle","op":"\#(op)","base":\#(b),"item":"\#(item)","on":\#(input.below(2) == 0)}"#
        case 4:
            // Sometimes a group (issue 36): held all or none, ids maybe repeated or unknown.
            if input.below(3) == 0 {
                let group = (0...input.below(3)).map { _ in "\"\(pick(Self.itemIDs))\"" }.joined(separator: ",")
                return #"{"type":"dragStart","items":[\#(group)]}"#
            }
            return #"{"type":"dragStart","item":"\#(pick(Self.itemIDs))"}"#
        case 5:
            let (item, over, zone) = (pick(Self.itemIDs), pick(Self.itemIDs), pick(Self.zoneIDs))
            let mode = input.below(2) == 0 ? "swap" : "move"
            return #"{"type":"hover","item":"\#(item)","over":"\#(over)","zone":"\#(zone)","mode":"\#(mode)"}"#
        case 6:
            let item = pick(Self.itemIDs)
            switch input.below(3) {
            case 0:
                return #"{"type":"drop","item":"\#(item)"}"#
            case 1:
                let (op, b, with) = (pick(Self.opIDs), base(), pick(Self.itemIDs))
                return
                    #"{"type":"drop","item":"\#(item)","op":"\#(op)","base":\#(b),"action":{"type":"swap","with":"\#(with)"}}"#
            default:
                let (op, b, zone) = (pick(Self.opIDs), base(), pick(Self.zoneIDs))
                return
                    #"{"type":"drop","item":"\#(item)","op":"\#(op)","base":\#(b),"action":{"type":"move","zone":"\#(zone)","before":null}}"#
            }
        case 7:
            return #"{"type":"ping"}"#
        case 8:
            return pick([
                #"{"type":"teleport"}"#, "[]", "{", #"{"type":"swap","op":"o1"}"#, #"{"type":"hello"}"#,
                #"{"type":"auth","token":"v1.x.y"}"#,
            ])
        case 10:
            return editingOp(&input)
        default:
            return #"{"type":"hello","board":"\#(pick(Self.boardIDs))","name":"Ada"}"#
        }
    }

    /// An editing op (issue 19) as JSON text, on the ids the ops before it may have made.
    private func editingOp(_ input: inout FuzzInput) -> String {
        func pick(_ choices: [String]) -> String { input.pick(choices) }
        let items = ["t1", "t2", "t13", "c1", "c2", "c3"]
        let zones = ["grid", "tray", "z1", "z2", "nope"]
        // The kind first, so a seed's letter names it.
        let kind = input.pick(Array(0..<16), letters: "aerAERtoTsgGxkKc")
        let head = #""op":"\#(pick(Self.opIDs))","base":\#(input.below(8))"#
        switch kind {
        case 0:
            let before = input.below(3) == 0 ? "\"\(pick(items))\"" : "null"
            let label = pick(["New", "", "Ünïcødé ✓", "<b>x</b>"])
            return #"{"type":"add",\#(head),"zone":"\#(pick(zones))","before":\#(before),"item":{"label":"\#(label)"}}"#
        case 1:
            let field = pick([#""label":"Edited""#, ##""color":"#000""##, #""detail":null"#, #""detail":"d""#])
            return #"{"type":"edit",\#(head),"item":"\#(pick(items))",\#(field)}"#
        case 2:
            return #"{"type":"remove",\#(head),"item":"\#(pick(items))"}"#
        case 3:
            let before = input.below(2) == 0 ? "\"\(pick(zones))\"" : "null"
            return #"{"type":"addZone",\#(head),"before":\#(before),"zone":{"title":"Z","layout":"list"}}"#
        case 4:
            let field = pick([#""title":"T""#, #""layout":"grid","columns":2"#, #""layout":"row""#, #""columns":3"#])
            return #"{"type":"editZone",\#(head),"zone":"\#(pick(zones))",\#(field)}"#
        case 5:
            return #"{"type":"removeZone",\#(head),"zone":"\#(pick(zones))"}"#
        case 6:
            // Many cards at once (issue 36): moveMany, archive, unarchive of a few of them.
            let some = (0...input.below(3)).map { _ in "\"\(pick(items))\"" }.joined(separator: ",")
            let before = input.below(3) == 0 ? "\"\(pick(items))\"" : "null"
            switch input.below(3) {
            case 0:
                return #"{"type":"moveMany",\#(head),"items":[\#(some)],"zone":"\#(pick(zones))","before":\#(before)}"#
            case 1: return #"{"type":"archive",\#(head),"items":[\#(some)]}"#
            default:
                return #"{"type":"unarchive",\#(head),"items":[\#(some)],"zone":"\#(pick(zones))","before":\#(before)}"#
            }
        case 7:
            return #"{"type":"restore",\#(head),"to":\#(input.below(8))}"#
        case 8...15:
            return contentOp(kind, head: head, items: items, &input)
        default:
            return #"{"type":"retitle",\#(head),"title":"\#(pick(["Sprint", "", "x"]))"}"#
        }
    }

    /// An op about card content (issue 32): descriptions, due dates, tags, assignees, checklists,
    /// on the ids earlier ops may have made (`g<seq>` tags, `k<seq>` checks).
    private func contentOp(_ kind: Int, head: String, items: [String], _ input: inout FuzzInput) -> String {
        func pick(_ choices: [String]) -> String { input.pick(choices) }
        let item = pick(items)
        let tag = pick(["g1", "g2", "g3", "g4", "nope"])
        let check = pick(["k1", "k2", "k3", "k4", "nope"])
        switch kind {
        case 8:
            let field = pick([
                ##""description":"# T\n\n<img src=x onerror=alert(1)> [x](javascript:alert(1))""##,
                #""description":null"#,
                #""due":"2026-02-28""#, #""due":"2026-02-30""#, #""due":null"#,
            ])
            return #"{"type":"edit",\#(head),"item":"\#(item)",\#(field)}"#
        case 9:
            return #"{"type":"tag",\#(head),"item":"\#(item)","add":["\#(tag)"],"remove":[]}"#
        case 10:
            return
                #"{"type":"assign",\#(head),"item":"\#(item)","add":[{"member":"ann","name":"Ann"}],"remove":["bo"]}"#
        case 11:
            return ##"{"type":"addTag",\##(head),"tag":{"name":"Bug","color":"#d32f2f"}}"##
        case 12:
            return #"{"type":"editTag",\#(head),"tag":"\#(tag)","name":"Defect"}"#
        case 13:
            return #"{"type":"removeTag",\#(head),"tag":"\#(tag)"}"#
        case 14:
            let before = input.below(2) == 0 ? "\"\(check)\"" : "null"
            return #"{"type":"addCheck",\#(head),"item":"\#(item)","before":\#(before),"text":"Step"}"#
        default:
            let field = pick([#""done":true"#, #""text":"Again""#])
            // Comments (issue 34) on the ids earlier ops may have made (`n<seq>`).
            let comment = pick(["n1", "n2", "n3", "n4", "nope"])
            switch input.below(5) {
            case 0: return #"{"type":"editCheck",\#(head),"item":"\#(item)","check":"\#(check)",\#(field)}"#
            case 1: return #"{"type":"removeCheck",\#(head),"item":"\#(item)","check":"\#(check)"}"#
            case 2:
                return
                    #"{"type":"comment",\#(head),"item":"\#(item)","text":"<b>Hi</b> @Ann","mentions":[{"member":"ann","name":"Ann"}]}"#
            case 3: return #"{"type":"editComment",\#(head),"item":"\#(item)","comment":"\#(comment)","text":"Again"}"#
            default: return #"{"type":"removeComment",\#(head),"item":"\#(item)","comment":"\#(comment)"}"#
            }
        }
    }

    /// An HTTP request for the API, built from the input.
    private func request(_ input: inout FuzzInput) {
        let board = input.pick(Self.boardIDs)
        let method = input.pick([HTTPRequest.Method.get, .post, .delete, .head, .put, .other], letters: "gpdhuo")
        let path = input.pick(
            [
                "/api/boards", "/api/boards/\(board)", "/api/boards/\(board)/ops", "/healthz", "/api", "/api/boards/",
                "/api/boards/\(board)/nope", "/api/boards/no%20id", "/api/other", "/api/boards/\(board)/history",
                "/api/boards/\(board)/events",
            ], letters: "lbohasnqzye")
        let query = input.pick([
            [:], ["after": board], ["limit": "1"], ["limit": "0"], ["since": "2"], ["since": "-1"], ["limit": "x"],
            ["after": "no id"], ["at": "1"], ["before": "3"], ["at": "99"], ["since": "0"],
        ])
        var body: [UInt8] = []
        if method == .post {
            switch input.below(4) {
            case 3:
                // A REST op (POST /api/boards/{id}/ops), as a WebSocket client would send it.
                body = Array(
                    #"{"type":"toggle","op":"h\#(input.below(8))","base":\#(input.below(4)),"item":"t1","on":true}"#
                        .utf8)
            case 0:
                body = Array(
                    #"{"id":"\#(board)","title":"T","columns":2,"zones":[{"id":"grid","items":[{"label":"a","color":"red"},{"label":"b","color":"blue"}]},{"id":"tray","items":[{"label":"c","color":"green"}]}]}"#
                        .utf8)
            case 1: body = Array(#"{"id":"\#(board)","title":"T","columns":1,"zones":[]}"#.utf8)
            default: body = input.chunk()
            }
        }
        let id = send(
            HTTPRequest(method: method, path: path, query: query, body: body, contentType: "application/json"))
        // An event stream's client may leave at once, before or after it opened: the exchange is gone.
        if path.hasSuffix("/events") && input.below(2) == 0 {
            streamsOpen.remove(id)
            if exchanges[id] == .some(nil) { exchanges[id] = nil }
            handle(.streamEnded(id))
        } else if !path.hasSuffix("/events") && exchanges[id] == .some(nil) && input.below(4) == 0 {
            // Its client hangs up before the answer: reads made for it may be cancelled, and an
            // answer that comes anyway is dropped by the transport.
            exchanges[id] = nil
            abandoned.insert(id)
            handle(.abandoned(id))
        }
    }

    /// Starts an exchange; returns its id.
    @discardableResult
    private func send(_ request: HTTPRequest) -> ExchangeID {
        nextExchange += 1
        let id = ExchangeID(nextExchange)
        exchanges[id] = .some(nil)
        trace("  \(id): \(request.method.rawValue) \(request.path) \(request.query)")
        handle(.request(id, request))
        return id
    }

    private func deliverAnswer() {
        guard !answersToDeliver.isEmpty else { return }
        let (id, answer) = answersToDeliver.removeFirst()
        delivered.append((id, answer))
        if delivered.count > 16 { delivered.removeFirst() }
        handle(.answered(id, answer))
    }

    /// The writer thread: one transaction for the oldest `count` writes, checked against the store.
    private func commitWrites(_ count: Int) {
        var seqs: [BoardID: Seq] = [:]
        var done: [Ticket] = []
        for (write, ticket) in writesToCommit.prefix(count) {
            if let ticket { done.append(ticket) }
            let stored = try? store.load(boardOf(write), recentLimit: 0)
            switch write {
            case .create(let board):
                require(stored == nil, "the hub creates board \(board.id), which the store already has")
            case .append(let board, let ops):
                require(stored != nil, "the hub appends to board \(board), which the store does not have")
                for (i, op) in ops.enumerated() {
                    require(
                        op.seq == (stored?.seq ?? 0) + i + 1,
                        "the hub appends seq \(op.seq) to board \(board) at seq \(stored?.seq ?? 0)")
                    durableOps.insert(key(op))
                }
                if let last = ops.last { seqs[board] = max(seqs[board] ?? 0, last.seq) }
            case .delete:
                break
            case .restore(let archive):
                require(stored == nil, "the hub imports board \(archive.id), which the store already has")
            }
            do { try store.write([write]) } catch { violated("the memory store refused \(write): \(error)") }
        }
        writesToCommit.removeFirst(count)
        reportsToDeliver.append((seqs, done))
    }

    private func reportDurable() {
        guard !reportsToDeliver.isEmpty else { return }
        let report = reportsToDeliver.removeFirst()
        handle(.durable(seqs: report.seqs, tickets: report.tickets))
    }

    private func boardOf(_ write: StoreWrite) -> BoardID {
        switch write {
        case .create(let board): board.id
        case .append(let id, _), .delete(let id): id
        case .restore(let archive): archive.id
        }
    }

    private func key(_ op: CommittedOp) -> String { "\(op.by.rawValue) \(op.seq) \(op.opID.rawValue)" }

    // MARK: The end of an input

    /// Lets the store catch up, checks what every client has, lets everyone leave, checks again.
    func finish() {
        settle()
        for (id, response) in exchanges { require(response != nil, "\(id) was never answered") }
        var views: [(Board, Seq)] = []
        for id in open {
            guard let client = clients[id], !client.closing, client.welcomed, let view = client.view else { continue }
            views.append((view, client.seq))
        }
        for (view, seq) in views { expectSnapshot(view, seq: seq, "in memory") }
        while let id = open.popLast() {
            clients[id] = nil
            handle(.closed(id))
        }
        for id in sockets.keys.sorted() { handle(.socketClosed(id)) }
        sockets = [:]
        for id in streamsOpen.sorted(by: { $0.rawValue < $1.rawValue }) { handle(.streamEnded(id)) }
        streamsOpen = []
        require(hub.pendingSocketCount == 0, "\(hub.pendingSocketCount) sockets left pending")
        settle()
        require(hub.connectionCount == 0, "\(hub.connectionCount) connections left")
        require(hub.boardCount == 0, "\(hub.boardCount) boards left in memory with nobody on them")
        for (view, seq) in views { expectSnapshot(view, seq: seq, "from the store") }
        if shutdownSent { require(stopped, "shut down with nobody connected, and no stop") }
    }

    /// Runs every read and makes every write durable until nothing is left to do.
    private func settle() {
        var rounds = 0
        while !(readsToRun.isEmpty && answersToDeliver.isEmpty && writesToCommit.isEmpty && reportsToDeliver.isEmpty) {
            rounds += 1
            require(rounds < 10_000, "the hub never stops asking the store")
            if !readsToRun.isEmpty {
                let (id, request) = readsToRun.removeFirst()
                answersToDeliver.append((id, request.run(on: store)))
            } else if !answersToDeliver.isEmpty {
                deliverAnswer()
            } else if !writesToCommit.isEmpty {
                commitWrites(writesToCommit.count)
            } else {
                reportDurable()
            }
        }
    }

    /// `GET /api/boards/{id}` must say the board is `view` at `seq`.
    private func expectSnapshot(_ view: Board, seq: Seq, _ whence: String) {
        let id = send(HTTPRequest(method: .get, path: "/api/boards/\(view.id)"))
        settle()
        guard let response = exchanges[id] ?? nil else { violated("GET /api/boards/\(view.id) was not answered") }
        // A board made from the template by `hello` is stored with its first op, not before.
        if response.status == 404 && seq == 0 && view == Board.defaultTemplate(id: view.id)
            && whence == "from the store"
        {
            return
        }
        require(response.status == 200, "GET /api/boards/\(view.id) \(whence): \(response.status)")
        guard let json = try? JSON.parse(response.body), let board = json["board"].flatMap({ try? Board(json: $0) })
        else {
            violated("GET /api/boards/\(view.id) \(whence) is not a snapshot")
        }
        require(
            json["seq"]?.intValue == seq,
            "\(whence), board \(view.id) is at \(json["seq"] ?? .null), a client at \(seq)")
        require(board == view, "\(whence), board \(view.id) is not what its clients were told")
    }

    // MARK: Checking what the hub does

    @discardableResult
    private func handle(_ event: Hub.Event) -> [Hub.Action] {
        trace("\(event)")
        switch event {
        case .opened(let id, let peer, _, _): peerOf[id] = peer
        case .received(let id, .success(.hello(let board, _, _, _, _))) where asked[id] == nil: asked[id] = board
        case .closed(let id): releaseHolds(of: id)
        default: break
        }
        let actions = hub.handle(event, now: now, wall: wall)
        for action in actions {
            trace("  -> \(action)")
            check(action)
        }
        require(
            hub.connectionCount == open.count,
            "the hub counts \(hub.connectionCount) connections, the transport has \(open.count) open")
        return actions
    }

    private func check(_ action: Hub.Action) {
        switch action {
        case .send(let id, let message):
            checkEncoding(message)
            deliver(message, to: id)
        case .broadcast(let message, let recipients, let except):
            require(Set(recipients).count == recipients.count, "a broadcast names a connection twice: \(recipients)")
            checkEncoding(message)
            trackHolds(message)
            for id in recipients where id != except { deliver(message, to: id) }
        case .close(let id, let code, let reason, _):
            guard let client = clients[id] else { violated("close of \(id), which is not open") }
            require(!client.closing, "\(id) closed twice")
            require(
                (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code),
                "close code \(code) may not be sent")
            require(reason.utf8.count <= 123, "a close reason longer than a close frame holds")
            client.closing = true
            releaseHolds(of: id)
        case .persist(let write, let ticket):
            if let ticket { require(tickets.insert(ticket).inserted, "ticket \(ticket) used twice") }
            writesToCommit.append((write, ticket))
        case .read(let id, let request):
            require(readIDs.insert(id).inserted, "read id \(id) used twice")
            readsToRun.append((id, request))
        case .respond(let id, let response):
            if abandoned.contains(id) { return }
            guard let answer = exchanges[id] else { violated("an answer to \(id), which was never asked") }
            require(answer == nil, "\(id) answered twice")
            exchanges[id] = .some(response)
            require((200...599).contains(response.status), "HTTP status \(response.status)")
            if response.contentType == "application/json" {
                require((try? JSON.parse(response.body)) != nil, "a JSON answer that does not parse")
            }
        case .log(_, let line):
            require(!line.isEmpty, "an empty log line")
        case .stop:
            require(shutdownSent, "stop without a shutdown")
            require(!stopped, "stop twice")
            stopped = true
        case .release:
            // On one node too since issue 29: a board that leaves memory tells the writer to
            // forget its copy (WriterMemoryTests); the store has everything of it already.
            break
        case .forward, .forwardHTTP:
            violated("\(action) from a hub that is not clustered")
        case .refuseSocket(let id):
            require(id == accepting, "\(id) refused, but it is not the socket being accepted")
        case .closeIfSilent(let id):
            require(sockets[id] != nil, "\(id) checked for silence, but it is not open and pending")
        case .openStream(let id):
            guard let answer = exchanges[id] else { violated("a stream opened on \(id), which was never asked") }
            require(answer == nil, "\(id) opened as a stream after it was answered")
            exchanges[id] = .some(HTTPResponse(status: 200, contentType: "text/event-stream", body: []))
            streamsOpen.insert(id)
        case .stream(_, let ids):
            for id in ids { require(streamsOpen.contains(id), "a stream event to \(id), which is not an open stream") }
        case .endStream(let ids):
            for id in ids { require(exchanges[id] != nil, "the end of \(id), which was never asked") }
            streamsOpen.subtract(ids)
        case .cancelRead(let id):
            require(readIDs.contains(id), "a cancel of read \(id), which was never asked")
            // A read not taken yet is dropped, as the reader thread does; one already run may
            // still answer (it goes nowhere).
            readsToRun.removeAll { $0.0 == id }
        }
    }

    /// Holds, as the broadcasts tell them: an item has one holder, a user holds one item, and
    /// the users of one address hold at most `maxHoldsPerAddress` items of a board.
    private func trackHolds(_ message: ServerMessage) {
        switch message {
        case .dragStart(let lead, let by, _, _, let group):
            guard let id = connectionOf[by], let board = asked[id] else {
                violated("a dragStart by \(by), whom no connection was welcomed as")
            }
            var held = holds[board, default: [:]]
            require(!held.values.contains(by), "\(by) holds two drags on board \(board)")
            // A group (issue 36) is held whole: none of its items was anyone's.
            for item in [lead] + group {
                require(held[item] == nil, "\(by) took \(item) on board \(board), which \(held[item]!) holds")
                held[item] = by
            }
            let peer = peerOf[id]
            // A group counts as one hold of its address.
            let fromPeer = Set(held.values).filter { connectionOf[$0].flatMap { peerOf[$0] } == peer }.count
            require(
                maxHoldsPerAddress == 0 || fromPeer <= maxHoldsPerAddress,
                "address \(peer ?? "?") holds \(fromPeer) items of board \(board)")
            holds[board] = held
        case .drop(let item, let by, _, _):
            guard let id = connectionOf[by], let board = asked[id], holds[board]?[item] == by else { return }
            // The lead's drop ends its group.
            holds[board] = holds[board]?.filter { $0.value != by }
        default:
            break
        }
    }

    /// The connection left its board (closed, or being closed): its hold is gone.
    private func releaseHolds(of id: ConnectionID) {
        guard let user = userOf[id], let board = asked[id] else { return }
        holds[board] = holds[board]?.filter { $0.value != user }
    }

    private func checkEncoding(_ message: ServerMessage) {
        require((try? JSON.parse(message.encoded())) != nil, "\(message) does not encode to JSON")
    }

    /// What a connection gets must make sense to a client that has seen everything before it.
    private func deliver(_ message: ServerMessage, to id: ConnectionID) {
        guard let client = clients[id] else { violated("\(message) for \(id), which is not open") }
        require(!client.closing, "\(message) for \(id) after the hub closed it")
        switch message {
        case .welcome(let welcome):
            require(!client.welcomed, "a second welcome for \(id)")
            require(welcome.users.contains { $0.id == welcome.you }, "a welcome whose users leave out the joiner")
            client.welcomed = true
            client.seq = welcome.seq
            userOf[id] = welcome.you
            connectionOf[welcome.you] = id
            switch welcome.state {
            case .board(let board):
                client.view = board
            case .ops(let ops):
                for (a, b) in zip(ops, ops.dropFirst()) { require(b.seq == a.seq + 1, "a resume with a gap") }
                require(ops.last.map { $0.seq == welcome.seq } ?? true, "a resume that ends before the welcome's seq")
                client.view = nil
            }
        case .committed(let op):
            require(client.welcomed, "op \(op.seq) for \(id) before its welcome")
            require(op.seq == client.seq + 1, "op \(op.seq) for \(id), which is at \(client.seq)")
            require(durableOps.contains(key(op)), "op \(op.seq) by \(op.by) went out before the store had it")
            client.seq = op.seq
            client.view?.apply(op.op)
        case .reject(_, let seq), .ack(_, let seq):
            require(client.welcomed, "\(message) for \(id) before its welcome")
            require(seq <= client.seq, "\(message) for \(id) names seq \(seq); it has seen \(client.seq)")
        case .dragStart(_, _, let at, _, _), .hover(_, _, _, _, _, let at, _), .drop(_, _, let at, _):
            require(client.welcomed, "\(message) for \(id) before its welcome")
            require(at <= client.seq, "\(message) for \(id) names seq \(at); it has seen \(client.seq)")
        case .join, .leave, .presence:
            require(client.welcomed, "\(message) for \(id) before its welcome")
        case .error, .pong, .auth, .notice:
            break
        }
    }
}

private func isLog(_ action: Hub.Action) -> Bool {
    if case .log = action { return true }
    return false
}
