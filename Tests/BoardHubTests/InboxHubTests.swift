import BoardAuth
import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Issue 34's inbox through the hub: a durable mention or assignment reaches the member's
/// connected clients on any board as a `notice`, never the author; `GET /api/inbox` and
/// `POST /api/inbox/read` answer for the token's member (or `?member=` on an open server).
@Suite struct InboxHubTests {
    /// Plays the transport and the store: persists every write in `store`, reports it durable,
    /// and answers every read with `store`, until nothing is left; returns every action.
    @discardableResult
    static func settle(_ h: HubHarness, _ store: MemoryStore, _ actions: [Hub.Action]) throws -> [Hub.Action] {
        var all = actions
        var pending = actions
        for _ in 0..<20 where !pending.isEmpty {
            var next: [Hub.Action] = []
            var wrote = false
            for action in pending {
                switch action {
                case .persist(let write, _):
                    try store.write([write])
                    wrote = true
                case .read(let id, let request):
                    next += h.on(.answered(id, request.run(on: store)))
                default:
                    break
                }
            }
            if wrote { next += h.makeDurable() }
            all += next
            pending = next
        }
        return all
    }

    static func notices(to id: ConnectionID, in actions: [Hub.Action]) -> [Notice] {
        messages(to: id, in: actions).compactMap { if case .notice(let n) = $0 { n } else { nil } }
    }

    static func request(
        _ h: HubHarness, _ store: MemoryStore, _ method: HTTPRequest.Method, _ path: String,
        query: [String: String] = [:], body: String = "", token: String? = nil
    ) throws -> HTTPResponse? {
        var request = HTTPRequest(method: method, path: path, query: query)
        request.body = Array(body.utf8)
        if !body.isEmpty { request.contentType = "application/json" }
        if let token { request.authorization = "Bearer " + token }
        let actions = try settle(h, store, h.on(.request(ExchangeID(9), request)))
        return responses(in: actions).first?.1
    }

