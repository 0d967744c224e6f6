import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Event streams end with their token (issue 29, finding 1: a stream opened with a token kept
/// reading the board after the token was revoked or had expired), and a stream's opening `reset`
/// is encoded off the service thread, once per seq for every stream opening meanwhile (finding 2).
@Suite struct StreamLifetimeTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let start: Int64 = 1_764_000_000
    let x1 = ExchangeID(501)
    let x2 = ExchangeID(502)
    let x3 = ExchangeID(503)

    func token(_ board: String? = "demo", _ role: Role = .view, life: Int64 = 3600, name: String? = nil) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: start + life, name: name))
    }

    /// A hub with access control and an editor on `demo` (so the board is in memory).
    func harness() -> (HubHarness, ConnectionID) {
        let h = HubHarness { $0.auth = authority }
        let c = h.open(1)
        let actions = h.send(c, #"{"type":"hello","board":"demo","name":"Ed","token":"\#(token("demo", .edit))"}"#)
        if let (read, _) = h.read(in: actions) { h.on(.answered(read, .room(nil))) }
        return (h, c)
    }

    func events(_ h: HubHarness, _ exchange: ExchangeID, token: String?, since: String? = "0") -> [Hub.Action] {
        var query: [String: String] = [:]
        if let token { query["token"] = token }
        if let since { query["since"] = since }
        return h.on(.request(exchange, HTTPRequest(method: .get, path: "/api/boards/demo/events", query: query)))
    }

    func streamed(to exchange: ExchangeID, in actions: [Hub.Action]) -> [StreamEvent] {
        actions.compactMap { action in
            if case .stream(let event, let to) = action, to.contains(exchange) { event } else { nil }
        }
    }

    func ended(in actions: [Hub.Action]) -> [ExchangeID] {
        actions.flatMap { action -> [ExchangeID] in if case .endStream(let ids) = action { ids } else { [] } }
    }

    /// Posts a revocation of `revoked` as the board's admin, answered as the store would.
    func revoke(_ h: HubHarness, _ revoked: String) -> [Hub.Action] {
        let request = HTTPRequest(
            method: .post, path: "/api/revocations", body: Array(#"{"token":"\#(revoked)"}"#.utf8),
            authorization: "Bearer \(token("demo", .admin))", contentType: "application/json")
        guard let (read, asked) = h.read(in: h.on(.request(ExchangeID(599), request))),
            case .revoke(let revocation, _, _) = asked
        else { return [] }
        return h.on(.answered(read, .revoked(revocation)))
    }

    @Test func aStreamEndsWithRevokedAsSoonAsItsTokenIsRevokedHere() {
        let (h, _) = harness()
        let (leaked, other) = (token(name: "leaked"), token(name: "other"))
        #expect(events(h, x1, token: leaked).contains { $0 == .openStream(x1) })
        #expect(events(h, x2, token: other).contains { $0 == .openStream(x2) })
        let actions = revoke(h, leaked)
        #expect(streamed(to: x1, in: actions) == [.revoked])
        #expect(ended(in: actions) == [x1], "the stream on another token goes on")
        #expect(
            String(decoding: StreamEvent.revoked.encoded(), as: UTF8.self)
                == "event: revoked\ndata: {\"reason\":\"token revoked\"}\n\n")
        // Ops go on to the other stream only; a new stream on the revoked token is refused.
        #expect(responses(in: events(h, x3, token: leaked)).map(\.1.status) == [401])
    }

    @Test func aStreamEndsWithRevokedAtTheReloadThatBringsAnotherNodesRevocation() {
        let (h, _) = harness()
        let leaked = token()
        _ = events(h, x1, token: leaked)
        guard let (reload, _) = h.read(in: h.on(.tick)) else { return }
        let elsewhere = Revocation(
            id: TokenAuthority.revocationID(of: leaked), board: board("demo"), until: start + 3600)
        let actions = h.on(.answered(reload, .revocations(RevocationSet([elsewhere]))))
        #expect(streamed(to: x1, in: actions) == [.revoked])
        #expect(ended(in: actions) == [x1])
        h.on(.streamEnded(x1))  // The transport's word comes after: nothing more happens.
        #expect(h.hub.streams.isEmpty)
    }

    @Test func aStreamEndsWithExpiredOnTheFirstTickAtItsTokensExpiry() {
        let (h, _) = harness()
        _ = events(h, x1, token: token(life: 4))
        _ = events(h, x2, token: token(life: 3600))
        h.wall = UnixTime(milliseconds: (start + 3) * 1000 + 999)
        #expect(ended(in: h.on(.tick)).isEmpty)
        h.wall = UnixTime(milliseconds: (start + 4) * 1000)
        let actions = h.on(.tick)
        #expect(streamed(to: x1, in: actions) == [.expired])
        #expect(ended(in: actions) == [x1])
        #expect(
            String(decoding: StreamEvent.expired.encoded(), as: UTF8.self)
                == "event: expired\ndata: {\"reason\":\"token expired\"}\n\n")
        #expect(h.hub.streams.exchanges == [x2])
    }

    @Test func aStreamWhoseTokenEndsBeforeItOpensIsAnswered401() {
        let h = HubHarness { $0.auth = authority }
        // The board is not in memory: the stream waits for its load.
        let waiting = events(h, x1, token: token(life: 2))
        guard let (read, _) = h.read(in: waiting) else { return }
        h.wall = UnixTime(milliseconds: (start + 2) * 1000)
        let actions = h.on(.tick)
        #expect(responses(in: actions).map { [$0.0.rawValue, UInt64($0.1.status)] } == [[x1.rawValue, 401]])
        let loaded = h.on(.answered(read, .room(nil)))
        #expect(!loaded.contains { $0 == .openStream(x1) })
    }

    @Test func withoutAccessControlNothingEnds() {
        let h = HubHarness()
        let c = h.open(1)
        h.joinNew(c)
        _ = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/demo/events", query: ["since": "0"])))
        h.wall = UnixTime(milliseconds: Int64.max / 2)
        #expect(ended(in: h.on(.tick)).isEmpty)
    }

    @Test func aResetIsEncodedOffTheServiceThreadOncePerSeqAndSharedByTheStreamsOpeningMeanwhile() {
        let (h, c) = harness()
        let first = events(h, x1, token: token(), since: nil)
        let encodes = first.compactMap { action -> StoreRead? in
            if case .read(_, let read) = action, case .encodeStreamReset = read { read } else { nil }
        }
        #expect(encodes == [.encodeStreamReset(h.hub.boards[board("demo")]!.room.published, seq: 0, .any)])
        #expect(!first.contains { $0 == .openStream(x1) }, "nothing is sent before the reset")
        let second = events(h, x2, token: token(), since: nil)
        #expect(!second.contains { if case .read = $0 { true } else { false } }, "one encode for both")
        // An op published while the reset is encoded follows it.
        h.send(c, #"{"type":"toggle","op":"w1","base":0,"item":"t1","on":true}"#)
        #expect(streamed(to: x1, in: h.makeDurable()).isEmpty)
        guard
            let (read, job) = first.compactMap({ a -> (ReadID, StoreRead)? in
                if case .read(let id, let r) = a { (id, r) } else { nil }
            }).first
        else { return }
        let answered = h.on(.answered(read, job.run(on: MemoryStore())))
        let bytes = StreamEvent.reset(Template.colors.board(id: board("demo")), seq: 0).encoded()
        for exchange in [x1, x2] {
            #expect(answered.contains { $0 == .openStream(exchange) })
            let got = streamed(to: exchange, in: answered)
            #expect(got.first == .opened)
            #expect(got.dropFirst().first == .encodedReset(seq: 0, bytes: bytes))
            guard case .ops(let ops)? = got.last else {
                Issue.record("expected the op after the reset, got \(got)")
                continue
            }
            #expect(ops.map(\.seq) == [1])
        }
        #expect(!answered.contains { if case .stream(.reset, _) = $0 { true } else { false } })
        // At the same seq, a third stream gets the same bytes at once, with no encode.
        h.send(c, #"{"type":"toggle","op":"w2","base":1,"item":"t1","on":false}"#)
        h.makeDurable()
        let third = h.encoding(events(h, x3, token: token(), since: nil))
        guard case .encodedReset(let seq, let fresh)? = streamed(to: x3, in: third).last else {
            Issue.record("expected a reset, got \(third)")
            return
        }
        #expect(seq == 2 && fresh != bytes)
        let fourth = events(h, ExchangeID(504), token: token(), since: nil)
        #expect(!fourth.contains { if case .read = $0 { true } else { false } })
        #expect(streamed(to: ExchangeID(504), in: fourth).last == .encodedReset(seq: 2, bytes: fresh))
    }

    @Test func aBoardWaitingForItsStreamsResetStaysInMemoryAndItsDeletionEndsThem() {
        let h = HubHarness()
        let c = h.open(1)
        h.joinNew(c)
        let asked = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/demo/events")))
        h.on(.closed(c))
        #expect(h.hub.boardCount == 1, "kept for the stream waiting for its reset")
        let deleted = h.on(.request(x2, HTTPRequest(method: .delete, path: "/api/boards/demo")))
        #expect(deleted.contains { $0 == .openStream(x1) })
        #expect(streamed(to: x1, in: deleted) == [.opened, .deleted(board("demo"))])
        #expect(ended(in: deleted) == [x1])
        // The encode's answer comes back to nothing.
        if let (read, job) = h.read(in: asked) {
            #expect(h.on(.answered(read, job.run(on: MemoryStore()))).isEmpty)
        }
    }

    @Test func aFailedEncodeOpensTheWaitingStreamsWithTheBoardEncodedHere() {
        let h = HubHarness()
        let c = h.open(1)
        h.joinNew(c)
        let asked = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/demo/events")))
        guard let (read, _) = h.read(in: asked) else { return }
        let answered = h.on(.answered(read, .failed(StoreError("no"))))
        #expect(answered.contains { $0 == .openStream(x1) })
        guard case .reset(_, let seq)? = streamed(to: x1, in: answered).last else {
            Issue.record("expected a reset, got \(answered)")
            return
        }
        #expect(seq == 0)
    }
}
