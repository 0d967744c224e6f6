import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Access control on the hub: tokens in `hello`, roles, and the API's bearer tokens.
@Suite struct AuthTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let x1 = ExchangeID(201)

    func harness() -> HubHarness { HubHarness { $0.auth = authority } }

    func token(_ board: String?, _ role: Role, expires: Int64 = 4_000_000_000, name: String? = nil) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: expires, name: name))
    }

    @discardableResult
    func hello(_ h: HubHarness, _ c: ConnectionID, board: String = "demo", token: String?) -> [Hub.Action] {
        let tokenJSON = token.map { #","token":"\#($0)""# } ?? ""
        return h.send(c, #"{"type":"hello","board":"\#(board)","name":"Ada"\#(tokenJSON)}"#)
    }

    @Test(arguments: ["none", "forged", "other board", "expired", "garbage"])
    func helloWithoutAValidTokenForTheBoardIsUnauthorizedAnd4401(_ kind: String) {
        let h = harness()
        let c = h.open(1)
        var t: String? = nil
        switch kind {
        case "forged":
            var chars = Array(token("demo", .edit))
            chars[chars.count - 3] = chars[chars.count - 3] == "A" ? "B" : "A"
            t = String(chars)
        case "other board": t = token("other", .admin)
        case "expired": t = token("demo", .edit, expires: 1_000)
        case "garbage": t = "v1.nope"
        default: break
        }
        let actions = hello(h, c, token: t)
        #expect(types(messages(to: c, in: actions)) == ["error:unauthorized"], "\(kind)")
        #expect(closes(in: actions).map(\.1) == [4401], "\(kind)")
        #expect(!actions.contains { if case .read = $0 { true } else { false } }, "nothing is loaded for it")
    }

    @Test func aValidTokenJoinsAndItsNameOverridesTheHellosName() {
        let h = harness()
        let c = h.open(1)
        guard let (read, _) = h.read(in: hello(h, c, token: token("demo", .edit, name: "Boss"))) else { return }
        guard case .welcome(let welcome)? = messages(to: c, in: h.on(.answered(read, .room(nil)))).first else {
            Issue.record("no welcome")
            return
        }
        #expect(welcome.users.map(\.name) == ["Boss"])
        let all = h.open(2)
        guard let (_, _) = h.read(in: hello(h, all, board: "else", token: token(nil, .view))) else { return }
    }

    @Test func aViewerWatchesButEveryOpAndDragIsForbidden() {
        let h = harness()
        let editor = h.open(1)
        let viewer = h.open(2)
        guard let (read, _) = h.read(in: hello(h, editor, token: token("demo", .edit))) else { return }
        h.on(.answered(read, .room(nil)))
        hello(h, viewer, token: token("demo", .view))
        let messagesToTry = [
            #"{"type":"swap","op":"v1","base":0,"a":"t1","b":"t2"}"#, #"{"type":"dragStart","item":"t3"}"#,
            #"{"type":"hover","item":"t3","over":"t4"}"#,
            #"{"type":"drop","item":"t3","op":"v2","base":0,"action":{"type":"swap","with":"t4"}}"#,
            #"{"type":"add","op":"v3","base":0,"zone":"tray","before":null,"item":{"label":"x"}}"#,
            #"{"type":"edit","op":"v4","base":0,"item":"t1","label":"x"}"#,
            #"{"type":"remove","op":"v5","base":0,"item":"t1"}"#,
            #"{"type":"addZone","op":"v6","base":0,"before":null,"zone":{"title":"x"}}"#,
            #"{"type":"editZone","op":"v7","base":0,"zone":"tray","title":"x"}"#,
            #"{"type":"removeZone","op":"v8","base":0,"zone":"tray"}"#,
            #"{"type":"retitle","op":"v9","base":0,"title":"x"}"#,
        ]
        for text in messagesToTry {
            let actions = h.send(viewer, text)
            #expect(types(messages(to: viewer, in: actions)) == ["reject:forbidden"], "\(text)")
            #expect(messages(to: editor, in: actions).isEmpty, "nobody else hears of it")
        }
        // It still sees what the editor does.
        var seen = h.send(editor, #"{"type":"swap","op":"e1","base":0,"a":"t1","b":"t2"}"#)
        seen += h.makeDurable()
        #expect(types(messages(to: viewer, in: seen)) == ["swap"])
    }

    @Test func aViewTokenNeverCreatesABoardAndAnAdminMayCreateItAfterwards() {
        let h = harness()
        let viewer = h.open(1)
        // A view token for every board says hello for one the store does not have.
        guard let (read, asked) = h.read(in: hello(h, viewer, board: "squat", token: token(nil, .view))) else { return }
        #expect(asked == .load(board("squat"), Room.Settings(), .any))
        let refused = h.on(.answered(read, .room(nil)))
        #expect(types(messages(to: viewer, in: refused)) == ["error:unknown_board"])
        #expect(closes(in: refused).map(\.1) == [4404])
        #expect(!refused.contains { if case .persist = $0 { true } else { false } }, "nothing is stored")
        #expect(h.hub.boardCount == 0, "nothing is in memory")
        // An admin's create of that id then goes through.
        let body = #"{"id":"squat","template":"kanban"}"#
        let request = HTTPRequest(
            method: .post, path: "/api/boards", body: Array(body.utf8),
            authorization: "Bearer \(token("squat", .admin))", contentType: "application/json")
        guard let (exists, _) = h.read(in: h.on(.request(x1, request))) else { return }
        let created = h.on(.answered(exists, .exists(false)))
        #expect(created.contains { if case .persist(.create, _?) = $0 { true } else { false } })
        #expect(responses(in: h.makeDurable()).map(\.1.status) == [201])
    }

    @Test(arguments: [Role.edit, .admin])
    func anEditOrAdminTokenStillCreatesOnHello(_ role: Role) {
        let h = harness()
        let c = h.open(1)
        guard let (read, _) = h.read(in: hello(h, c, board: "fresh", token: token(nil, role))) else { return }
        #expect(types(messages(to: c, in: h.on(.answered(read, .room(nil))))) == ["welcome"])
        #expect(h.hub.boardCount == 1)
    }

    @Test func theAPIWantsABearerTokenWithTheRightRole() {
        let h = harness()
        func status(_ method: HTTPRequest.Method, _ path: String, _ token: String?, body: String = "") -> Int? {
            let request = HTTPRequest(
                method: method, path: path, body: Array(body.utf8), authorization: token.map { "Bearer \($0)" },
                contentType: "application/json")
            let actions = h.on(.request(x1, request))
            if let answer = responses(in: actions).first { return answer.1.status }
            return actions.contains { if case .read = $0 { true } else { false } } ? 0 : nil  // 0: went to the store
        }
        #expect(status(.get, "/api/boards", nil) == 401)
        #expect(status(.get, "/api/boards", "v1.bad.token") == 401)
        #expect(status(.get, "/api/boards/demo", token("demo", .view)) == 0)
        #expect(status(.get, "/api/boards/other", token("demo", .view)) == 403)
        #expect(status(.delete, "/api/boards/demo", token("demo", .edit)) == 403)
        #expect(status(.delete, "/api/boards/demo", token("demo", .admin)) == 0)
        let body = #"{"id":"made","template":"kanban"}"#
        #expect(status(.post, "/api/boards", token("made", .edit), body: body) == 403)
        #expect(status(.post, "/api/boards", token("made", .admin), body: body) == 0)
        #expect(status(.post, "/api/boards", token("made", .admin), body: #"{"template":"kanban"}"#) == 403)
        #expect(status(.get, "/api/templates", nil) == 200, "templates are public")
        #expect(status(.get, "/healthz", nil) == 200)
    }

    @Test func theBoardListShowsOnlyWhatTheTokenMaySee() {
        let h = harness()
        let request = HTTPRequest(method: .get, path: "/api/boards", authorization: "Bearer \(token("b2", .view))")
        guard let (read, asked) = h.read(in: h.on(.request(x1, request))) else { return }
        #expect(asked == .snapshot(board("b2"), .any))
        let stored = StoredBoard(board: .defaultTemplate(id: board("b2")), seq: 5, recent: [])
        let answer = responses(in: h.on(.answered(read, .board(stored))))
        #expect(
            answer.first?.1.text
                == #"{"boards":[{"id":"b2","title":"b2","seq":5,"users":0,"template":"colors"}],"next":null}"#)
    }

    @Test func withoutAuthEverythingIsAllowedAsBefore() {
        let h = HubHarness()
        let c = h.open(1)
        #expect(types(messages(to: c, in: h.joinNew(c))) == ["welcome"])
        let actions = h.send(c, #"{"type":"dragStart","item":"t1"}"#)
        #expect(types(messages(to: c, in: actions)) == ["dragStart"])
    }
}
