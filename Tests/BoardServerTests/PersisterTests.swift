import BoardCore
import BoardHub
import BoardStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BoardServer

/// The writer thread against a store that fails: a permanent failure of one board fails only
/// that board's writes and the writer goes on; a transient one is retried, but never past stop.
@Suite struct PersisterTests {
    static let good = BoardID("good")!
    static let bad = BoardID("bad")!

    /// A `MemoryStore` that refuses, atomically, every batch that writes `failing` (with an error
    /// of `kind`: permanent, or fenced as a cluster's store says), or every batch at all while
    /// `transient` is set.
    final class FailingStore: DelegatingStore {
        let inner = MemoryStore()
        let failing: BoardID?
        let kind: StoreError.Kind
        let transient: Bool
        /// Every batch tried, refused or not.
        let attempts = Mutex<[[StoreWrite]]>([])
        let attempted = DispatchSemaphore(value: 0)

        init(failing: BoardID? = nil, kind: StoreError.Kind = .permanent, transient: Bool = false) {
            self.failing = failing
            self.kind = kind
            self.transient = transient
        }

        func write(_ batch: [StoreWrite]) throws(StoreError) {
            attempts.withLock { $0.append(batch) }
            attempted.signal()
            if transient { throw StoreError("database is locked", kind: .transient) }
            let touches = batch.contains { write in
                switch write {
                case .create(let board): board.id == failing
                case .append(let id, _), .delete(let id): id == failing
                case .restore(let archive): archive.id == failing
                }
            }
            if touches { throw StoreError("board bad is damaged: its op at seq 1 is unreadable", kind: kind) }
            try inner.write(batch)
        }
    }

    static func ops(_ seqs: ClosedRange<Int>, by user: UInt64 = 1) -> [CommittedOp] {
        seqs.map { seq in
            CommittedOp(
                seq: seq, opID: OpID("op-\(seq)")!, by: UserID(number: user),
                op: .toggle(item: ItemID("t1")!, on: seq % 2 == 1), time: UnixTime(milliseconds: 0))
        }
    }

    /// Runs `body` on another thread and waits at most `timeout` for it to return.
    static func returns(within timeout: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
        let done = DispatchSemaphore(value: 0)
        Thread {
            body()
            done.signal()
        }.start()
        return done.wait(timeout: .now() + timeout) == .success
    }

    @Test(arguments: [StoreError.Kind.permanent, .fenced])
    func aBoardThatCannotBeWrittenFailsAloneAndTheWriterGoesOn(kind: StoreError.Kind) throws {
        let store = FailingStore(failing: Self.bad, kind: kind)
        let reports = Reports()
        let persister = Persister(store: store, cluster: nil, log: Logger(level: .error), stopRetry: .seconds(1)) {
            reports.post($0)
        }
        // Queued before the thread starts, so that they are one batch.
        persister.submit(.create(.defaultTemplate(id: Self.good)), ticket: Ticket(1))
        persister.submit(.create(.defaultTemplate(id: Self.bad)), ticket: Ticket(2))
        persister.submit(.append(Self.good, Self.ops(1...2)))
        persister.submit(.append(Self.bad, Self.ops(1...3)))
        persister.submit(.append(Self.good, Self.ops(3...3)))
        persister.start()

        var durable: [BoardID: Seq] = [:]
        var tickets: [Ticket] = []
        var failures: [Hub.WriteFailure] = []
        for event in reports.next(2) {
            switch event {
            case .durable(let seqs, let t):
                durable.merge(seqs) { max($0, $1) }
                tickets += t
            case .writeFailed(let failure): failures.append(failure)
            default: Issue.record("unexpected \(event)")
            }
        }
        #expect(durable == [Self.good: 3] && tickets == [Ticket(1)])
        #expect(failures.map(\.board) == [Self.bad])
        #expect(
            failures.first?.writes == [.create(.defaultTemplate(id: Self.bad)), .append(Self.bad, Self.ops(1...3))])
        #expect(failures.first?.tickets == [Ticket(2)])
        #expect(try store.load(Self.good, recentLimit: 10)?.seq == 3)
        #expect(try store.exists(Self.bad) == false)
        // Tried in the batch and once alone, never retried.
        let touchingBad = store.attempts.withLock { $0.filter { $0.contains(.create(.defaultTemplate(id: Self.bad))) } }
        #expect(touchingBad.count == 2)

        // The writer is not wedged: the next writes commit, and stop returns.
        persister.submit(.append(Self.good, Self.ops(4...4)))
        #expect(reports.next(1).map { if case .durable(let seqs, _) = $0 { seqs } else { [:] } } == [[Self.good: 4]])
        #expect(Self.returns(within: 10) { persister.stop() }, "stop returns")
    }

    @Test func onTheRealServerTheSenderHearsItsOpWasLostAndOtherBoardsGoOn() async throws {
        let store = FailingStore(failing: Self.bad)
        try store.inner.write([.create(.defaultTemplate(id: Self.bad))])
        try await withTestServer({ $0.hub.logLevel = .error }, store: store) { server in
            let (a, _) = try await server.join("bad", as: "Ada")
            let (b, _) = try await server.join("good", as: "Bo")
            a.send(#"{"type":"toggle","op":"lost","base":0,"item":"t1","on":true}"#)
            let error = try await a.expect("error")
            #expect(error["code"]?.stringValue == "unavailable" && error["op"]?.stringValue == "lost")
            #expect(try await a.connection.waitForClose().code == 1011)
            b.send(#"{"type":"toggle","op":"kept","base":0,"item":"t1","on":true}"#)
            #expect(try await b.expect("toggle")["seq"]?.intValue == 1)
            // The lost op is not in the store, and the board is served as stored.
            let (c, welcome) = try await server.join("bad", as: "Cy")
            #expect(welcome["seq"]?.intValue == 0)
            c.close()
        }
    }

    @Test func stoppingGivesUpOnAWriteThatKeepsFailingTransiently() throws {
        let store = FailingStore(transient: true)
        let reports = Reports()
        let persister = Persister(store: store, cluster: nil, log: Logger(level: .error), stopRetry: .milliseconds(200))
        {
            reports.post($0)
        }
        persister.start()
        persister.submit(.create(.defaultTemplate(id: Self.good)), ticket: Ticket(1))
        // Two attempts: it was retried (a transient failure does not fail the batch).
        for _ in 0..<2 { #expect(store.attempted.wait(timeout: .now() + 10) == .success) }
        #expect(Self.returns(within: 30) { persister.stop() }, "stop returns although the store never recovers")
        #expect(reports.next(1, timeout: 0).isEmpty, "nothing is reported durable or failed")
    }
}
