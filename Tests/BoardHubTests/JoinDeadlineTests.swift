import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Every `hello` in a cluster ends (issue 29, finding 11): a session another node forwarded here
/// is never forwarded on (it goes back unanswered, and that node claims again), a forward closed
/// before any answer is tried again unless its code is final, and behind every rule a deadline
/// closes a `hello` that has had no answer four leases and two forward timeouts later. This node
/// is `a`, with 5 s leases and 3 s forward timeouts: the deadline is 26 s.
@Suite struct JoinDeadlineTests {
    static let lease: Int64 = 5_000
    static let deadline: Int64 = 4 * lease + 2 * 3_000
    let owner = "127.0.0.1:9002"

    func harness(clustered: Bool = true) -> HubHarness {
        HubHarness { if clustered { $0.cluster = ClusterSettings(node: "a", lease: .milliseconds(Self.lease)) } }
    }

    /// The one claim among `actions`: its read id.
    func claim(in actions: [Hub.Action], sourceLocation: SourceLocation = #_sourceLocation) -> ReadID? {
        let claims = actions.compactMap { action -> ReadID? in
            if case .read(let id, .claim) = action { id } else { nil }
        }
        #expect(claims.count == 1, "expected one claim in \(actions)", sourceLocation: sourceLocation)
        return claims.first
    }

    func forwards(in actions: [Hub.Action]) -> [ConnectionID] {
        actions.compactMap { if case .forward(let id, _, _) = $0 { id } else { nil } }
    }

    /// A session of `id` forwarded to node b, which owns the board.
    func forwardToB(_ h: HubHarness, _ id: ConnectionID) {
        guard let read = claim(in: h.hello(id)) else { return }
        #expect(forwards(in: h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))) == [id])
    }

    // MARK: The cause: a relayed hello passed on to nobody

