import BoardCore
import BoardMetrics
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// The HTTP API's rules: answers from memory or from store reads, durable-gated creates and
/// deletes, and the order of work on one board while the store is asked about it.
@Suite struct BoardAPITests {
    let x1 = ExchangeID(101)
    let x2 = ExchangeID(102)

    func definition(_ id: String, title: String = "One") -> String {
        #"{"id":"\#(id)","title":"\#(title)","columns":2,"zones":[{"id":"grid","items":[{"label":"A","color":"white"}]}]}"#
    }

    func post(_ h: HubHarness, _ body: String, exchange: ExchangeID) -> [Hub.Action] {
        h.on(
            .request(
                exchange,
                HTTPRequest(
                    method: .post, path: "/api/boards", body: Array(body.utf8), contentType: "application/json")))
    }

    /// What an API request led to: its status when answered at once, 0 when it went to the store.
    func outcome(_ h: HubHarness, _ request: HTTPRequest) -> Int? {
        let actions = h.on(.request(x1, request))
        if let answer = responses(in: actions).first { return answer.1.status }
        return actions.contains { if case .read = $0 { true } else { false } } ? 0 : nil
    }

    @Test func aWriteWithABodyMustBeJSONSoNoOtherSiteCanSendIt() {
        let h = HubHarness()
        let body = Array(definition("b1").utf8)
        var made = 0
        func post(_ contentType: String?) -> Int? {
            made += 1  // Another board each time: a second create of one board waits behind the first.
            let body = Array(definition("m\(made)").utf8)
            return outcome(h, HTTPRequest(method: .post, path: "/api/boards", body: body, contentType: contentType))
        }
        // What a page on another site can send without a preflight: text/plain, forms, or nothing.
        for refused in [
            nil, "text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=x", "text/plain; charset=application/json", "application/jsonx",
            "application/json, text/plain",
        ] {
            #expect(post(refused) == 415, "\(refused ?? "none")")
        }
        let answer = responses(in: h.on(.request(x1, HTTPRequest(method: .post, path: "/api/boards", body: body))))
        #expect(answer.first?.1.text.contains(#""error":"unsupported_media_type""#) == true)
        #expect(!h.log.contains { if case .persist = $0 { true } else { false } }, "nothing was made")
        for accepted in ["application/json", "application/json; charset=utf-8", " Application/JSON ;charset=UTF-8"] {
            #expect(post(accepted) == 0, "\(accepted)")
        }
        // A DELETE has no body and needs no content type; a write with a body always does.
        #expect(outcome(h, HTTPRequest(method: .delete, path: "/api/boards/b2")) == 0)
        #expect(outcome(h, HTTPRequest(method: .delete, path: "/api/boards/b2", body: [0x7B, 0x7D])) == 415)
        #expect(outcome(h, HTTPRequest(method: .put, path: "/api/boards", body: [0x7B, 0x7D])) == 415)
        #expect(outcome(h, HTTPRequest(method: .put, path: "/api/boards")) == 405)
    }

    @Test func withAllowedOriginsAWriteFromAnotherOriginIs403() {
        let h = HubHarness { $0.origins = OriginPolicy(allowed: ["https://board.example"]) }
        let body = Array(definition("b1").utf8)
        func request(_ method: HTTPRequest.Method, _ path: String, origin: String?) -> HTTPRequest {
            HTTPRequest(
                method: method, path: path, body: method == .post ? body : [], contentType: "application/json",
                origin: origin)
        }
        for origin in ["https://evil.example", "null", "https://board.example.evil", "https://board.example\u{0}"] {
            #expect(outcome(h, request(.post, "/api/boards", origin: origin)) == 403, "\(origin)")
            #expect(outcome(h, request(.delete, "/api/boards/b1", origin: origin)) == 403, "\(origin)")
        }
        let answer = responses(in: h.on(.request(x1, request(.post, "/api/boards", origin: "https://evil.example"))))
        #expect(answer.first?.1.text.contains(#""error":"forbidden_origin""#) == true)
        #expect(!h.log.contains { if case .persist = $0 { true } else { false } }, "nothing was made")
        // Reads are not writes (a browser keeps another site from reading the answer), and a
        // client that is no browser sends no Origin.
        #expect(outcome(h, request(.get, "/api/boards/b1", origin: "https://evil.example")) == 0)
        #expect(outcome(h, request(.post, "/api/boards", origin: "https://board.example")) == 0)
        #expect(outcome(h, request(.delete, "/api/boards/b2", origin: nil)) == 0)
        // Without the list any origin may write, as before.
        #expect(outcome(HubHarness(), request(.post, "/api/boards", origin: "https://evil.example")) == 0)
    }

