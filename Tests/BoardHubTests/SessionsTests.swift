import BoardAuth
import BoardCore
import Testing

@testable import BoardHub

/// `Sessions` alone, without the hub: a session's phases (awaiting `hello`, joining, joined,
/// forwarded, closing) and what each makes of a message; the `hello` deadline; the queue before
/// `welcome`, the rates and strikes, a full board; closing; and the sessions a token's end or a
/// lost node touches. Each decision is read as the value `Sessions` returns.
@Suite struct SessionsTests {
    let demo = board("demo")
    let t0 = Instant(milliseconds: 1_000_000)
    let c1 = ConnectionID(1)
    let c2 = ConnectionID(2)
    let c3 = ConnectionID(3)

    func machine(_ change: (inout Hub.Config) -> Void = { _ in }) -> Sessions {
        var config = Hub.Config()
        change(&config)
        return Sessions(config: config)
    }

    func hello(_ name: String = "Ann") -> ClientMessage {
        .hello(board: demo, name: name, since: nil, token: nil, member: nil)
    }

    func op(_ id: String) -> ClientMessage {
        .op(OpRequest(opID: OpID(id)!, base: 0, op: .toggle(item: ItemID("t1")!, on: true)))
    }

    /// What a `Received` comes to, as text (a `Session` in it is named by its connection).
    func describe(_ received: Sessions.Received) -> String {
        switch received {
        case .ignored: "ignored"
        case .queued: "queued"
        case .answer(.pong): "pong"
        case .answer(.error(let error)): "error:\(error.code.rawValue)"
        case .answer(let message): "answer:\(message)"
        case .malformed(let error): "malformed:\(error.code.rawValue)"
        case .act(let actions): "act:\(actions.count)"
        case .hello(let session, let hello): "hello:\(session.id):\(hello.board):\(hello.name)"
        case .auth(let session, let token, let board): "auth:\(session.id):\(token):\(board)"
        case .board(let session, let message, let board, let user):
            "board:\(session.id):\(board):\(user):\(message == .ping ? "ping" : "message")"
        }
    }

    func receive(_ s: Sessions, _ message: ClientMessage, on id: ConnectionID, at now: Instant? = nil) -> String {
        describe(s.received(.success(message), on: id, now: now ?? t0, stalled: 0))
    }

    func actions(_ received: Sessions.Received) -> [Sessions.Action] {
        if case .act(let actions) = received { actions } else { [] }
    }

    /// Opens `id` and takes it through `hello` to joining `demo`.
    @discardableResult
    func joining(_ s: Sessions, _ id: ConnectionID, name: String = "Ann") -> Session {
        let session = s.open(id, peer: "10.0.0.1", relayed: false, now: t0, stalled: 0)
        s.awaitHello(id, since: t0)
        guard case .hello(_, let hello) = s.received(.success(self.hello(name)), on: id, now: t0, stalled: 0) else {
            Issue.record("no hello")
            return session
        }
        s.beginJoin(session, s.signIn(session, hello, claims: Claims(board: nil, role: .edit, expires: .max)))
        return session
    }

    /// Opens `id` and puts it on `demo`: its user.
    @discardableResult
    func joined(_ s: Sessions, _ id: ConnectionID) -> UserID? {
        let session = joining(s, id)
        guard case .joined(let user, _) = s.seat(session, boardUsers: 0) else { return nil }
        return user.id
    }

    @Test func aSessionSaysHelloJoinsItsBoardAndThenItsMessagesGoToTheBoard() {
        let s = machine()
        let session = s.open(c1, peer: "10.0.0.1", relayed: false, now: t0, stalled: 0)
        s.awaitHello(c1, since: t0)
        #expect(receive(s, .ping, on: c1) == "pong")
        #expect(receive(s, op("a-1"), on: c1) == "error:not_joined", "hello first")
        #expect(receive(s, .auth(token: "T"), on: c1) == "error:not_joined")
        let bad = s.received(.failure(ProtocolError(.badJSON, "not JSON")), on: c1, now: t0, stalled: 0)
        #expect(describe(bad) == "malformed:bad_json", "answered; the connection stays")
        let received = s.received(.success(hello()), on: c1, now: t0, stalled: 0)
        #expect(describe(received) == "hello:\(c1):demo:Ann")
        guard case .hello(_, let said) = received else { return }
        let join = s.signIn(session, said, claims: Claims(board: nil, role: .edit, expires: .max, name: "Ann B"))
        #expect(session.role == .edit && join.name == "Ann B" && join.board == demo, "the claims' role and name")
        #expect(s.expireHellos(now: t0 + 60_000).isEmpty, "it said hello: no deadline any more")
        s.beginJoin(session, join)
        #expect(s.joining(c1)?.join.board == demo && session.seat == nil)
        #expect(receive(s, .auth(token: "T"), on: c1) == "auth:\(c1):T:demo")
        guard case .joined(let user, _) = s.seat(session, boardUsers: 0) else {
            Issue.record("not joined")
            return
        }
        #expect(user.id == UserID(number: 1) && user.name == "Ann B")
        #expect(session.seat?.board == demo && session.seat?.user == user.id && s.joining(c1) == nil)
        #expect(receive(s, op("a-1"), on: c1) == "board:\(c1):demo:\(user.id):message", "the per-op path")
        #expect(receive(s, .ping, on: c1) == "pong")
        #expect(receive(s, hello(), on: c1) == "error:already_joined")
        #expect(receive(s, .auth(token: "T2"), on: c1) == "auth:\(c1):T2:demo")
        #expect(joined(s, c2) == UserID(number: 2), "users are numbered in order")
    }