    @Test func aRelayedHelloForABoardOwnedElsewhereGoesBackUnansweredInsteadOfOnward() {
        let h = harness()
        let r = ConnectionID(7)
        h.on(.opened(r, peer: "10.0.0.9", relayed: true))
        guard let read = claim(in: h.hello(r)) else { return }
        let actions = h.on(.answered(read, .elsewhere(node: "c", advertise: "127.0.0.1:9003")))
        #expect(forwards(in: actions).isEmpty, "never forwarded on: the transport relays only its own sockets")
        #expect(messages(to: r, in: actions).isEmpty, "unanswered, so that its node tries again")
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[7, 1012]])
    }

    @Test func aRelayedHelloThatArrivesWhileTheOwnerReleasesTheBoardGoesBackWhenAnotherNodeTookIt() {
        let h = harness()
        let x = h.open(1)
        guard let read = claim(in: h.hello(x)) else { return }
        h.on(.answered(read, .room(nil)))
        #expect(h.on(.closed(x)).contains(.release(board("demo"))), "its last client left: the lease goes")
        // A hello node c forwarded here while this node was still the owner, arriving now.
        let r = ConnectionID(7)
        h.on(.opened(r, peer: "10.0.0.9", relayed: true))
        #expect(h.hello(r).isEmpty, "it waits for the release")
        guard let again = claim(in: h.on(.released(board("demo")))) else { return }
        // Meanwhile node c claimed the free board itself.
        let actions = h.on(.answered(again, .elsewhere(node: "c", advertise: "127.0.0.1:9003")))
        #expect(forwards(in: actions).isEmpty)
        #expect(closes(in: actions).map(\.1) == [1012])
        // A direct client's hello in the same place is forwarded as ever.
        let d = h.open(2)
        guard let third = claim(in: h.hello(d)) else { return }
        #expect(forwards(in: h.on(.answered(third, .elsewhere(node: "c", advertise: "127.0.0.1:9003")))) == [d])
    }

    @Test func aForwardClosedBeforeAnyAnswerWithACodeAboutTheOwnerIsTriedAgain() {
        let h = harness()
        let a = h.open(1)
        forwardToB(h, a)
        // Node b sent it back (1012: not the owner any more) without a word.
        #expect(h.on(.forwardEnded(a, code: 1012, answered: false)).isEmpty)
        h.now = h.now + 250
        guard let read = claim(in: h.on(.tick)) else { return }
        #expect(types(messages(to: a, in: h.on(.answered(read, .room(nil))))) == ["welcome"])
    }

    @Test(arguments: [UInt16(4410), 4404, 1008, 1013])
    func aForwardClosedBeforeAnyAnswerWithACodeAboutTheClientEndsWithIt(_ code: UInt16) {
        let h = harness()
        let a = h.open(1)
        forwardToB(h, a)
        #expect(closes(in: h.on(.forwardEnded(a, code: code, answered: false))).map(\.1) == [code])
    }

    // MARK: The backstop

    @Test func aHelloTheStoreNeverAnswersIsClosedWith1013AtItsDeadline() {
        let h = harness()
        let a = h.open(1)
        let start = h.now
        _ = claim(in: h.hello(a))  // never answered
        h.now = start + (Self.deadline - 1)
        #expect(closes(in: h.on(.tick)).isEmpty)
        h.now = start + Self.deadline
        let ended = h.on(.tick)
        #expect(types(messages(to: a, in: ended)) == ["error:unavailable"])
        #expect(closes(in: ended).map(\.1) == [1013])
        #expect(h.hub.meters.limitHits.value(.joinDeadline) == 1)
        #expect(h.on(.tick).isEmpty, "once")
    }

    @Test func aForwardedHelloTheOwnerNeverAnswersIsClosedWith1013AtItsDeadline() {
        let h = harness()
        let a = h.open(1)
        let start = h.now
        forwardToB(h, a)
        h.now = start + (Self.deadline - 1)
        #expect(closes(in: h.on(.tick)).isEmpty)
        h.now = start + Self.deadline
        #expect(closes(in: h.on(.tick)).map(\.1) == [1013])
    }

    @Test func aHelloRetriedAfterFailedForwardsKeepsTheDeadlineOfItsFirstTry() {
        let h = harness()
        let a = h.open(1)
        let start = h.now
        forwardToB(h, a)
        var closed: [(ConnectionID, UInt16, Bool)] = []
        // The owner sends it back again and again; the node claims again and again.
        for _ in 0..<200 where closed.isEmpty {
            closed = closes(in: h.on(.forwardEnded(a, code: 1012, answered: false)))
            guard closed.isEmpty else { break }
            h.now = h.now + 2_000
            let actions = h.on(.tick)
            closed = closes(in: actions)
            guard closed.isEmpty, let read = claim(in: actions) else { break }
            h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))
        }
        #expect(closed.map(\.1) == [1013])
        #expect(h.now - start <= Self.deadline, "ended by the retries' own limit, or the deadline")
    }

    @Test func answeredAndJoinedSessionsAreNeverClosedByTheDeadline() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        let start = h.now
        forwardToB(h, a)
        h.on(.forwardAnswered(a))  // its welcome came from node b
        guard let read = claim(in: h.hello(b, board: "other")) else { return }
        #expect(types(messages(to: b, in: h.on(.answered(read, .room(nil))))) == ["welcome"])
        h.now = start + 10 * Self.deadline
        // The leases were renewed meanwhile, and node b is alive.
        h.on(.leases(held: [board("other")], validUntil: h.now + Self.lease, alive: ["a", "b"]))
        #expect(closes(in: h.on(.tick)).isEmpty)
        #expect(h.hub.connectionCount == 2)
    }

    @Test func oneNodeHasNoDeadline() {
        let h = harness(clustered: false)
        let a = h.open(1)
        #expect(h.read(in: h.hello(a)) != nil)
        h.now = h.now + 10 * Self.deadline
        #expect(closes(in: h.on(.tick)).isEmpty, "a single node's join waits for its store, which answers or fails")
    }
}