    @Test func anUpgradeWithoutOriginIsRefusedWhenOriginsAreListedUnlessMissingOnesAreAllowed() {
        let strict = OriginPolicy(allowed: ["https://board.example"])
        let lenient = OriginPolicy(allowed: ["https://board.example"], allowMissing: true)
        #expect(strict.allowsUpgrade(from: "https://board.example"))
        #expect(!strict.allowsUpgrade(from: nil))
        #expect(!strict.allowsUpgrade(from: "https://evil.example"))
        #expect(!strict.allowsUpgrade(from: "https://board.example\u{0}\u{0}\u{0}"), "what lws copies of a NUL")
        #expect(lenient.allowsUpgrade(from: nil))
        #expect(!lenient.allowsUpgrade(from: "https://evil.example"))
        #expect(OriginPolicy().allowsUpgrade(from: nil) && OriginPolicy().allowsUpgrade(from: "https://any.example"))
    }

    @Test func healthIsAnsweredAtOnce() {
        let h = HubHarness()
        h.joinNew(h.open(1))
        let answer = responses(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/healthz"))))
        #expect(answer.map(\.1.status) == [200])
        #expect(answer.first?.1.text == #"{"status":"ok","boards":1,"connections":1}"#)
    }

    @Test func createAnswers201OnlyOnceDurable() {
        let h = HubHarness()
        let asked = post(h, definition("b1"), exchange: x1)
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .exists(board("b1"), .any))
        let created = h.on(.answered(read, .exists(false)))
        #expect(responses(in: created).isEmpty)
        #expect(created.contains { if case .persist(.create, _?) = $0 { true } else { false } })
        #expect(responses(in: h.makeDurable()).map(\.1.status) == [201])
    }

    @Test func createOfABoardTheStoreHasIs409() {
        let h = HubHarness()
        guard let (read, _) = h.read(in: post(h, definition("b1"), exchange: x1)) else { return }
        #expect(responses(in: h.on(.answered(read, .exists(true)))).map(\.1.status) == [409])
    }

