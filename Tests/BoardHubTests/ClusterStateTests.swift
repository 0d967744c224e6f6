import BoardCore
import Testing

@testable import BoardHub

/// The cluster's waits (`ClusterState`), alone: releases, retries, join deadlines, relays.
@Suite struct ClusterStateTests {
    private let a = BoardID("a")!

    @Test func aReleaseIsOutUntilCarriedOut() {
        var state = ClusterState()
        let first = state.release(a)
        let again = state.release(a)
        #expect(first)
        #expect(!again, "asked once")
        #expect(state.isReleasing(a))
        let released = state.released(a)
        let releasedAgain = state.released(a)
        #expect(released)
        #expect(!state.isReleasing(a))
        #expect(!releasedAgain, "carried out once")
    }

    @Test func retriesComeInConnectionOrderUntilEnded() {
        var state = ClusterState()
        state.retry(ConnectionID(3))
        state.retry(ConnectionID(1))
        #expect(state.retries == [ConnectionID(1), ConnectionID(3)])
        state.endRetry(ConnectionID(1))
        #expect(state.retries == [ConnectionID(3)])
    }

    @Test func joinsPastTheirDeadlineAreLateOnce() {
        var state = ClusterState()
        state.awaitAnswer(ConnectionID(2), until: Instant(milliseconds: 100))
        state.awaitAnswer(ConnectionID(1), until: Instant(milliseconds: 100))
        state.awaitAnswer(ConnectionID(3), until: Instant(milliseconds: 200))
        state.answered(ConnectionID(1))
        let early = state.lateJoins(now: Instant(milliseconds: 99))
        let due = state.lateJoins(now: Instant(milliseconds: 100))
        let dueAgain = state.lateJoins(now: Instant(milliseconds: 100))
        let later = state.lateJoins(now: Instant(milliseconds: 500))
        #expect(early == [])
        #expect(due == [ConnectionID(2)])
        #expect(dueAgain == [], "late once")
        #expect(later == [ConnectionID(3)])
    }

    @Test func relaysEndWithAnAnswerOrTheirDeadline() {
        var state = ClusterState()
        let forward = HTTPForward(board: a, node: "n2", deadline: Instant(milliseconds: 100))
        state.relay(ExchangeID(2), forward)
        state.relay(ExchangeID(1), forward)
        state.relay(ExchangeID(3), HTTPForward(board: a, node: "n2", deadline: Instant(milliseconds: 300)))
        #expect(state.forwardCount == 3)
        let answered = state.relayEnded(ExchangeID(1))
        let answeredAgain = state.relayEnded(ExchangeID(1))
        #expect(answered?.node == "n2")
        #expect(answeredAgain == nil, "answered once")
        let late = state.lateRelays(now: Instant(milliseconds: 100))
        #expect(late.map(\.0) == [ExchangeID(2)])
        #expect(state.forwardCount == 1)
        let lateAgain = state.lateRelays(now: Instant(milliseconds: 100))
        #expect(lateAgain.isEmpty)
    }
}
