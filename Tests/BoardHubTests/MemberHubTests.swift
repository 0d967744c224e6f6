import BoardAuth
import BoardCore
import Testing

@testable import BoardHub

/// Issue 32, who is who: `hello.member`, a token's `sub`, `member` on users and committed ops,
/// and `GET /api/boards/{id}/members`.
@Suite struct MemberHubTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])

    func welcome(_ c: ConnectionID, in actions: [Hub.Action]) -> ServerMessage.Welcome? {
        for message in messages(to: c, in: actions) { if case .welcome(let w) = message { return w } }
        return nil
    }

    func committed(to c: ConnectionID, in actions: [Hub.Action]) -> [CommittedOp] {
        messages(to: c, in: actions).compactMap { if case .committed(let op) = $0 { op } else { nil } }
    }

    func members(_ h: HubHarness, bearer: String? = nil) throws -> JSON? {
        let request = HTTPRequest(
            method: .get, path: "/api/boards/demo/members", authorization: bearer.map { "Bearer " + $0 })
        let actions = h.on(.request(ExchangeID(77), request))
        guard let answer = responses(in: actions).first?.1, answer.status == 200 else { return nil }
        return try JSON.parse(answer.body)
    }

    @Test func helloMemberIsEveryonesNameForThePersonAndRidesOnEachOp() throws {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        let actions = h.send(ada, #"{"type":"hello","board":"demo","name":"Ada","member":"ada-laptop"}"#)
        guard let (read, _) = h.read(in: actions) else { return }
        let joined = h.on(.answered(read, .room(nil)))
        #expect(welcome(ada, in: joined)?.users.map(\.member.rawValue) == ["ada-laptop"])
        // Without a member, the user id stands for one.
        let boJoined = h.hello(bo, name: "Bo")
        #expect(welcome(bo, in: boJoined)?.users.map(\.member.rawValue) == ["ada-laptop", "u2"])
        let join = messages(to: ada, in: boJoined).compactMap { if case .join(let u) = $0 { u } else { nil } }
        #expect(join.map(\.member.rawValue) == ["u2"])
        // A committed op carries its author's member, in the broadcast and in its JSON.
        h.send(ada, #"{"type":"assign","op":"a1","base":0,"item":"t1","add":[{"member":"bo","name":"Bo"}]}"#)
        let ops = committed(to: bo, in: h.makeDurable())
        #expect(ops.map(\.member?.rawValue) == ["ada-laptop"])
        let text = String(decoding: ServerMessage.committed(ops[0]).encoded(), as: UTF8.self)
        #expect(text.contains(#""by":"u1","member":"ada-laptop""#))
        // The members list: who committed (newest first), then who is only assigned.
        let list = try #require(try members(h))
        let entries = try #require(list["members"]?.arrayValue)
        #expect(entries.map { $0["member"]?.stringValue } == ["ada-laptop", "bo"])
        #expect(entries.map { $0["name"]?.stringValue } == ["Ada", "Bo"])
        #expect(entries[0]["last"]?.intValue == Int(h.wall.milliseconds))
        #expect(entries[1]["last"]?.isNull == true)
    }

    @Test func aTokensSubWinsAndWithTokensOnAHelloCannotClaimAMember() throws {
        let h = HubHarness { $0.auth = authority }
        let ada = h.open(1)
        let mallory = h.open(2)
        let adaToken = authority.mint(
            Claims(board: BoardID("demo"), role: .edit, expires: 4_000_000_000, member: MemberID("ada")))
        let text = #"{"type":"hello","board":"demo","name":"Ada","member":"someone","token":"\#(adaToken)"}"#
        guard let (read, _) = h.read(in: h.send(ada, text)) else { return }
        #expect(welcome(ada, in: h.on(.answered(read, .room(nil))))?.users.map(\.member.rawValue) == ["ada"])
        // A token without `sub`: the hello's member is not taken, the user id stands instead.
        let plain = authority.mint(Claims(board: BoardID("demo"), role: .edit, expires: 4_000_000_000))
        let claim = #"{"type":"hello","board":"demo","name":"M","member":"ada","token":"\#(plain)"}"#
        #expect(welcome(mallory, in: h.send(mallory, claim))?.users.map(\.member.rawValue) == ["ada", "u2"])
        // A view token reads the members list.
        let viewer = authority.mint(Claims(board: BoardID("demo"), role: .view, expires: 4_000_000_000))
        #expect(try members(h, bearer: viewer)?["members"]?.arrayValue?.isEmpty == true)
        // A view token's content ops are forbidden.
        let watcher = h.open(3)
        h.send(watcher, #"{"type":"hello","board":"demo","name":"W","token":"\#(viewer)"}"#)
        let refused = h.send(watcher, #"{"type":"tag","op":"t1","base":0,"item":"t1","add":["g1"]}"#)
        #expect(types(messages(to: watcher, in: refused)) == ["reject:forbidden"])
    }

    @Test func aTokensSubRoundTrips() {
        let token = authority.mint(Claims(board: nil, role: .view, expires: 4_000_000_000, member: MemberID("ann-1")))
        guard case .success(let claims) = authority.verify(token, now: 1) else {
            Issue.record("not verified")
            return
        }
        #expect(claims.member == MemberID("ann-1"))
    }
}
