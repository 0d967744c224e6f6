import BoardCore
import Foundation
import TestSupport
import Testing

@testable import BoardStore

/// Batches on their way to PostgreSQL (`PipelinedWrites`): a batch sent behind one that fails
/// commits nothing, whether the first was fenced or lost with its connection, and writing them
/// again stores each op once.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipped))
struct PostgresPipelineTests {
    /// Node `a` with board alpha created and written once (so that its appends can go on their
    /// way), the ops maker, and a connection of the test's own that holds alpha's lease row
    /// locked in an open transaction: the batches sent next wait at their fence.
    static func started(
        _ cluster: PostgresClusterTests.Cluster, seed: UInt64
    ) throws -> (PostgresStore, OpMaker, PostgresConnection) {
        let a = try cluster.node("a")
        _ = try a.claim(boardA, force: false)
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: seed)
        try a.write([.create(maker.board), .append(boardA, maker.next(2))])
        try a.write([.append(boardA, maker.next(1))])
        let db = try PostgresConnection(url: cluster.url)
        try db.query("BEGIN")
        try db.query("SELECT 1 FROM leases WHERE board = $1 FOR UPDATE", [.text(boardA.rawValue)])
        return (a, maker, db)
    }

    @Test func aBatchSentBehindOneThatIsFencedCommitsNothing() throws {
        try PostgresClusterTests.withCluster { cluster in
            var (a, maker, db) = try Self.started(cluster, seed: 61)
            defer { db.close() }
            let second = maker.next(2)
            let third = maker.next(1)
            #expect(try a.send([.append(boardA, second)]))
            #expect(try a.send([.append(boardA, third)]))
            #expect(a.answers(wait: false).isEmpty, "both wait at the fence")
            // Node b takes the lease while both are on their way.
            try db.query("UPDATE leases SET node = 'b', epoch = epoch + 1 WHERE board = $1", [.text(boardA.rawValue)])
            try db.query("COMMIT")
            let outcomes = a.answers(wait: true)
            #expect(outcomes.count == 2)
            #expect(outcomes.first??.kind == .fenced, "\(outcomes)")
            #expect(outcomes.first??.message.contains("node b holds its lease") == true, "\(outcomes)")
            #expect(outcomes.last! != nil, "the batch behind it fails too")
            #expect(try db.int("SELECT seq FROM boards WHERE id = $1", [.text(boardA.rawValue)]) == 3)
            #expect(try db.int("SELECT count(*) FROM ops") == 3)
            // Written again, as the node's writer does, they are fenced: nothing of them is stored.
            let error = try #require(throws: StoreError.self) {
                try a.write([.append(boardA, second + third)])
            }
            #expect(error.kind == .fenced)
            #expect(try db.int("SELECT count(*) FROM ops") == 3)
        }
    }

    @Test func batchesOnTheirWayWhenTheConnectionDiesFailAndAreStoredOnceWhenWrittenAgain() throws {
        try PostgresClusterTests.withCluster { cluster in
            var (a, maker, db) = try Self.started(cluster, seed: 62)
            defer { db.close() }
            let second = maker.next(2)
            let third = maker.next(3)
            #expect(try a.send([.append(boardA, second)]))
            #expect(try a.send([.append(boardA, third)]))
            // The writer's backend dies while it waits at the fence: first wait (bounded) until the
            // pipeline's batch has reached it, else on a loaded machine nothing matches yet.
            let waiting = try Self.waitForFencedBackend(db)
            #expect(waiting, "the writer's batch never waited at the fence")
            let killed = try db.int(
                "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    + "WHERE pid <> pg_backend_pid() AND datname = current_database() "
                    + "AND query LIKE '%shuffleboard_fence%') AS t")
            #expect(killed == 1)
            try db.query("ROLLBACK")
            let outcomes = a.answers(wait: true)
            #expect(outcomes.count == 2)
            #expect(outcomes.allSatisfy { $0?.kind == .transient }, "\(outcomes)")
            // Both again as one batch, as the node's writer does: each op is stored once.
            try a.write([.append(boardA, second + third)])
            #expect(try a.load(boardA, recentLimit: 100)?.recent == maker.all)
            #expect(try db.int("SELECT count(*) FROM ops") == 8)
            // The next appends go on their way again.
            #expect(try a.send([.append(boardA, maker.next(1))]))
            #expect(a.answers(wait: true).map { $0 == nil } == [true])
            #expect(try a.load(boardA, recentLimit: 100)?.recent == maker.all)
        }
    }

    /// Whether a backend other than `db`'s waits for a lock in a query at the fence, polled for at
    /// most 10 s (pg_stat_activity is read as a snapshot within a transaction: cleared each time).
    static func waitForFencedBackend(_ db: PostgresConnection) throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            try db.query("SELECT pg_stat_clear_snapshot()")
            let count = try db.int(
                "SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() "
                    + "AND datname = current_database() AND wait_event_type = 'Lock' "
                    + "AND query LIKE '%shuffleboard_fence%'")
            if (count ?? 0) >= 1 { return true }
            usleep(10_000)
        }
        return false
    }

    @Test func afterLostAnswersAWriteStoresOnlyTheOpsNotStoredYet() throws {
        try PostgresClusterTests.withCluster { cluster in
            var (a, maker, db) = try Self.started(cluster, seed: 63)
            try db.query("ROLLBACK")
            defer { db.close() }
            let stored = maker.next(2)
            try a.write([.append(boardA, stored)])
            // As if that COMMIT's answer had been lost: the write of the same ops and more
            // again stores only the ones not stored yet.
            a.writer.withLock { $0?.db.commitUncertain = true }
            let more = maker.next(2)
            try a.write([.append(boardA, stored), .append(boardA, more)])
            #expect(try a.load(boardA, recentLimit: 100)?.recent == maker.all)
            #expect(try db.int("SELECT count(*) FROM ops") == 7)
        }
    }

    @Test func aBatchThatCannotGoBehindOthersIsNotSent() throws {
        try PostgresClusterTests.withCluster { cluster in
            var (a, maker, db) = try Self.started(cluster, seed: 64)
            try db.query("ROLLBACK")
            defer { db.close() }
            _ = try a.claim(boardB, force: false)
            var beta = OpMaker(board: .defaultTemplate(id: boardB), seed: 65)
            #expect(try a.send([.create(beta.board)]) == false, "a create")
            try a.write([.create(beta.board)])
            #expect(try a.send([.append(boardA, maker.next(1)), .append(boardB, beta.next(2))]))
            // Alpha claimed again (a new epoch): its next append reads the lease first.
            #expect(try cluster.node("b").claim(boardA, force: true) == .mine(epoch: 2))
            #expect(try a.claim(boardA, force: true) == .mine(epoch: 3))
            #expect(try a.send([.append(boardA, maker.next(1))]) == false, "the first append after a claim")
            #expect(a.answers(wait: true).map { $0 == nil } == [true])
            try a.write([.append(boardA, [maker.all.last!])])
            #expect(try a.load(boardA, recentLimit: 100)?.recent == maker.all)
            #expect(try a.load(boardB, recentLimit: 100)?.recent == beta.all)
        }
    }
}
