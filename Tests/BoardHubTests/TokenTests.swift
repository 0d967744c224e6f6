import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Tokens that end (Hub+Tokens.swift): a session closes at its token's expiry unless it sent a
/// fresh one with `auth`; a new role applies at once; a bad token changes nothing.
@Suite struct TokenTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    /// The harness's wall clock at the start, in seconds.
    let start: Int64 = 1_764_000_000

    func harness(auth: Bool = true, cluster: Bool = false) -> HubHarness {
        HubHarness {
            if auth { $0.auth = authority }
            if cluster { $0.cluster = ClusterSettings(node: "a", lease: .seconds(5)) }
        }
    }

    /// A token for `board` (nil: `*`) that expires `life` seconds after the start.
    func token(_ board: String? = "demo", _ role: Role = .edit, life: Int64) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: start + life))
    }

    func hello(_ token: String, board: String = "demo") -> String {
        #"{"type":"hello","board":"\#(board)","name":"Ada","token":"\#(token)"}"#
    }

    func auth(_ token: String) -> String { #"{"type":"auth","token":"\#(token)"}"# }

    /// Joins `id` to a new board with `token`.
    @discardableResult
    func join(_ h: HubHarness, _ id: ConnectionID, _ token: String) -> [Hub.Action] {
        guard let (read, _) = h.read(in: h.send(id, hello(token))) else { return [] }
        return h.on(.answered(read, .room(nil)))
    }

    /// Moves both clocks to `seconds` after the start and ticks.
    @discardableResult
    func tick(_ h: HubHarness, at seconds: Double) -> [Hub.Action] {
        let milliseconds = Int64(seconds * 1000)
        h.now = Instant(milliseconds: 1_000 + milliseconds)
        h.wall = UnixTime(milliseconds: start * 1000 + milliseconds)
        // The tick's reload of revocations (Hub+Revocations.swift) finds none.
        var actions: [Hub.Action] = []
        for action in h.on(.tick) {
            if case .read(let id, .revocations) = action {
                actions += h.on(.answered(id, .revocations(RevocationSet())))
            } else {
                actions.append(action)
            }
        }
        return actions
    }

    /// What `id` hears after sending the op `text`, once the op is durable.
    func opAnswer(_ h: HubHarness, _ id: ConnectionID, _ text: String) -> [String] {
        let sent = h.send(id, text)
        return types(messages(to: id, in: sent + h.makeDurable()))
    }

    func errorTexts(to id: ConnectionID, in actions: [Hub.Action]) -> [String] {
        messages(to: id, in: actions).compactMap { if case .error(let e) = $0 { e.message } else { nil } }
    }

    @Test func aSessionIsClosedWith4401AtItsTokensExpiryAndItsDragIsReleased() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        #expect(types(messages(to: a, in: join(h, a, token(life: 10)))) == ["welcome"])
        #expect(types(messages(to: b, in: h.send(b, hello(token(life: 100))))) == ["welcome"])
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        #expect(tick(h, at: 9.75).isEmpty, "a quarter of a second before its expiry, nothing")
        let expired = tick(h, at: 10)
        #expect(types(messages(to: a, in: expired)) == ["error:unauthorized"])
        #expect(errorTexts(to: a, in: expired) == ["token expired"])
        #expect(closes(in: expired).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4401]])
        #expect(closes(in: expired).first?.2 == true, "the error goes out before the close")
        #expect(types(messages(to: b, in: expired)) == ["drop:left", "leave"], "its hold ends as for any close")
        #expect(tick(h, at: 10.25).isEmpty, "closed once")
        h.on(.closed(a))
        #expect(
            types(messages(to: b, in: h.send(b, #"{"type":"dragStart","item":"t1"}"#))) == ["dragStart"], "t1 is free")
    }

    @Test func aRefreshBeforeExpiryIsAnsweredAndKeepsTheSessionUntilTheNewExpiry() {
        let h = harness()
        let a = h.open(1)
        join(h, a, token(life: 10))
        tick(h, at: 5)
        let answered = h.send(a, auth(token(life: 60)))
        #expect(messages(to: a, in: answered) == [.auth(role: "edit", expires: start + 60)])
        #expect(tick(h, at: 10).isEmpty && tick(h, at: 59.75).isEmpty, "the old expiry is gone")
        #expect(
            opAnswer(h, a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
                == ["toggle"])
        #expect(closes(in: tick(h, at: 60)).map(\.1) == [4401], "the new one holds")
    }

    @Test func aTokenForEveryBoardRefreshesToo() {
        let h = harness()
        let a = h.open(1)
        join(h, a, token(life: 10))
        #expect(
            messages(to: a, in: h.send(a, auth(token(nil, .admin, life: 30)))) == [
                .auth(role: "admin", expires: start + 30)
            ])
        #expect(tick(h, at: 20).isEmpty)
    }

    @Test func aViewTokenMakesOpsForbiddenAtOnceAndLetsGoOfTheHeldItem() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        join(h, a, token(life: 100))
        h.send(b, hello(token(life: 100)))
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        let downgraded = h.send(a, auth(token("demo", .view, life: 100)))
        #expect(messages(to: a, in: downgraded).last == .auth(role: "view", expires: start + 100))
        #expect(types(messages(to: b, in: downgraded)) == ["drop"], "a viewer holds nothing")
        let swap = #"{"type":"swap","op":"v1","base":0,"a":"t1","b":"t2"}"#
        #expect(types(messages(to: a, in: h.send(a, swap))) == ["reject:forbidden"])
        #expect(types(messages(to: a, in: h.send(a, #"{"type":"dragStart","item":"t2"}"#))) == ["reject:forbidden"])
        // And back: an edit token lets it edit again.
        h.send(a, auth(token("demo", .edit, life: 100)))
        #expect(opAnswer(h, a, swap) == ["swap"])
    }

    @Test(arguments: ["forged", "expired", "other board", "garbage"])
    func aBadRefreshIsUnauthorizedAndLeavesTheSessionOnItsOldToken(_ kind: String) {
        let h = harness()
        let a = h.open(1)
        join(h, a, token("demo", .edit, life: 10))
        let bad: String
        let reason: AuthFailure.Reason
        switch kind {
        case "forged":
            var chars = Array(token("demo", .admin, life: 100))
            chars[chars.count - 3] = chars[chars.count - 3] == "A" ? "B" : "A"
            (bad, reason) = (String(chars), .forged)
        case "expired": (bad, reason) = (token("demo", .admin, life: -1), .expired)
        case "other board": (bad, reason) = (token("other", .admin, life: 100), .otherBoard)
        default: (bad, reason) = ("v1.nope", .malformed)
        }
        let refused = h.send(a, auth(bad))
        #expect(types(messages(to: a, in: refused)) == ["error:unauthorized"], "\(kind)")
        #expect(closes(in: refused).isEmpty, "\(kind): the session stays")
        #expect(h.hub.meters.authFailures.value(AuthFailure(.auth, reason)) == 1, "\(kind)")
        #expect(
            opAnswer(h, a, #"{"type":"swap","op":"o1","base":0,"a":"t1","b":"t2"}"#)
                == ["swap"], "\(kind): still an editor")
        #expect(closes(in: tick(h, at: 10)).map(\.1) == [4401], "\(kind): the old expiry stands")
    }

    @Test func authBeforeHelloIsNotJoined() {
        let h = harness()
        let a = h.open(1)
        #expect(types(messages(to: a, in: h.send(a, auth(token(life: 10))))) == ["error:not_joined"])
    }

    @Test func aJoiningSessionExpiresAndARefreshWhileJoiningCounts() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        guard let (readA, _) = h.read(in: h.send(a, hello(token(life: 10)))) else { return }
        h.send(b, hello(token(life: 10)))
        #expect(messages(to: b, in: h.send(b, auth(token(life: 30)))) == [.auth(role: "edit", expires: start + 30)])
        let expired = tick(h, at: 10)
        #expect(closes(in: expired).map(\.0) == [a], "the board is still loading; the refreshed one stays")
        h.on(.closed(a))
        #expect(types(messages(to: b, in: h.on(.answered(readA, .room(nil))))) == ["welcome"])
        #expect(closes(in: tick(h, at: 30)).map(\.0) == [b])
    }

    @Test func withoutAccessControlAuthIsAnsweredAndNothingExpires() {
        let h = harness(auth: false)
        let a = h.open(1)
        h.joinNew(a)
        #expect(messages(to: a, in: h.send(a, auth("anything"))) == [.auth(role: "admin", expires: nil)])
        #expect(tick(h, at: 1e6).isEmpty)
    }

    @Test func aForwardedSessionIsItsOwnersToExpireAndAForwardCarriesTheFreshToken() {
        let h = harness(cluster: true)
        let a = h.open(1)
        let first = token(life: 10)
        guard let (read, _) = h.read(in: h.send(a, hello(first))) else { return }
        let fresh = token(life: 60)
        #expect(messages(to: a, in: h.send(a, auth(fresh))) == [.auth(role: "edit", expires: start + 60)])
        let forwarded = h.on(.answered(read, .elsewhere(node: "b", advertise: "127.0.0.1:9002")))
        let sent = forwarded.compactMap { if case .forward(_, _, let messages) = $0 { messages } else { nil } }
        #expect(sent == [[.hello(board: board("demo"), name: "Ada", since: nil, token: fresh)]])
        h.on(.forwardAnswered(a))  // its welcome came from the owner
        #expect(tick(h, at: 100).isEmpty, "the owner closes it, not this node")
        // The owner's 4401 is passed on.
        #expect(closes(in: h.on(.forwardEnded(a, code: 4401, answered: true))).map(\.1) == [4401])
    }
}