    @Test func createOfALoadedBoardIs409WithoutTheStore() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b1")
        #expect(responses(in: post(h, definition("b1"), exchange: x1)).map(\.1.status) == [409])
    }

    @Test func aBadDefinitionIs400() {
        let h = HubHarness()
        #expect(responses(in: post(h, #"{"id":"b 1"}"#, exchange: x1)).map(\.1.status) == [400])
    }

    @Test func aCreateThatArrivesWhileAHelloLoadsTheBoardWaitsAndIs409() {
        let h = HubHarness()
        let c = h.open(1)
        let asked = h.hello(c, board: "b1")
        let posted = post(h, definition("b1"), exchange: x1)
        #expect(posted.isEmpty, "the create waits for the hello's read")
        guard let (read, _) = h.read(in: asked) else { return }
        let actions = h.on(.answered(read, .room(nil)))
        #expect(types(messages(to: c, in: actions)) == ["welcome"])
        #expect(responses(in: actions).map(\.1.status) == [409], "the hello created it from the template first")
    }

    @Test func aHelloThatArrivesWhileACreateChecksTheBoardJoinsTheCreatedBoard() {
        let h = HubHarness()
        let asked = post(h, definition("b1", title: "Made over HTTP"), exchange: x1)
        let c = h.open(1)
        #expect(h.hello(c, board: "b1").isEmpty)
        guard let (read, _) = h.read(in: asked) else { return }
        let actions = h.on(.answered(read, .exists(false)))
        guard case .welcome(let welcome)? = messages(to: c, in: actions).first, case .board(let b) = welcome.state
        else {
            Issue.record("\(actions)")
            return
        }
        #expect(b.title == "Made over HTTP")
    }

    @Test func aHelloBehindAnExistenceCheckLoadsTheBoardNext() {
        let h = HubHarness()
        let asked = post(h, definition("b1"), exchange: x1)
        let c = h.open(1)
        h.hello(c, board: "b1")
        guard let (read, _) = h.read(in: asked) else { return }
        let actions = h.on(.answered(read, .exists(true)))
        #expect(responses(in: actions).map(\.1.status) == [409])
        guard let (load, request) = h.read(in: actions) else { return }
        #expect(request == .load(board("b1"), Room.Settings(), .any))
        let stored = Room(board: .defaultTemplate(id: board("b1")), seq: 3)
        #expect(types(messages(to: c, in: h.on(.answered(load, .room(stored))))) == ["welcome"])
    }

    @Test func deleteClosesEveryoneWith4410AndAnswersOnceDurable() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a, board: "b1")
        let actions = h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1")))
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4410]])
        #expect(actions.contains { if case .persist(.delete(board("b1")), _?) = $0 { true } else { false } })
        #expect(responses(in: actions).isEmpty)
        #expect(responses(in: h.makeDurable()).map(\.1.text) == [#"{"deleted":"b1"}"#])
    }

    @Test func aBoardBeingDeletedCannotBeJoinedUntilTheDeletionIsDurable() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b1")
        h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1")))
        let c = h.open(2)
        let refused = h.hello(c, board: "b1")
        #expect(types(messages(to: c, in: refused)) == ["error:unavailable"])
        #expect(closes(in: refused).map(\.1) == [1011])
        h.makeDurable()
        let d = h.open(3)
        #expect(h.read(in: h.hello(d, board: "b1")) != nil, "once durable the board is read (and made) afresh")
    }

    @Test func deleteOfABoardOnlyTheStoreHasChecksItExists() {
        let h = HubHarness()
        let asked = h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1")))
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .exists(board("b1"), .any))
        let deleted = h.on(.answered(read, .exists(true)))
        #expect(deleted.contains(.persist(.delete(board("b1")), ticket: Ticket(2))))
        #expect(responses(in: h.makeDurable()).map(\.1.status) == [200])
    }

    @Test func deleteOfAnUnknownBoardIs404() {
        let h = HubHarness()
        guard let (read, _) = h.read(in: h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1"))))
        else { return }
        #expect(responses(in: h.on(.answered(read, .exists(false)))).map(\.1.status) == [404])
    }

    @Test func aHelloWaitingBehindADeleteGets4410() {
        let h = HubHarness()
        let asked = h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1")))
        let c = h.open(1)
        h.hello(c, board: "b1")
        guard let (read, _) = h.read(in: asked) else { return }
        let actions = h.on(.answered(read, .exists(true)))
        #expect(closes(in: actions).map(\.1) == [4410])
    }

    @Test func snapshotComesFromMemoryWhenLoadedAndFromTheStoreOtherwise() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b1")
        let fromMemory = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/b1")))
        // Encoded off the service thread: the board as it is now goes to the encoder.
        guard let (encode, job) = h.read(in: fromMemory) else { return }
        #expect(
            job == .encodeSnapshot(Board.defaultTemplate(id: board("b1")), seq: 0, clustered: false, owner: nil, .any))
        let encoded = job.run(on: MemoryStore())
        #expect(responses(in: h.on(.answered(encode, encoded))).map(\.1.status) == [200])
        let asked = h.on(.request(x2, HTTPRequest(method: .get, path: "/api/boards/b2")))
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .snapshot(board("b2"), .any))
        #expect(responses(in: h.on(.answered(read, .board(nil)))).map(\.1.status) == [404])
    }

    @Test func theBoardListMergesTheStoreWithWhatIsInMemory() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b2")
        guard let (read, _) = h.read(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards")))) else {
            return
        }
        let stored = [
            BoardSummary(id: board("b1"), title: "One", seq: 4, template: .kanban),
            BoardSummary(id: board("b2"), title: "old", seq: 0),
        ]
        let answer = responses(in: h.on(.answered(read, .list(stored))))
        #expect(
            answer.first?.1.text
                == #"{"boards":[{"id":"b1","title":"One","seq":4,"users":0,"template":"kanban"},{"id":"b2","title":"b2","seq":0,"users":1,"template":"colors"}],"next":null}"#
        )
    }

    @Test func theBoardListIsPagedByID() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b3")  // In memory only, between stored boards.
        let request = HTTPRequest(method: .get, path: "/api/boards", query: ["after": "b1", "limit": "2"])
        guard let (read, asked) = h.read(in: h.on(.request(x1, request))) else { return }
        #expect(asked == .list(after: board("b1"), limit: 3, .any), "one more than the page, to know about the next")
        let stored = ["b2", "b4", "b5"].map { BoardSummary(id: board($0), title: $0, seq: 1) }
        let answer = responses(in: h.on(.answered(read, .list(stored))))
        #expect(
            answer.first?.1.text
                == #"{"boards":[{"id":"b2","title":"b2","seq":1,"users":0},{"id":"b3","title":"b3","seq":0,"users":1,"template":"colors"}],"next":"b3"}"#
        )
        for bad in [["limit": "0"], ["limit": "1001"], ["after": "no/id"]] {
            let refused = h.on(.request(x2, HTTPRequest(method: .get, path: "/api/boards", query: bad)))
            #expect(responses(in: refused).map(\.1.status) == [400], "\(bad)")
        }
    }

    @Test func opsPagesAreReadFromTheStoreAndCutAtWhatIsPublished() {
        let h = HubHarness()
        let request = HTTPRequest(method: .get, path: "/api/boards/b1/ops", query: ["since": "0", "limit": "5"])
        guard let (read, asked) = h.read(in: h.on(.request(x1, request))) else { return }
        #expect(
            asked
                == .opsPage(
                    OpsPageRequest(board: board("b1"), since: 0, limit: 5, visible: nil, maxBytes: 1 << 20), .any))
        #expect(responses(in: h.on(.answered(read, .encoded(nil)))).map(\.1.status) == [404])
        let bad = HTTPRequest(method: .get, path: "/api/boards/b1/ops", query: ["limit": "0"])
        #expect(responses(in: h.on(.request(x2, bad))).map(\.1.status) == [400])
    }

    @Test func aReadForAClientThatWentAwayIsCancelledAndItsAnswerDropped() {
        let h = HubHarness()
        let request = HTTPRequest(method: .get, path: "/api/boards/b1/ops", query: ["since": "0"])
        guard let (read, _) = h.read(in: h.on(.request(x1, request))) else { return }
        let other = HTTPRequest(method: .get, path: "/api/boards/b2/ops", query: ["since": "0"])
        guard let (kept, _) = h.read(in: h.on(.request(x2, other))) else { return }
        let cancelled = h.on(.abandoned(x1))
        #expect(cancelled.count == 1)
        if case .cancelRead(let id) = cancelled.first { #expect(id == read) } else { Issue.record("\(cancelled)") }
        #expect(h.hub.meters.abandonedReads.value(NoLabels()) == 1)
        #expect(h.on(.answered(read, .encoded(nil))).isEmpty, "an answer that ran anyway goes nowhere")
        #expect(h.on(.abandoned(x1)).isEmpty, "once")
        #expect(responses(in: h.on(.answered(kept, .encoded(nil)))).map(\.0) == [x2], "the other client's read stays")
    }

    /// `count` toggles with 128-character op ids of `<` (each written `\u003c`: about 900 bytes).
    private func bulkyOps(_ count: Int) -> [CommittedOp] {
        (1...count).map { n in
            CommittedOp(
                seq: n, opID: OpID(String(repeating: "<", count: 122) + String(format: "%06d", n))!,
                by: UserID(number: 1), op: .toggle(item: ItemID("t1")!, on: n % 2 == 0),
                time: UnixTime(milliseconds: 1_764_000_000_000))
        }
    }

    private func page(_ response: HTTPResponse?) -> (seqs: [Int], more: Bool?, next: Int?, bytes: Int) {
        guard let response, let json = try? JSON.parse(response.text) else { return ([], nil, nil, 0) }
        let seqs = json["ops"]?.arrayValue?.compactMap { $0["seq"]?.intValue } ?? []
        return (seqs, json["more"]?.boolValue, json["next"]?.intValue, response.body.count)
    }

    @Test func opsPagesAreCutAtTheByteBoundAndSayWhereToGoOn() {
        let ops = bulkyOps(100)
        var since = 0
        var seen: [Int] = []
        for _ in 0..<100 {
            let request = OpsPageRequest(board: board("b1"), since: since, limit: 1000, visible: nil, maxBytes: 8192)
            let stored = Array(ops.drop { $0.seq <= since })
            let (seqs, more, next, bytes) = page(request.response(.ops(stored, current: 100)))
            #expect(bytes <= 8192)
            #expect(!seqs.isEmpty)
            seen += seqs
            guard more == true else {
                #expect(next == nil)
                break
            }
            #expect(next == seqs.last)
            since = next ?? 100
        }
        #expect(seen == Array(1...100), "every op once, in order, over \(seen.count) ops")
        // Read from a store in chunks, the pages are the same, and reading stops once one is full.
        let store = MemoryStore()
        try? store.write([.create(.defaultTemplate(id: board("b1"))), .append(board("b1"), ops)])
        since = 0
        var read: [Int] = []
        for _ in 0..<100 {
            let request = OpsPageRequest(board: board("b1"), since: since, limit: 1000, visible: nil, maxBytes: 8192)
            let (seqs, more, next, bytes) = page(try? request.run(on: store, chunk: 3))
            #expect(bytes <= 8192 && !seqs.isEmpty)
            read += seqs
            guard more == true, let next else { break }
            since = next
        }
        #expect(read == Array(1...100))
        let unknown = OpsPageRequest(board: board("zz"), since: 0, limit: 10, visible: nil, maxBytes: 8192)
        #expect((try? unknown.run(on: store)) == .some(nil))
        // One op is always on a page, however large; a page cut at `limit` also says there is more.
        let tiny = OpsPageRequest(board: board("b1"), since: 0, limit: 1000, visible: nil, maxBytes: 10)
        #expect(page(tiny.response(.ops(ops, current: 100))).seqs == [1])
        let limited = OpsPageRequest(board: board("b1"), since: 0, limit: 5, visible: nil, maxBytes: 1 << 20)
        let five = page(limited.response(.ops(Array(ops.prefix(5)), current: 100)))
        #expect(five.seqs == [1, 2, 3, 4, 5] && five.more == true && five.next == 5)
        // Ops stored but not yet published are not on the page, and the page ends at what is.
        let visible = OpsPageRequest(board: board("b1"), since: 0, limit: 1000, visible: 3, maxBytes: 1 << 20)
        let published = page(visible.response(.ops(ops, current: 100)))
        #expect(published.seqs == [1, 2, 3] && published.more == false && published.next == nil)
    }

    @Test func aFailedReadIs503() {
        let h = HubHarness()
        guard let (read, _) = h.read(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards")))) else {
            return
        }
        #expect(responses(in: h.on(.answered(read, .failed(StoreError("no"))))).map(\.1.status) == [503])
    }

    @Test func templatesAreListedAndABoardIsMadeFromOne() {
        let h = HubHarness()
        let listed = responses(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/api/templates"))))
        #expect(listed.map(\.1.status) == [200])
        let names = (try? JSON.parse(listed[0].1.body))?["templates"]?.arrayValue?.compactMap {
            $0["name"]?.stringValue
        }
        #expect(names == ["colors", "strips", "paint", "playlist", "kanban"])
        let asked = post(h, #"{"id":"songs","template":"playlist","title":"Road trip"}"#, exchange: x2)
        guard let (read, _) = h.read(in: asked) else { return }
        let created = h.on(.answered(read, .exists(false)))
        guard
            case .persist(.create(let board), _?)? = created.first(where: {
                if case .persist = $0 { true } else { false }
            })
        else {
            Issue.record("\(created)")
            return
        }
        #expect(board.title == "Road trip" && board.zones[0].layout == .list && board.zones[0].handle)
        #expect(responses(in: h.makeDurable()).map(\.1.status) == [201])
    }

    @Test func helloMakesUnknownBoardsFromTheDefaultTemplate() {
        let h = HubHarness { $0.defaultTemplate = .kanban }
        let c = h.open(1)
        guard case .welcome(let welcome)? = messages(to: c, in: h.joinNew(c, board: "work")).first,
            case .board(let board) = welcome.state
        else {
            Issue.record("no welcome")
            return
        }
        #expect(board.zones.map(\.title) == ["To do", "Doing", "Done"] && board.title == "work")
    }

    @Test func wrongMethodsAre405WithAllow() {
        let h = HubHarness()
        let answer = responses(in: h.on(.request(x1, HTTPRequest(method: .put, path: "/api/boards"))))
        #expect(answer.first?.1.status == 405)
        #expect(answer.first?.1.headers == [HTTPResponse.Header("allow:", "GET, POST")])
    }
}