    @Test func aConnectionWithoutHelloInTimeIsRefusedWith4408OnceAndOnlyIt() {
        let s = machine { $0.helloTimeout = .seconds(10) }
        _ = s.open(c1, peer: "10.0.0.1", relayed: false, now: t0, stalled: 0)
        s.awaitHello(c1, since: t0)
        _ = s.open(c2, peer: "10.0.0.2", relayed: false, now: t0, stalled: 0)
        s.awaitHello(c2, since: t0 + 5_000)
        joining(s, c3)  // Said hello at once.
        #expect(s.expireHellos(now: t0 + 9_999).isEmpty)
        #expect(
            s.expireHellos(now: t0 + 10_000) == [
                .limitHit(.helloTimeout), .log(.debug, "\(c1) from 10.0.0.1 sent no hello in time"),
                .refuse(c1, ProtocolError(.notJoined, "no hello within 10 s"), code: 4408, reason: "no hello"),
            ])
        #expect(s.expireHellos(now: t0 + 10_001).isEmpty, "refused once: it no longer waits")
        #expect(s.close(c2) != nil)
        #expect(s.expireHellos(now: t0 + 20_000).isEmpty, "a closing connection is not refused again")
    }

    @Test func messagesBeforeWelcomeWaitInOrderUpToTheLimitThenTheConnectionCloses1008() {
        let s = machine { $0.maxMessagesWhileJoining = 2 }
        let session = joining(s, c1)
        #expect(receive(s, op("a-1"), on: c1) == "queued")
        #expect(receive(s, hello(), on: c1) == "error:already_joined", "not queued")
        #expect(receive(s, .ping, on: c1) == "pong", "answered at once")
        #expect(receive(s, op("a-2"), on: c1) == "queued")
        #expect(
            actions(s.received(.success(op("a-3")), on: c1, now: t0, stalled: 0)) == [
                .limitHit(.joiningQueue),
                .log(.warning, "\(c1) from 10.0.0.1 sent too much before its board loaded; closing with 1008"),
                .close(c1, code: 1008, reason: "too many messages before welcome", flush: false),
            ])
        guard case .joined(_, let join) = s.seat(session, boardUsers: 0) else {
            Issue.record("not joined")
            return
        }
        #expect(join.queued == [op("a-1"), op("a-2")], "handed back in order once on the board")
    }

    @Test func opsAndOtherMessagesHaveRatesOfTheirOwnAndAConnectionOutOfStrikesCloses1008() {
        let s = machine {
            $0.opRate = Rate(perSecond: 1, burst: 2)
            $0.strikeRate = Rate(perSecond: 1, burst: 2)
        }
        joined(s, c1)
        #expect(receive(s, op("a-1"), on: c1).hasPrefix("board:"))
        #expect(receive(s, op("a-2"), on: c1).hasPrefix("board:"))
        let refused = ProtocolError(.rateLimited, "too many ops; slow down", opID: "a-3")
        #expect(
            actions(s.received(.success(op("a-3")), on: c1, now: t0, stalled: 0)) == [
                .rateLimited(.op), .log(.warning, "\(c1) from 10.0.0.1 sends ops faster than its limit; refusing them"),
                .send(c1, .error(refused)),
            ])
        #expect(receive(s, .ping, on: c1) == "pong", "messages have their own bucket")
        let again = ProtocolError(.rateLimited, "too many ops; slow down", opID: "a-4")
        #expect(
            actions(s.received(.success(op("a-4")), on: c1, now: t0, stalled: 0)) == [
                .rateLimited(.op), .send(c1, .error(again)),
            ], "logged once")
        #expect(
            actions(s.received(.success(op("a-5")), on: c1, now: t0, stalled: 0)) == [
                .rateLimited(.op), .limitHit(.rateStrikes),
                .log(.warning, "\(c1) from 10.0.0.1 keeps going over its rate limits; closing with 1008"),
                .close(c1, code: 1008, reason: "rate limit exceeded", flush: false),
            ])
        joined(s, c2)
        #expect(receive(s, op("b-1"), on: c2).hasPrefix("board:"), "every connection has its own buckets")
        #expect(receive(s, op("a-6"), on: c1, at: t0 + 1_000).hasPrefix("board:"), "tokens come back")
    }

    @Test func aFullBoardRefusesTheJoinWith4409() {
        let s = machine { $0.maxUsersPerBoard = 2 }
        let session = joining(s, c1)
        guard case .refused(let actions) = s.seat(session, boardUsers: 2) else {
            Issue.record("not refused")
            return
        }
        #expect(
            actions == [
                .limitHit(.usersPerBoard), .log(.warning, "\(c1) from 10.0.0.1 asked for board demo, which is full"),
                .refuse(
                    c1, ProtocolError(.boardFull, "board demo has 2 users, its most"), code: 4409, reason: "board full"),
            ])
        guard case .joined = s.seat(session, boardUsers: 1) else {
            Issue.record("not joined")
            return
        }
        guard case .notJoining = s.seat(session, boardUsers: 0) else {
            Issue.record("joined twice")
            return
        }
    }

    @Test func aJoinThatCannotHaveItsBoardIsToldWhyAndADeletedBoardCloses4410() {
        let s = machine()
        joining(s, c1)
        #expect(
            s.failJoin(c1, .unknown) == [
                .refuse(c1, ProtocolError(.unknownBoard, "there is no board demo"), code: 4404, reason: "unknown board")
            ])
        #expect(
            s.failJoin(c1, .unavailable) == [
                .refuse(
                    c1, ProtocolError(.unavailable, "board demo cannot be loaded right now"), code: 1011,
                    reason: "board unavailable")
            ])
        #expect(s.failJoin(c1, .deleted) == [.close(c1, code: 4410, reason: "board deleted", flush: true)])
        joined(s, c2)
        #expect(s.failJoin(c2, .unknown).isEmpty, "only a joining session")
    }

    @Test func aClosingSessionIsDeafAndClosesOnceAndLeavesWhatItWasOn() {
        let s = machine()
        let user = joined(s, c1)
        guard case .joined(let board, let was)? = s.close(c1) else {
            Issue.record("not closed from joined")
            return
        }
        #expect(board == demo && was == user, "the hub takes it off its board")
        #expect(s.close(c1) == nil, "once")
        #expect(receive(s, op("a-1"), on: c1) == "ignored")
        #expect(receive(s, .ping, on: c1) == "ignored")
        #expect(s.count == 1 && s.remove(c1)?.id == c1 && s.isEmpty && s.remove(c1) == nil)
        #expect(s.close(c1) == nil && receive(s, .ping, on: c1) == "ignored", "gone")
    }

    @Test func aForwardedSessionIsItsOwnersUntilItsForwardFailsAndItWaitsHereAgain() {
        let s = machine()
        let session = joining(s, c1)
        #expect(receive(s, op("a-1"), on: c1) == "queued")
        s.forward(session, to: "n2")
        #expect(receive(s, op("a-2"), on: c1) == "ignored", "relayed by the transport")
        #expect(s.forwards(toNodesNotIn: ["n2"]).isEmpty)
        #expect(s.forwards(toNodesNotIn: ["n3"]).map { $0.id } == [c1])
        #expect(s.waiting(c1)?.board == demo && s.joining(c1) == nil)
        guard let forwarded = s.forwarded(c1) else {
            Issue.record("not forwarded")
            return
        }
        var join = forwarded.join
        #expect(forwarded.node == "n2" && join.queued == [op("a-1")])
        join.queued.append(op("a-2"))
        s.rejoin(session, join)
        #expect(s.forwarded(c1) == nil && s.joining(c1)?.join.queued == [op("a-1"), op("a-2")])
        #expect(receive(s, op("a-3"), on: c1) == "queued")
    }

    @Test func aNewTokenGoesIntoAJoiningSessionsHelloAndTokensEndOnlyForSessionsJoiningOrOnABoard() {
        let s = machine()
        _ = s.open(c1, peer: "10.0.0.1", relayed: false, now: t0, stalled: 0)
        let joiningSession = joining(s, c2)
        joined(s, c3)
        s.adopt(joiningSession, role: .view, expires: 99, token: "T2", id: "r2")
        #expect(joiningSession.role == .view && joiningSession.token?.id == "r2" && joiningSession.token?.expires == 99)
        #expect(
            s.joining(c2)?.join.hello == .hello(board: demo, name: "Ann", since: nil, token: "T2", member: nil),
            "a forward carries the fresh token")
        #expect(s.ending { _ in true } == [c2, c3], "not one awaiting hello")
        #expect(s.ending { $0?.id == "r2" } == [c2])
        _ = s.close(c3)
        #expect(s.ending { _ in true } == [c2], "not one closing")
    }
}
