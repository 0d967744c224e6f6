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

/// The writer thread with a store that keeps batches on their way (`PipelinedWrites`, as
/// PostgreSQL's does): batches are reported durable in order, once each, and a batch that fails
/// on its way is written again together with the ones sent behind it, before anything after.
@Suite struct PersisterPipelineTests {
    static let board = BoardID("piped")!

    /// A `MemoryStore` that takes batches on their way: it answers them only when `depth` are on
    /// their way (or when asked to wait), so that every failure has a batch behind it. The sends
    /// numbered in `failing` (1 first) fail, and so does every batch sent behind a failure until
    /// the failure is read, as a database in a failed transaction does; a failed batch stores nothing.
    final class PipedStore: DelegatingStore, PipelinedWrites, @unchecked Sendable {
        // Guarded by `lock`.
        private var onTheirWay: [(batch: [StoreWrite], fails: Bool)] = []
        private var sendCount = 0
        private var failedUnread = false
        private let lock = NSLock()
        private let wake: (read: Int32, write: Int32)

        let inner = MemoryStore()
        let pipelineDepth = 2
        let failing: Set<Int>
        /// Every batch sent, then every batch written with `write`, in order.
        let sends = Mutex<[[StoreWrite]]>([])
        let writes = Mutex<[[StoreWrite]]>([])
        /// Signalled on each send.
        let took = DispatchSemaphore(value: 0)

        init(failing: Set<Int>) {
            self.failing = failing
            var ends: [Int32] = [-1, -1]
            precondition(pipe(&ends) == 0)
            wake = (ends[0], ends[1])
        }

        deinit {
            Glibc.close(wake.read)
            Glibc.close(wake.write)
        }

        func write(_ batch: [StoreWrite]) throws(StoreError) {
            writes.withLock { $0.append(batch) }
            try inner.write(batch)
        }

        func send(_ batch: [StoreWrite]) throws(StoreError) -> Bool {
            lock.lock()
            sendCount += 1
            let fails = failing.contains(sendCount) || failedUnread
            failedUnread = failedUnread || fails
            onTheirWay.append((batch, fails))
            let full = onTheirWay.count >= pipelineDepth
            lock.unlock()
            sends.withLock { $0.append(batch) }
            if full {
                var one: UInt8 = 1
                _ = Glibc.write(wake.write, &one, 1)
            }
            took.signal()
            return true
        }

        var answerDescriptor: Int32 { wake.read }

        func answers(wait: Bool) -> [StoreError?] {
            lock.lock()
            defer { lock.unlock() }
            guard wait || onTheirWay.count >= pipelineDepth else { return [] }
            var bytes = [UInt8](repeating: 0, count: 16)
            _ = read(wake.read, &bytes, bytes.count)
            let answered = onTheirWay
            onTheirWay = []
            failedUnread = false
            return answered.map { sent in
                if sent.fails { return StoreError("lost the answer of a transaction sent", kind: .transient) }
                do throws(StoreError) {
                    try inner.write(sent.batch)
                    return nil
                } catch {
                    return error
                }
            }
        }
    }

    static func op(_ seq: Int) -> CommittedOp {
        CommittedOp(
            seq: seq, opID: OpID("op-\(seq)")!, by: UserID(number: 1),
            op: .toggle(item: ItemID("t1")!, on: seq % 2 == 1), time: UnixTime(milliseconds: 0))
    }

    @Test func aFailureOnTheWayIsWrittenAgainWithTheBatchesBehindItAndEveryOpIsDurableOnceInOrder() throws {
        let store = PipedStore(failing: [3, 6])
        try store.inner.write([.create(.defaultTemplate(id: Self.board))])
        let reports = Reports()
        let persister = Persister(
            store: store, cluster: nil, pipeline: store, log: Logger(level: .error), stopRetry: .seconds(1)
        ) {
            reports.post($0)
        }
        persister.start()
        // One op a batch: each is submitted once the one before was taken.
        let count = 12
        for seq in 1...count {
            persister.submit(.append(Self.board, [Self.op(seq)]), ticket: Ticket(UInt64(seq)))
            #expect(store.took.wait(timeout: .now() + 10) == .success)
        }
        // Stopping waits for the last answer (the store answers a batch alone only then).
        #expect(Self.returns(within: 10) { persister.stop() }, "stop returns")
        var tickets: [Ticket] = []
        var durable: Seq = 0
        while tickets.count < count, let event = reports.next(timeout: 10) {
            guard case .durable(let seqs, let more) = event else {
                Issue.record("unexpected \(event)")
                break
            }
            tickets += more
            durable = max(durable, seqs[Self.board] ?? 0)
        }
        #expect(tickets == (1...count).map { Ticket(UInt64($0)) })
        #expect(durable == count)
        #expect(try store.inner.load(Self.board, recentLimit: 100)?.recent == (1...count).map(Self.op))
        // The store answers two at a time: sends 3 and 4 failed (4 behind 3) and were written
        // again together, after 1 and 2 and before 5; 6 failed behind 5, which committed, and
        // was written again alone. Every other op went once, one a batch.
        #expect(store.sends.withLock { $0 } == (1...count).map { [.append(Self.board, [Self.op($0)])] })
        #expect(
            store.writes.withLock { $0 } == [
                [.append(Self.board, [Self.op(3), Self.op(4)])], [.append(Self.board, [Self.op(6)])],
            ])
    }

    /// Runs `body` on another thread and waits at most `timeout` for it to return.
    static func returns(within timeout: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        PersisterTests.returns(within: timeout, body)
    }
}
