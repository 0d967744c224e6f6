import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Revocation (Hub+Revocations.swift): `POST /api/revocations`, refusals of a revoked token at
/// `hello`, `auth` and the API, live sessions closed with 4401 "token revoked", the reload that
/// brings other nodes' revocations, and `GET /api/revocations`.
@Suite struct RevocationTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let start: Int64 = 1_764_000_000
    let x1 = ExchangeID(401)

    func harness() -> HubHarness { HubHarness { $0.auth = authority } }

    func token(_ board: String? = "demo", _ role: Role = .edit, life: Int64 = 3600, name: String? = nil) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: start + life, name: name))
    }

    func hello(_ token: String, board: String = "demo") -> String {
        #"{"type":"hello","board":"\#(board)","name":"Ada","token":"\#(token)"}"#
    }

    func request(_ method: HTTPRequest.Method, bearer: String, body: String = "") -> HTTPRequest {
        HTTPRequest(
            method: method, path: "/api/revocations", body: Array(body.utf8), authorization: "Bearer \(bearer)",
            contentType: "application/json")
    }

    /// Posts a revocation of `revoked` with `bearer`; returns the status and body once the store
    /// has it (the store read answered as the store would).
    func revoke(_ h: HubHarness, _ revoked: String, bearer: String) -> (Int, String, [Hub.Action]) {
        let actions = h.on(.request(x1, request(.post, bearer: bearer, body: #"{"token":"\#(revoked)"}"#)))
        if let (_, answer) = responses(in: actions).first {
            return (answer.status, String(decoding: answer.body, as: UTF8.self), actions)
        }
        guard let (read, asked) = h.read(in: actions), case .revoke(let revocation, _, _) = asked else {
            Issue.record("no revoke read in \(actions)")
            return (0, "", actions)
        }
        let answered = h.on(.answered(read, .revoked(revocation)))
        let answer = responses(in: answered).first?.1
        return (answer?.status ?? 0, answer.map { String(decoding: $0.body, as: UTF8.self) } ?? "", answered)
    }

    func errorTexts(to id: ConnectionID, in actions: [Hub.Action]) -> [String] {
        messages(to: id, in: actions).compactMap { if case .error(let e) = $0 { e.message } else { nil } }
    }

    @Test func aRevokedTokenClosesItsSessionsAndIsRefusedAtHelloAuthAndTheAPI() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        let revoked = token(name: "Ann")
        guard let (read, _) = h.read(in: h.send(a, hello(revoked))) else { return }
        h.on(.answered(read, .room(nil)))
        h.send(b, hello(token()))
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        let (status, body, actions) = revoke(h, revoked, bearer: token("demo", .admin))
        let id = TokenAuthority.revocationID(of: revoked)
        #expect(status == 200)
        #expect(body == #"{"revoked":"\#(id)","until":\#(start + 3600)}"#)
        #expect(!body.contains(revoked), "the id is a hash, never the token")
        #expect(errorTexts(to: a, in: actions) == ["token revoked"])
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4401]])
        #expect(types(messages(to: b, in: actions)) == ["drop:left", "leave"], "b stays; a's drag is released")
        // Refused wherever it is shown again.
        let c = h.open(3)
        let refused = h.send(c, hello(revoked))
        #expect(types(messages(to: c, in: refused)) == ["error:unauthorized"])
        #expect(closes(in: refused).map(\.1) == [4401])
        #expect(
            types(messages(to: b, in: h.send(b, #"{"type":"auth","token":"\#(revoked)"}"#))) == ["error:unauthorized"])
        let api = HTTPRequest(method: .get, path: "/api/boards/demo", authorization: "Bearer \(revoked)")
        #expect(responses(in: h.on(.request(ExchangeID(402), api))).map(\.1.status) == [401])
        #expect(h.hub.meters.authFailures.value(AuthFailure(.hello, .revoked)) == 1)
        #expect(h.hub.meters.authFailures.value(AuthFailure(.auth, .revoked)) == 1)
        #expect(h.hub.meters.authFailures.value(AuthFailure(.api, .revoked)) == 1)
    }

    /// Issue 29, finding 8: two tokens minted in the same second for one board, role and name
    /// were the same string, so revoking one revoked both. Each now has its own id.
    @Test func revokingOneOfTwoTokensMintedAlikeLeavesTheOtherWorking() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        let (revoked, kept) = (token(name: "Ann"), token(name: "Ann"))
        #expect(revoked != kept)
        guard let (read, _) = h.read(in: h.send(a, hello(revoked))) else { return }
        h.on(.answered(read, .room(nil)))
        h.send(b, hello(kept))
        let (status, _, actions) = revoke(h, revoked, bearer: token("demo", .admin))
        #expect(status == 200)
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4401]], "only a's session ends")
        #expect(
            types(messages(to: b, in: h.send(b, #"{"type":"auth","token":"\#(kept)"}"#))).contains("error") == false)
        let api = HTTPRequest(method: .get, path: "/api/boards/demo", authorization: "Bearer \(kept)")
        #expect(responses(in: h.on(.request(ExchangeID(402), api))).map(\.1.status) != [401])
    }

    @Test func aRevocationMadeElsewhereClosesSessionsAtTheNextReloadOnceASecond() {
        let h = harness()
        let a = h.open(1)
        let revoked = token()
        guard let (read, _) = h.read(in: h.send(a, hello(revoked))) else { return }
        h.on(.answered(read, .room(nil)))
        guard let (reload, asked) = h.read(in: h.on(.tick)) else { return }
        #expect(asked == .revocations(now: start, .any))
        #expect(h.on(.tick).isEmpty, "one reload at a time")
        let nothing = h.on(.answered(reload, .revocations(RevocationSet())))
        #expect(closes(in: nothing).isEmpty)
        h.now = h.now + 999
        #expect(h.on(.tick).isEmpty, "not before a second has passed")
        h.now = h.now + 1
        guard let (again, _) = h.read(in: h.on(.tick)) else { return }
        let elsewhere = Revocation(
            id: TokenAuthority.revocationID(of: revoked), board: board("demo"), until: start + 3600)
        let closed = h.on(.answered(again, .revocations(RevocationSet([elsewhere]))))
        #expect(errorTexts(to: a, in: closed) == ["token revoked"])
        #expect(closes(in: closed).map(\.1) == [4401])
        // A failed reload keeps what is known.
        h.now = h.now + 1000
        guard let (failing, _) = h.read(in: h.on(.tick)) else { return }
        h.on(.answered(failing, .failed(StoreError("down"))))
        let b = h.open(2)
        #expect(closes(in: h.send(b, hello(revoked))).map(\.1) == [4401])
    }

    @Test func onlyAnAdminForTheTokensBoardMayRevokeIt() {
        let h = harness()
        let target = token("demo", .view)
        #expect(revoke(h, target, bearer: token("demo", .edit)).0 == 403)
        #expect(revoke(h, target, bearer: token("other", .admin)).0 == 403)
        #expect(revoke(h, token(nil, .view), bearer: token("demo", .admin)).0 == 403, "a * token needs a * admin")
        #expect(revoke(h, "v1.nope", bearer: token(nil, .admin)).0 == 400)
        #expect(revoke(h, target, bearer: "v1.nope").0 == 401)
        // An expired token is refused everywhere already: 200, and nothing is stored.
        let (status, _, actions) = revoke(h, token(life: -5), bearer: token("demo", .admin))
        #expect(status == 200 && !actions.contains { if case .read = $0 { true } else { false } })
        #expect(revoke(h, target, bearer: token(nil, .admin)).0 == 200)
        #expect(revoke(h, token(nil, .view), bearer: token(nil, .admin)).0 == 200)
        let bad = h.on(.request(x1, request(.post, bearer: token("demo", .admin), body: #"{"token":5}"#)))
        #expect(responses(in: bad).map(\.1.status) == [400])
    }

    @Test func theListShowsEachAdminWhatItMayRevokeAndNothingExpired() {
        let h = harness()
        let (demo, other, every) = (token("demo", .view), token("other", .view), token(nil, .view, life: 10))
        for (t, bearer) in [
            (demo, token("demo", .admin)), (other, token("other", .admin)), (every, token(nil, .admin)),
        ] {
            #expect(revoke(h, t, bearer: bearer).0 == 200)
        }
        func listed(_ bearer: String) -> [String] {
            let answer = responses(in: h.on(.request(x1, request(.get, bearer: bearer)))).first?.1
            let json = answer.flatMap { try? JSON.parse($0.body) }
            return json?["revocations"]?.arrayValue?.compactMap { $0["board"]?.stringValue } ?? []
        }
        #expect(Set(listed(token(nil, .admin))) == ["demo", "other", "*"])
        #expect(listed(token("demo", .admin)) == ["demo"])
        let refused = h.on(.request(x1, request(.get, bearer: token("demo", .edit))))
        #expect(responses(in: refused).map(\.1.status) == [403])
        h.wall = UnixTime(milliseconds: (start + 10) * 1000)
        #expect(Set(listed(token(nil, .admin))) == ["demo", "other"], "the * token would have expired by now")
    }

    @Test func theListOfRevocationsIsBounded() {
        let h = harness()
        for n in 0..<RevocationList.maximum {
            h.hub.access.made(Revocation(id: "\(n)", board: nil, until: start + 100))
        }
        let (status, body, _) = revoke(h, token(), bearer: token("demo", .admin))
        #expect(status == 507 && body.contains("too_many_revocations"))
        #expect(h.hub.meters.limitHits.value(.revocations) == 1)
    }

    @Test func withoutAccessControlThereAreNoRevocations() {
        let h = HubHarness()
        let actions = h.on(.request(x1, request(.post, bearer: "x", body: #"{"token":"x"}"#)))
        #expect(responses(in: actions).map(\.1.status) == [404])
        #expect(h.on(.tick).allSatisfy { if case .read = $0 { false } else { true } }, "and no reloads")
    }

    @Test func aReloadThatFindsTheSameRevocationsChangesNothing() {
        let ids = (0..<50).map { n in String(repeating: "\(n % 10)", count: 64) + "\(n)" }
        let list = ids.map { Revocation(id: $0, board: nil, until: start + 100) }
        var revocations = RevocationList(list)
        var moved = list
        moved[7].until += 1
        let fewer = Array(moved.dropLast())
        let changes = [
            revocations.loaded(RevocationSet(list.reversed()), nowSeconds: start),
            revocations.loaded(RevocationSet(moved), nowSeconds: start),
            revocations.loaded(RevocationSet(fewer), nowSeconds: start),
            revocations.loaded(RevocationSet(fewer), nowSeconds: start),
        ]
        #expect(changes == [false, true, true, false], "same in another order; one until moved; one fewer; same")
        #expect(revocations.inForce.count == 49)
    }

    @Test func aRevocationMadeHereOutlivesALoadThatRacedItsWrite() {
        var revocations = RevocationList()
        let here = Revocation(id: "here", board: nil, until: start + 100)
        revocations.made(here)
        let raced = revocations.loaded(RevocationSet(), nowSeconds: start)
        #expect(raced && revocations.inForce["here"] == here, "a load that does not show it yet keeps it")
        let shown = revocations.loaded(RevocationSet([here]), nowSeconds: start)
        #expect(shown && revocations.inForce["here"] == here, "the store shows it")
        let same = revocations.loaded(RevocationSet([here]), nowSeconds: start)
        #expect(!same, "and then nothing changes")
        let gone = revocations.loaded(RevocationSet(), nowSeconds: start + 100)
        #expect(gone && revocations.inForce.isEmpty, "expired and gone from the store")
    }
}
