import BoardCore
import BoardHub
import BoardStore
import Dispatch
import Foundation
import Glibc
import Synchronization
import TestSupport
import Testing

@testable import BoardServer

/// The writer threads of a store with several writers (`BoardStore.writerCount`, PostgreSQL's
/// `--store-writers`): each board's writes and lease releases go to its writer's thread, in
/// order, and one writer's slow commit does not hold another's boards back.
@Suite struct PersisterWritersTests {
    static let boards = ["w0a", "w1a", "w2a", "w0b", "w1b", "w2b"].map { BoardID($0)! }

    /// A `MemoryStore` with three writers, the board's writer named by its id (`w1…`: writer 1);
    /// it records each batch with its thread, and a write of a board in `held` waits until it is
    /// let go.
    final class ThreeWriters: DelegatingStore {
        let inner = MemoryStore()
        /// Each batch written, with the thread that wrote it.
        let batches = Mutex<[(thread: UInt, boards: Set<BoardID>)]>([])
        let held = Mutex<Set<BoardID>>([])
        let holding = DispatchSemaphore(value: 0)
        let letGo = DispatchSemaphore(value: 0)

        var writesNeverWait: Bool { false }
        var writerCount: Int { 3 }
        func writer(of id: BoardID) -> Int { Int(String(id.rawValue.dropFirst().prefix(1))) ?? 0 }

        func write(_ batch: [StoreWrite]) throws(StoreError) {
            let boards = Set(batch.map(\.boardID))
            batches.withLock { $0.append((UInt(pthread_self()), boards)) }
            if !held.withLock({ $0.isDisjoint(with: boards) }) {
                holding.signal()
                letGo.wait()
            }
            try inner.write(batch)
        }
    }

    static func ops(_ seqs: ClosedRange<Int>) -> [CommittedOp] {
        seqs.map { seq in
            CommittedOp(
                seq: seq, opID: OpID("op-\(seq)")!, by: UserID(number: 1),
                op: .toggle(item: ItemID("t1")!, on: seq % 2 == 1), time: UnixTime(milliseconds: 0))
        }
    }

    @Test func eachWriterHasAThreadAndABoardsWritesAndReleaseStayInOrderOnIt() throws {
        let store = ThreeWriters()
        let reports = Reports()
        let persister = Persister(store: store, cluster: nil, log: Logger(level: .error), stopRetry: .seconds(1)) {
            reports.post($0)
        }
        #expect(persister.workers.count == 3)
        persister.start()
        defer { persister.stop() }
        for id in Self.boards { persister.submit(.create(.defaultTemplate(id: id))) }
        for id in Self.boards { persister.submit(.append(id, Self.ops(1...2))) }
        for id in Self.boards { persister.submit(.append(id, Self.ops(3...5))) }
        for id in Self.boards { persister.submit(.release(id)) }

        // Each board: durable up to seq 5, then released, never the other way round.
        var seqs: [BoardID: Seq] = [:]
        var released: Set<BoardID> = []
        // Bounded: one event per write at most, and each within 10 s.
        for _ in 0..<(4 * Self.boards.count) {
            guard let event = reports.next(timeout: 10) else { break }
            switch event {
            case .durable(let durable, _):
                for (id, seq) in durable {
                    #expect(!released.contains(id), "board \(id) durable after its release")
                    seqs[id] = max(seqs[id] ?? 0, seq)
                }
            case .released(let id):
                #expect(seqs[id] == 5, "board \(id) released at seq \(seqs[id] ?? 0)")
                released.insert(id)
            default: Issue.record("unexpected \(event)")
            }
            if released.count == Self.boards.count { break }
        }
        #expect(released == Set(Self.boards))
        for id in Self.boards { #expect(try store.load(id, recentLimit: 10)?.recent == Self.ops(1...5)) }
        // Every batch held one writer's boards, and each writer's batches ran on one thread of its own.
        let batches = store.batches.withLock { $0 }
        var threads: [Int: Set<UInt>] = [:]
        for batch in batches {
            let writers = Set(batch.boards.map(store.writer(of:)))
            #expect(writers.count == 1, "a batch of several writers' boards: \(batch.boards)")
            if let writer = writers.first { threads[writer, default: []].insert(batch.thread) }
        }
        #expect(threads.count == 3 && threads.values.allSatisfy { $0.count == 1 })
        #expect(Set(threads.values.flatMap { $0 }).count == 3)
    }

    @Test func aWriterThatWaitsOnItsCommitHoldsOnlyItsOwnBoardsBack() throws {
        let store = ThreeWriters()
        let reports = Reports()
        let persister = Persister(store: store, cluster: nil, log: Logger(level: .error), stopRetry: .seconds(1)) {
            reports.post($0)
        }
        persister.start()
        defer { persister.stop() }
        let slow = Self.boards[0]
        let fast = Self.boards[1]
        store.held.withLock { $0 = [slow] }
        persister.submit(.create(.defaultTemplate(id: slow)), ticket: Ticket(1))
        #expect(store.holding.wait(timeout: .now() + 10) == .success, "the slow writer is in its write")
        // Writer 1 commits and reports while writer 0 is still in its commit.
        persister.submit(.create(.defaultTemplate(id: fast)), ticket: Ticket(2))
        guard case .durable(_, let tickets)? = reports.next(timeout: 10) else {
            Issue.record("writer 1 reported nothing while writer 0 waited")
            store.letGo.signal()
            return
        }
        #expect(tickets == [Ticket(2)])
        #expect(try store.exists(slow) == false)
        store.letGo.signal()
        guard case .durable(_, let later)? = reports.next(timeout: 10) else {
            Issue.record("writer 0 reported nothing once let go")
            return
        }
        #expect(later == [Ticket(1)])
        #expect(try store.exists(slow))
    }
}
