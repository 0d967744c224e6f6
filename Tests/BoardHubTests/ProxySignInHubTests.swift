import BoardAuth
import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Sign-in through a trusted proxy in the hub (Hub+Proxy.swift, Hub+Grants.swift), event by
/// event: a proxied upgrade's `hello` needs no token and joins as the member under the proxy's
/// name; the same header from an untrusted address, or bad bytes from the trusted one, get 4401;
/// a grant made over the API reaches the live session at once (`auth`, then `forbidden`), and
/// taking it back gives the default role again. Store reads run against one `MemoryStore`.
@Suite struct ProxySignInHubTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let store = MemoryStore()

    func harness() -> HubHarness {
        HubHarness {
            $0.auth = authority
            $0.proxy = ProxyAuth(header: "x-forwarded-user", trusted: [try! CIDR.parse("10.0.0.0/24").get()])
        }
    }

    func open(_ h: HubHarness, _ n: UInt64, from peer: String, user: String?) -> ConnectionID {
        let id = ConnectionID(n)
        h.on(
            .opened(
                id, peer: peer, proxy: ProxyHeaders(socketPeer: peer, user: user.map { Array($0.utf8) }, name: nil)))
        return id
    }

    /// `hello` without a token, its board's load answered from the store.
    func join(_ h: HubHarness, _ id: ConnectionID) -> [Hub.Action] {
        let actions = h.hello(id, name: "typed")
        guard
            let (read, asked) = actions.compactMap({ a -> (ReadID, StoreRead)? in
                if case .read(let r, let q) = a { (r, q) } else { nil }
            }).first
        else { return actions }
        return h.on(.answered(read, asked.run(on: store)))
    }

    func call(_ h: HubHarness, _ method: HTTPRequest.Method, _ path: String, body: String = "") -> Int {
        let admin = authority.mint(Claims(board: BoardID("demo"), role: .admin, expires: 1_764_000_000 + 3600))
        var actions = h.on(
            .request(
                ExchangeID(7),
                HTTPRequest(
                    method: method, path: path, body: Array(body.utf8), authorization: "Bearer \(admin)",
                    contentType: "application/json")))
        for _ in 0..<4 {
            if let (_, answer) = responses(in: actions).first { return answer.status }
            guard let (read, asked) = h.read(in: actions) else { break }
            actions = h.on(.answered(read, asked.run(on: store)))
        }
        return 0
    }

    @Test func aProxiedHelloJoinsAsTheMemberAndOnlyFromTheProxy() throws {
        let h = harness()
        let alice = open(h, 1, from: "10.0.0.5", user: "alice")
        let joined = messages(to: alice, in: join(h, alice))
        guard case .welcome(let welcome)? = joined.first else {
            Issue.record("no welcome: \(joined)")
            return
        }
        let me = try #require(welcome.users.first { $0.id == welcome.you })
        #expect(me.name == "alice" && me.member == MemberID("alice"), "the proxy's name, not hello's")
        let spoofed = open(h, 2, from: "10.0.1.5", user: "alice")
        let refused = h.hello(spoofed)
        #expect(types(messages(to: spoofed, in: refused)) == ["error:unauthorized"])
        #expect(refused.contains { if case .close(spoofed, 4401, _, _) = $0 { true } else { false } })
        let bad = open(h, 3, from: "10.0.0.5", user: "not valid")
        let badActions = h.hello(bad)
        #expect(badActions.contains { if case .close(bad, 4401, _, _) = $0 { true } else { false } })
        #expect(h.hub.meters.authFailures.value(AuthFailure(.hello, .proxyHeader)) == 1)
    }

    @Test func aGrantReachesTheLiveSessionAtOnce() {
        let h = harness()
        let alice = open(h, 1, from: "10.0.0.5", user: "alice")
        _ = join(h, alice)
        h.send(alice, #"{"type":"toggle","op":"a1","base":0,"item":"t1","on":true}"#)
        #expect(types(messages(to: alice, in: h.makeDurable())) == ["toggle"], "the board is stored now")
        #expect(call(h, .put, "/api/boards/demo/members/alice", body: #"{"role":"view"}"#) == 200)
        #expect(h.hub.sessions[alice]?.role == .view)
        let told = h.send(alice, #"{"type":"toggle","op":"a2","base":1,"item":"t1","on":false}"#)
        #expect(types(messages(to: alice, in: told)) == ["reject:forbidden"])
        #expect(call(h, .delete, "/api/boards/demo/members/alice") == 200)
        #expect(h.hub.sessions[alice]?.role == .edit, "the proxy's default again")
        #expect(call(h, .delete, "/api/boards/demo/members/alice") == 404)
        #expect(call(h, .put, "/api/boards/demo/members/b b", body: #"{"role":"view"}"#) == 400)
        #expect(call(h, .put, "/api/boards/demo/members/bob", body: #"{"role":"owner"}"#) == 400)
    }
}
