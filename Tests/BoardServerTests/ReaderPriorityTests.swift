import BoardCore
import BoardHub
import BoardStore
import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import BoardServer

/// The reader runs the reads joins wait for before every other read queued (issue 29, finding 3):
/// a `hello` for a stored board waits at most for the one read in progress, however many `?at=`
/// reads are queued ahead of it.
@Suite struct ReaderPriorityTests {
    /// A `MemoryStore` whose `board(_:at:)` waits at a gate the test opens (the first time).
    final class GatedStore: DelegatingStore, Sendable {
        let inner = MemoryStore()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let gated = Atomic<Bool>(true)

        func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf {
            if gated.exchange(false, ordering: .relaxed) {
                entered.signal()
                gate.wait()
            }
            return try inner.board(id, at: seq)
        }
    }

    @Test func aJoinsReadRunsBeforeTheHistoryReadsQueuedAheadOfIt() throws {
        let store = GatedStore()
        let board = try #require(BoardID("b1"))
        try store.write([.create(.defaultTemplate(id: board))])
        let answered = Mutex<[UInt64]>([])
        let done = DispatchSemaphore(value: 0)
        let reader = Reader(store: store, name: "test-reader") { id, _ in
            answered.withLock { $0.append(id.rawValue) }
            done.signal()
        }
        reader.start()
        defer { reader.stop() }
        let at = StoreRead.boardAtAnswer(BoardAtRequest(board: board, seq: 0, visible: nil), Reply { _, _ in })
        reader.submit(at, id: ReadID(1))
        #expect(store.entered.wait(timeout: .now() + 10) == .success, "the first ?at= read is running")
        for n in 2...21 { reader.submit(at, id: ReadID(UInt64(n))) }
        reader.submit(.load(board, Room.Settings(), Reply { _, _ in }), id: ReadID(100))
        reader.submit(.exists(board, Reply { _, _ in }), id: ReadID(101))
        store.gate.signal()
        for _ in 0..<23 { #expect(done.wait(timeout: .now() + 10) == .success) }
        let order = answered.withLock { $0 }
        // The read in progress, then the join's reads in their order, then the rest in theirs.
        #expect(order == [1, 100, 101] + (2...21).map(UInt64.init))
    }
}
