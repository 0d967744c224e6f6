import BoardAuth
import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Share links (Hub+Links.swift): made by a board's admin, listed without tokens, bounded per
/// board, strict about their input, and revoked at once — the link's live session closes 4401.
/// Store reads are answered by `StoreRead.run(on:)` against one `MemoryStore`, as the reader would.
@Suite struct ShareLinkTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let start: Int64 = 1_764_000_000
    /// The reader's store, holding boards `demo` and `other` (a link is made only for a stored board).
    let store = MemoryStore()

    init() throws { try store.write(["demo", "other"].map { .create(.defaultTemplate(id: BoardID($0)!)) }) }

    func harness() -> HubHarness { HubHarness { $0.auth = authority } }

    func token(_ board: String? = "demo", _ role: Role = .admin) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: start + 3600))
    }

    /// Sends the request and answers its store reads until it is answered: (status, JSON body, actions).
    func call(
        _ h: HubHarness, _ method: HTTPRequest.Method, _ path: String, body: String = "", bearer: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (Int, JSON?, [Hub.Action]) {
        var all: [Hub.Action] = []
        var actions = h.on(
            .request(
                ExchangeID(7),
                HTTPRequest(
                    method: method, path: path, body: Array(body.utf8),
                    authorization: bearer.map { "Bearer \($0)" } ?? "Bearer \(token())",
                    contentType: "application/json")))
        for _ in 0..<4 {
            all += actions
            if let (_, answer) = responses(in: actions).first {
                return (answer.status, try? JSON.parse(answer.body), all)
            }
            guard let (read, asked) = h.read(in: actions, sourceLocation: sourceLocation) else { break }
            actions = h.on(.answered(read, asked.run(on: store)))
        }
        Issue.record("no answer", sourceLocation: sourceLocation)
        return (0, nil, all)
    }

    @Test func anAdminMakesAViewOrEditLinkWhoseTokenWorksForThatBoardAndRole() throws {
        let h = harness()
        let (status, body, _) = call(h, .post, "/api/boards/demo/links", body: #"{"role":"edit","ttl":"7d"}"#)
        #expect(status == 201)
        let json = try #require(body)
        let linkToken = try #require(json["token"]?.stringValue)
        #expect(json["role"]?.stringValue == "edit")
        #expect(json["exp"]?.intValue == Int(start) + 7 * 86_400)
        #expect(json["url"]?.stringValue == "/b/demo#token=\(linkToken)")
        let claims = try authority.verify(linkToken, now: start).get()
        #expect(claims.board == BoardID("demo") && claims.role == .edit && claims.id == json["id"]?.stringValue)
        // Listed, never with its token.
        let (listed, list, _) = call(h, .get, "/api/boards/demo/links")
        #expect(listed == 200)
        let links = try #require(list?["links"]?.arrayValue)
        #expect(links.count == 1 && links[0]["id"] == json["id"] && links[0]["token"] == nil)
        #expect(links[0]["exp"] == json["exp"] && links[0]["role"]?.stringValue == "edit")
        // A view link, for a day.
        let (_, view, _) = call(h, .post, "/api/boards/demo/links", body: #"{"role":"view","ttl":"24h"}"#)
        #expect(view?["exp"]?.intValue == Int(start) + 86_400 && view?["role"]?.stringValue == "view")
        #expect(call(h, .get, "/api/boards/demo/links").1?["links"]?.arrayValue?.count == 2)
    }

    @Test func aBoardThatIsNotStoredHasNoLinksToMakeOrList() {
        let h = harness()
        let admin = token("ghost", .admin)
        let made = call(h, .post, "/api/boards/ghost/links", body: #"{"role":"edit"}"#, bearer: admin)
        #expect(made.0 == 404 && made.1?["error"]?.stringValue == "unknown_board")
        #expect(call(h, .get, "/api/boards/ghost/links", bearer: admin).0 == 404)
    }

    @Test func onlyAnAdminOfTheBoardManagesItsLinks() {
        let h = harness()
        let body = #"{"role":"view"}"#
        #expect(call(h, .post, "/api/boards/demo/links", body: body, bearer: token("demo", .edit)).0 == 403)
        #expect(call(h, .post, "/api/boards/demo/links", body: body, bearer: token("other", .admin)).0 == 403)
        #expect(call(h, .get, "/api/boards/demo/links", bearer: token("demo", .view)).0 == 403)
        #expect(call(h, .delete, "/api/boards/demo/links/abc", bearer: token("demo", .edit)).0 == 403)
        #expect(call(h, .post, "/api/boards/demo/links", body: body, bearer: "forged").0 == 401)
        #expect(call(h, .post, "/api/boards/demo/links", body: body, bearer: token(nil, .admin)).0 == 201)
        #expect(call(h, .put, "/api/boards/demo/links").0 == 405)
        #expect(call(h, .post, "/api/boards/demo/links/abc").0 == 405)
    }

    @Test(arguments: [
        "", "[]", #"{"ttl":"7d"}"#, #"{"role":"admin"}"#, #"{"role":"owner"}"#, #"{"role":"view","ttl":7}"#,
        #"{"role":"view","ttl":"0d"}"#, #"{"role":"view","ttl":"07d"}"#, #"{"role":"view","ttl":"+7d"}"#,
        #"{"role":"view","ttl":"7 d"}"#, #"{"role":"view","ttl":"7w"}"#, #"{"role":"view","ttl":"59s"}"#,
        #"{"role":"view","ttl":"91d"}"#, #"{"role":"view","ttl":"99999999d"}"#, #"{"role":"view","ttl":"d"}"#,
        #"{"role":"view","extra":1}"#,
    ])
    func badLinkRequestsAreRefusedWith400(_ body: String) {
        let h = harness()
        let (status, json, _) = call(h, .post, "/api/boards/demo/links", body: body)
        #expect(status == 400)
        #expect(json?["error"]?.stringValue == "bad_request")
        #expect(call(h, .get, "/api/boards/demo/links").1?["links"]?.arrayValue?.isEmpty == true, "nothing stored")
    }

    @Test func theTTLTakesWholeUnitsWithinItsBounds() {
        #expect(Hub.linkTTL("60s") == 60 && Hub.linkTTL("1m") == 60 && Hub.linkTTL("12h") == 43_200)
        #expect(Hub.linkTTL("90d") == 90 * 86_400 && Hub.linkTTL("9999999s") == 9_999_999)
        #expect(Hub.linkTTL("10000000s") == nil && Hub.linkTTL("-1d") == nil && Hub.linkTTL("1D") == nil)
    }

    @Test func aBoardHasAtMostItsBoundOfLiveLinks() {
        let h = harness()
        for _ in 0..<Hub.maxLinksPerBoard {
            #expect(call(h, .post, "/api/boards/demo/links", body: #"{"role":"view"}"#).0 == 201)
        }
        let (status, json, _) = call(h, .post, "/api/boards/demo/links", body: #"{"role":"view"}"#)
        #expect(status == 507 && json?["error"]?.stringValue == "too_many_links")
        #expect(h.hub.meters.limitHits.value(.shareLinks) == 1)
        #expect(call(h, .post, "/api/boards/other/links", body: #"{"role":"view"}"#, bearer: token(nil)).0 == 201)
    }

    @Test func revokingALinkClosesItsLiveSessionAtOnceAndRefusesItsToken() throws {
        let h = harness()
        let (_, made, _) = call(h, .post, "/api/boards/demo/links", body: #"{"role":"edit","ttl":"1h"}"#)
        let linkToken = try #require(made?["token"]?.stringValue)
        let id = try #require(made?["id"]?.stringValue)
        let (a, b) = (h.open(1), h.open(2))
        guard
            let (read, _) = h.read(
                in: h.send(a, #"{"type":"hello","board":"demo","name":"Guest","token":"\#(linkToken)"}"#))
        else { return }
        h.on(.answered(read, .room(nil)))
        h.send(b, #"{"type":"hello","board":"demo","name":"Ada","token":"\#(token())"}"#)
        let (status, json, actions) = call(h, .delete, "/api/boards/demo/links/\(id)")
        #expect(status == 200 && json?["revoked"] == .bool(true) && json?["id"]?.stringValue == id)
        #expect(
            messages(to: a, in: actions).compactMap { if case .error(let e) = $0 { e.message } else { nil } }
                == ["token revoked"])
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4401]], "only the link's session")
        #expect(call(h, .get, "/api/boards/demo/links").1?["links"]?.arrayValue?.isEmpty == true)
        #expect(call(h, .delete, "/api/boards/demo/links/\(id)").0 == 404, "once")
        #expect(call(h, .delete, "/api/boards/demo/links/not*an*id").0 == 404)
        // Every node's reload brings it: the store has it on the revocation list.
        #expect(try store.revocations(now: start).map(\.id) == [TokenAuthority.revocationID(of: linkToken)])
        let c = h.open(3)
        let refused = h.send(c, #"{"type":"hello","board":"demo","name":"Guest","token":"\#(linkToken)"}"#)
        #expect(closes(in: refused).map(\.1) == [4401])
    }

    @Test func withoutAccessControlThereAreNoLinks() {
        let h = HubHarness()
        let (status, json, _) = call(h, .post, "/api/boards/demo/links", body: #"{"role":"view"}"#)
        #expect(status == 409 && json?["error"]?.stringValue == "no_access_control")
        #expect(call(h, .get, "/api/boards/demo/links").0 == 409)
        #expect(call(h, .delete, "/api/boards/demo/links/abc").0 == 409)
    }
}
