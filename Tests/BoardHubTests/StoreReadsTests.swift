import BoardCore
import BoardMetrics
import BoardStore
import Testing

@testable import BoardHub

/// `StoreReads` alone, without the hub: each read asked once, a history read counted against its
/// client address until it is answered or abandoned, and a write that goes on without its client.
@Suite struct StoreReadsTests {
    let x1 = ExchangeID(601)
    let demo = BoardID("demo")!

    @Test func aHistoryReadCountsAgainstItsAddressUntilItIsAnsweredOrAbandoned() {
        let turn = Turn(Hub.Config(), meters: HubMeters(Metrics()))
        _ = turn.begin(now: Instant(milliseconds: 1_000), wall: UnixTime(milliseconds: 1_764_000_000_000))
        let reads = StoreReads(turn: turn)
        let exists = StoreRead.exists(demo, Reply { _, _ in })
        let first = reads.ask(exists, for: x1, historyOf: "10.0.0.1")
        let second = reads.ask(exists, historyOf: "10.0.0.1")
        reads.ask(exists, historyOf: "10.0.0.2")
        reads.ask(exists, for: x1)
        #expect(reads.historyCount == 3)
        #expect(reads.historyReads(from: "10.0.0.1") == 2 && reads.historyReads(from: "10.0.0.2") == 1)
        #expect(turn.take().count { if case .read = $0 { true } else { false } } == 4)

        #expect(reads.answered(second))
        #expect(!reads.answered(second), "answered once")
        #expect(reads.historyReads(from: "10.0.0.1") == 1)
        #expect(reads.abandon(x1) == 2, "the two asked for x1")
        #expect(reads.historyReads(from: "10.0.0.1") == 0 && reads.historyCount == 1)
        #expect(!reads.answered(first), "cancelled: nobody wants it")

        let write = reads.ask(.revoke(Revocation(id: "r1", board: demo, until: 2), now: 1, Reply { _, _ in }), for: x1)
        #expect(reads.abandon(x1) == 0, "a write goes on without its client")
        #expect(reads.answered(write))
    }
}
