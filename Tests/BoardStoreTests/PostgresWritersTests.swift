import BoardCore
import Dispatch
import Foundation
import TestSupport
import Testing

@testable import BoardStore

/// A node writing over several connections (`PostgresStore(writers:)`, `--store-writers`): each
/// board on its writer's connection, writers side by side, the fence as on one connection, and
/// a batch of several writers' boards still one transaction.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipped))
struct PostgresWritersTests {
    /// Two boards of different writers of a store with `writers` connections.
    static func twoWritersBoards(_ store: PostgresStore) -> (BoardID, BoardID) {
        let ids = (0..<100).map { BoardID("board\($0)")! }
        let first = ids[0]
        let other = ids.first { store.writer(of: $0) != store.writer(of: first) } ?? ids[1]
        return (first, other)
    }

    @Test func boardsSpreadOverEveryWriterTheSameWayEachTime() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        let a = try PostgresStore(url: database.url, node: "a", advertise: "a:1", pipelineDepth: 1, writers: 4)
        defer { a.close() }
        let b = try PostgresStore(url: database.url, node: "b", advertise: "b:1", pipelineDepth: 1, writers: 4)
        defer { b.close() }
        let ids = (0..<200).map { BoardID("b\($0)")! }
        var counts = [0, 0, 0, 0]
        for id in ids {
            counts[a.writer(of: id)] += 1
            #expect(a.writer(of: id) == b.writer(of: id))
        }
        #expect(counts.allSatisfy { $0 > 20 }, "\(counts)")
        #expect(a.writerCount == 4)
    }

    @Test func aWriterWaitingOnALockedLeaseHoldsOnlyItsOwnBoardsBack() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        let a = try PostgresStore(url: database.url, node: "a", advertise: "a:1", pipelineDepth: 1, writers: 2)
        defer { a.close() }
        let (slow, fast) = Self.twoWritersBoards(a)
        #expect(a.writer(of: slow) != a.writer(of: fast))
        _ = try a.claim(slow, force: false)
        _ = try a.claim(fast, force: false)
        var slowOps = OpMaker(board: .defaultTemplate(id: slow), seed: 90)
        var fastOps = OpMaker(board: .defaultTemplate(id: fast), seed: 91)
        try a.write([.create(slowOps.board)])
        try a.write([.create(fastOps.board)])
        // Another session holds the slow board's lease row: its writer's fence waits for it.
        let other = try PostgresConnection(url: database.url)
        defer { other.close() }
        try other.query("BEGIN")
        try other.query("SELECT 1 FROM leases WHERE board = $1 FOR UPDATE", [.text(slow.rawValue)])
        let slowBatch = slowOps.next(3)
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        Thread {
            do { try a.write([.append(slow, slowBatch)]) } catch { outcome.set("\(error)") }
            done.signal()
        }.start()
        // The other writer commits meanwhile, on its own connection.
        try a.write([.append(fast, fastOps.next(4))])
        #expect(try a.load(fast, recentLimit: 10)?.seq == 4)
        #expect(done.wait(timeout: .now() + 0.2) == .timedOut, "the slow writer waits on the lock")
        try other.query("COMMIT")
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(outcome.value == nil)
        #expect(try a.load(slow, recentLimit: 10)?.recent == slowBatch)
    }

    @Test func aBatchOfSeveralWritersBoardsIsOneTransactionAndIsFencedAsAWhole() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        let a = try PostgresStore(url: database.url, node: "a", advertise: "a:1", pipelineDepth: 1, writers: 3)
        defer { a.close() }
        let b = try PostgresStore(url: database.url, node: "b", advertise: "b:1")
        defer { b.close() }
        let (one, two) = Self.twoWritersBoards(a)
        _ = try a.claim(one, force: false)
        _ = try a.claim(two, force: false)
        var first = OpMaker(board: .defaultTemplate(id: one), seed: 92)
        var second = OpMaker(board: .defaultTemplate(id: two), seed: 93)
        // Across writers: both boards in one transaction.
        try a.write([.create(first.board), .create(second.board), .append(one, first.next(2))])
        // Then each on its own writer, the pipelined way once its replica is read again.
        try a.write([.append(one, first.next(2))])
        try a.write([.append(two, second.next(3))])
        try a.write([.append(one, first.next(1))])
        try a.write([.append(two, second.next(1))])
        #expect(a.pipelinedWrites == 2)
        // Across writers again, after their replicas were made: still right.
        try a.write([.append(one, first.next(2)), .append(two, second.next(2))])
        try a.write([.append(one, first.next(1))])
        #expect(try a.load(one, recentLimit: 100)?.recent == first.all)
        #expect(try a.load(two, recentLimit: 100)?.recent == second.all)
        // Another node takes one board: a batch of both commits nothing at all.
        #expect(try b.claim(two, force: true) == .mine(epoch: 2))
        let error = try #require(throws: StoreError.self) {
            try a.write([.append(one, first.next(1)), .append(two, second.next(1))])
        }
        #expect(error.kind == .fenced, "\(error)")
        #expect(try a.load(one, recentLimit: 0)?.seq == 8)
        #expect(try a.load(two, recentLimit: 0)?.seq == 6)
        #expect(a.replicaCount == 0)
    }

    @Test func writersAreCheckedAndNeedOneBatchAtATime() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        for (writers, depth) in [(0, 1), (17, 1), (2, 2)] {
            let error = try #require(throws: StoreError.self) {
                try PostgresStore(
                    url: database.url, node: "a", advertise: "a:1", pipelineDepth: depth, writers: writers)
            }
            #expect(error.message.contains("writer"), "\(error)")
        }
    }
}

/// What a write on another thread threw, if anything.
private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    var value: String? { lock.withLock { stored } }
    func set(_ value: String) { lock.withLock { stored = value } }
}
