import BoardCore
import BoardHub
import BoardStore
import Dispatch
import Synchronization
import TestSupport
import Testing

@testable import BoardServer

/// The reader thread: a read cancelled before its turn (its HTTP client went away) is never run,
/// so a client that asks for large pages and hangs up cannot keep the reader busy for nobody.
@Suite struct ReaderTests {
    /// A `MemoryStore` whose `exists` waits at a gate the test opens, and which counts the op
    /// pages it is asked for.
    final class GatedStore: DelegatingStore, Sendable {
        let inner = MemoryStore()
        let entered = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        let pagesRead = Mutex(0)

        func exists(_ id: BoardID) throws(StoreError) -> Bool {
            entered.signal()
            gate.wait()
            return try inner.exists(id)
        }

        func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
            pagesRead.withLock { $0 += 1 }
            return try inner.ops(of: id, since: since, limit: limit)
        }
    }

    @Test func aReadCancelledBeforeItsTurnIsNeverRun() throws {
        let store = GatedStore()
        let answered = Mutex<[UInt64]>([])
        let done = DispatchSemaphore(value: 0)
        let reader = Reader(store: store, name: "test-reader") { id, _ in
            answered.withLock { $0.append(id.rawValue) }
            done.signal()
        }
        reader.start()
        defer { reader.stop() }
        let board = try #require(BoardID("b1"))
        let page = { (since: Seq) in
            StoreRead.opsPage(
                OpsPageRequest(board: board, since: since, limit: 10, visible: nil, maxBytes: 1 << 20),
                Reply { _, _ in })
        }
        reader.submit(.exists(board, Reply { _, _ in }), id: ReadID(1))
        #expect(store.entered.wait(timeout: .now() + 10) == .success, "the first read is running")
        reader.submit(page(0), id: ReadID(2))
        reader.submit(page(1), id: ReadID(3))
        reader.cancel(ReadID(2))
        store.gate.signal()
        for _ in 0..<2 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(answered.withLock { $0 } == [1, 3])
        #expect(store.pagesRead.withLock { $0 } == 1, "the cancelled page was never read")
        reader.cancel(ReadID(1))  // Long done: nothing to cancel, and nothing kept for it.
    }
}