    @Test func aMentionReachesTheMembersClientOnAnotherBoardAndTheInboxCountsIt() throws {
        let h = HubHarness { $0.inbox = true }
        let store = MemoryStore()
        let ada = h.open(1)
        let bo = h.open(2)
        let bo2 = h.open(3)
        try Self.settle(h, store, h.on(.tick))
        try Self.settle(h, store, h.send(ada, #"{"type":"hello","board":"demo","name":"Ada","member":"ada"}"#))
        try Self.settle(h, store, h.send(bo, #"{"type":"hello","board":"other","name":"Bo","member":"bo"}"#))
        try Self.settle(h, store, h.send(bo2, #"{"type":"hello","board":"demo","name":"Bo","member":"bo"}"#))
        let commented = try Self.settle(
            h, store,
            h.send(
                ada,
                #"{"type":"comment","op":"a1","base":0,"item":"t1","text":"@Bo @Ada look","mentions":[{"member":"bo","name":"Bo"},{"member":"ada","name":"Ada"}]}"#
            ))
        // Both of Bo's clients, on either board, hear of it once; Ada, its author, does not.
        for client in [bo, bo2] {
            let told = Self.notices(to: client, in: commented)
            #expect(told.count == 1)
            #expect(told.first?.kind == .mention && told.first?.board == board("demo"))
            #expect(told.first?.by == Assignee(member: MemberID("ada")!, name: "Ada"))
            #expect(told.first?.item == ItemID("t1") && told.first?.seq == 1 && told.first?.id == 1)
        }
        #expect(Self.notices(to: ada, in: commented).isEmpty)
        // The notice is on the wire as the protocol says.
        let wire = try JSON.parse(ServerMessage.notice(Self.notices(to: bo, in: commented)[0]).encoded())
        #expect(wire["type"]?.stringValue == "notice" && wire["kind"]?.stringValue == "mention")
        #expect(wire["by"]?["member"]?.stringValue == "ada" && wire["read"] == .bool(false))
        // An assignment from Bo to Ada reaches Ada's client.
        let assigned = try Self.settle(
            h, store,
            h.send(bo2, #"{"type":"assign","op":"b1","base":1,"item":"t2","add":[{"member":"ada","name":"Ada"}]}"#))
        #expect(Self.notices(to: ada, in: assigned).map(\.kind) == [.assign])
        #expect(Self.notices(to: bo, in: assigned).isEmpty)

        // GET /api/inbox?member=bo, newest first, and the read marks.
        let page = try JSON.parse(
            #require(try Self.request(h, store, .get, "/api/inbox", query: ["member": "bo"])).body)
        #expect(page["unread"]?.intValue == 1)
        #expect(page["notices"]?.arrayValue?.compactMap { $0["kind"]?.stringValue } == ["mention"])
        #expect(page["notices"]?.arrayValue?.first?["label"]?.stringValue != nil)
        let read = try #require(
            try Self.request(h, store, .post, "/api/inbox/read", query: ["member": "bo"], body: #"{"upTo":1}"#))
        #expect(read.status == 200)
        #expect(try JSON.parse(read.body)["unread"]?.intValue == 0)
        let after = try JSON.parse(
            #require(try Self.request(h, store, .get, "/api/inbox", query: ["member": "bo", "limit": "5"])).body)
        #expect(after["unread"]?.intValue == 0 && after["notices"]?.arrayValue?.first?["read"] == .bool(true))
        let adaInbox = try JSON.parse(
            #require(try Self.request(h, store, .get, "/api/inbox", query: ["member": "ada"])).body)
        #expect(adaInbox["unread"]?.intValue == 1)
    }

    @Test func aNoticeMadeBeforeTheFirstReadIsToldToo() throws {
        // A restarted server: an old notice in the store, and a new one its first op makes
        // before the hub has read where to begin.
        let store = MemoryStore()
        try store.write([.create(.defaultTemplate(id: board("demo")))])
        var s = Sequencer(board: .defaultTemplate(id: board("demo")))
        let mention = OpRequest(
            opID: OpID("old")!, base: 0,
            op: .assign(item: ItemID("t1")!, add: [Assignee(member: MemberID("bo")!, name: "Bo")], remove: []))
        guard
            case .committed(let old) = s.submit(
                mention, by: UserID("u9"), name: "Ann", member: MemberID("ann"),
                time: UnixTime(milliseconds: 5), holder: { _ in nil })
        else { Issue.record("not committed"); return }
        try store.write([.append(board("demo"), [old])])
        let h = HubHarness { $0.inbox = true }
        let ada = h.open(1)
        let bo = h.open(2)
        let joined = h.send(ada, #"{"type":"hello","board":"demo","name":"Ada","member":"ada"}"#)
        try Self.settle(h, store, joined)
        try Self.settle(h, store, h.send(bo, #"{"type":"hello","board":"demo","name":"Bo","member":"bo"}"#))
        let made = try Self.settle(
            h, store,
            h.send(ada, #"{"type":"assign","op":"a1","base":1,"item":"t2","add":[{"member":"bo","name":"Bo"}]}"#))
        #expect(Self.notices(to: bo, in: made).map(\.seq) == [2])
    }

    @Test func badInboxRequestsGetClearErrors() throws {
        let h = HubHarness { $0.inbox = true }
        let store = MemoryStore()
        func status(
            _ method: HTTPRequest.Method, _ path: String, _ query: [String: String] = ["member": "bo"],
            _ body: String = ""
        ) throws -> Int? {
            try Self.request(h, store, method, path, query: query, body: body)?.status
        }
        #expect(try status(.get, "/api/inbox", [:]) == 403)
        #expect(try status(.get, "/api/inbox", ["member": ""]) == 400)
        #expect(try status(.get, "/api/inbox", ["member": "not an id"]) == 400)
        #expect(try status(.get, "/api/inbox", ["member": "bo", "limit": "0"]) == 400)
        #expect(try status(.get, "/api/inbox", ["member": "bo", "limit": "501"]) == 400)
        #expect(try status(.get, "/api/inbox", ["member": "bo", "limit": "500"]) == 200)
        #expect(try status(.post, "/api/inbox") == 405)
        #expect(try status(.get, "/api/inbox/read") == 405)
        #expect(try status(.get, "/api/inbox/other") == 404)
        for body in [#"{}"#, #"{"upTo":-1}"#, #"{"upTo":1.5}"#, #"{"upTo":"1"}"#, #"{"upTo":1,"x":2}"#, "[1]", "nope"] {
            #expect(try status(.post, "/api/inbox/read", ["member": "bo"], body) == 400, "\(body)")
        }
        #expect(try status(.post, "/api/inbox/read", ["member": "bo"], #"{"upTo":9007199254740991}"#) == 200)
        #expect(try status(.post, "/api/inbox/read", ["member": "bo"], #"{"upTo":9007199254740993}"#) == 400)
    }

    @Test func withTokensTheInboxIsTheTokensMember() throws {
        let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
        let h = HubHarness {
            $0.auth = authority
            $0.inbox = true
        }
        let store = MemoryStore()
        let expires = h.wall.milliseconds / 1000 + 600
        let bo = authority.mint(Claims(board: nil, role: .view, expires: expires, member: MemberID("bo")))
        let nobody = authority.mint(Claims(board: nil, role: .admin, expires: expires))
        #expect(try Self.request(h, store, .get, "/api/inbox", query: ["member": "bo"])?.status == 401)
        #expect(try Self.request(h, store, .get, "/api/inbox", token: nobody)?.status == 403)
        #expect(try Self.request(h, store, .get, "/api/inbox", query: ["member": "a b"], token: bo)?.status == 400)
        // `?member=` names nobody else's inbox: the token's member is the one.
        try store.write([.create(.defaultTemplate(id: board("demo")))])
        var s = Sequencer(board: .defaultTemplate(id: board("demo")))
        guard
            case .committed(let op) = s.submit(
                OpRequest(
                    opID: OpID("o1")!, base: 0,
                    op: .assign(item: ItemID("t1")!, add: [Assignee(member: MemberID("bo")!, name: "Bo")], remove: [])),
                by: UserID("u1"), name: "Ann", member: MemberID("ann"), time: h.wall, holder: { _ in nil })
        else { Issue.record("not committed"); return }
        try store.write([.append(board("demo"), [op])])
        let mine = try #require(try Self.request(h, store, .get, "/api/inbox", query: ["member": "ann"], token: bo))
        #expect(mine.status == 200)
        #expect(try JSON.parse(mine.body)["unread"]?.intValue == 1)
        let read = try #require(try Self.request(h, store, .post, "/api/inbox/read", body: #"{"upTo":1}"#, token: bo))
        #expect(read.status == 200)
        #expect(try JSON.parse(read.body)["unread"]?.intValue == 0)
    }

    @Test func theFeedReadsAfterTheGreatestIdSeenAndPollsOnlyInACluster() {
        var feed = InboxFeed()
        let t0 = Instant(milliseconds: 0)
        let wall = UnixTime(milliseconds: 1_000)
        // The first read asks for the greatest id, and tells nothing.
        let step1 = feed.shouldRead(due: false, clustered: false, now: t0, wall: wall)
        #expect(step1 == .some(nil) && feed.started == 1_000)
        var early = InboxFeed()
        early.persisting(
            CommittedOp(
                seq: 1, opID: OpID("o")!, by: UserID("u"),
                op: .assign(item: ItemID("t1")!, add: [Assignee(member: MemberID("bo")!, name: "Bo")], remove: []),
                time: UnixTime(milliseconds: 900)),
            on: board("demo"))
        _ = early.shouldRead(due: true, clustered: false, now: t0, wall: wall)
        #expect(early.started == 900)  // the op that started the read is not taken for an old one
        let step2 = feed.shouldRead(due: true, clustered: false, now: t0, wall: wall)
        #expect(step2 == nil)  // one read at a time; again after
        let old = Notice(
            id: 7, member: MemberID("bo")!, kind: .mention, board: board("demo"), item: ItemID("t1")!, label: "",
            by: Assignee(member: MemberID("ann")!, name: "Ann"), at: 0, seq: 1)
        let first = feed.answered(NoticeFeed(notices: [], latest: 7))
        #expect(first.tell.isEmpty && first.again)
        #expect(feed.phase == .idle(seen: 7))
        // Without a cluster, only a durable op that may notify makes a read.
        let step3 = feed.shouldRead(due: false, clustered: false, now: t0 + .init(milliseconds: 5000), wall: wall)
        #expect(step3 == nil)
        let step4 = feed.shouldRead(due: true, clustered: false, now: t0, wall: wall)
        #expect(step4 == .some(7))
        var new = old
        new.id = 8
        let second = feed.answered(NoticeFeed(notices: [old, new], latest: 8))
        #expect(second.tell == [new] && !second.again)
        // In a cluster, a poll each second.
        let step5 = feed.shouldRead(due: false, clustered: true, now: t0 + .init(milliseconds: 500), wall: wall)
        #expect(step5 == nil)
        let step6 = feed.shouldRead(due: false, clustered: true, now: t0 + .init(milliseconds: 1000), wall: wall)
        #expect(step6 == .some(8))
        feed.failed()
        #expect(feed.phase == .idle(seen: 8))
        // Ops wait for their durability: another board's durable seq does not count.
        var op = CommittedOp(
            seq: 3, opID: OpID("o")!, by: UserID("u"), op: .assign(item: ItemID("t1")!, add: [old.by], remove: []),
            time: UnixTime(milliseconds: 0))
        feed.persisting(op, on: board("demo"))
        op.op = .toggle(item: ItemID("t1")!, on: true)
        feed.persisting(op, on: board("other"))
        let step7 = feed.durable([board("other"): 3])
        #expect(!step7)
        let step8 = feed.durable([board("demo"): 2])
        #expect(!step8)
        let step9 = feed.durable([board("demo"): 3])
        #expect(step9)
        let step10 = feed.durable([board("demo"): 4])
        #expect(!step10)
    }
}
