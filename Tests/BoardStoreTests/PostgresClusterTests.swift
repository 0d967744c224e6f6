import BoardCore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BoardStore

/// Two `PostgresStore`s as two nodes on one database: leases, epochs and the fence.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipped))
struct PostgresClusterTests {
    /// Runs `body` with a fresh database and a way to open nodes on it (closed afterwards).
    static func withCluster<R>(_ body: (Cluster) throws -> R) throws -> R {
        let database = try TestPostgres.database()
        let cluster = Cluster(url: database.url)
        defer {
            cluster.closeAll()
            database.drop()
        }
        return try body(cluster)
    }

    final class Cluster {
        let url: String
        private var opened: [PostgresStore] = []

        init(url: String) { self.url = url }

        /// A node named `name`, reached at `name:1` (its advertise address).
        func node(_ name: String, lease: Double = 30, snapshotEvery: Int = 100) throws -> PostgresStore {
            let store = try PostgresStore(
                url: url, node: name, advertise: "\(name):1", leaseSeconds: lease, snapshotEvery: snapshotEvery)
            opened.append(store)
            return store
        }

        func closeAll() { opened.forEach { $0.close() } }

        /// Ends every connection to the database but the caller's, from an administrator's
        /// connection, as a failover does; returns how many it ended.
        @discardableResult
        func dropConnections() throws -> Int {
            let admin = try PostgresConnection(url: TestPostgres.url ?? "")
            defer { admin.close() }
            let database = String(url.split(separator: "/").last ?? "")
            return try admin.query(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()",
                [.text(database)])
        }
    }

    /// Claims until the claim is this node's, polling the database clock until `seconds` pass.
    static func claimOnceFree(_ store: PostgresStore, _ id: BoardID, within seconds: Double = 10) throws -> Claim {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let claim = try store.claim(id, force: false)
            if case .mine = claim { return claim }
            guard ContinuousClock.now < deadline else { return claim }
            // A pause between polls, not a wait for the lease: the answer comes from the database.
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Polls `owner(of:)` until it is `expected`, for at most `seconds`.
    static func waitForOwner(
        _ store: PostgresStore, _ id: BoardID, _ expected: String?, within seconds: Double = 10
    ) throws -> String? {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while true {
            let owner = try store.owner(of: id)
            if owner == expected || ContinuousClock.now >= deadline { return owner }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// The kind of store error `body` throws, or nil when it does not throw one.
    static func kind(_ body: () throws -> Void) -> StoreError.Kind? {
        do {
            try body()
            return nil
        } catch {
            return (error as? StoreError)?.kind
        }
    }

    @Test func aLiveLeaseIsMineOnceAndOwnedForTheOtherNode() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 1))
            #expect(try b.claim(boardA, force: false) == .owned(by: "a", advertise: "a:1"))
            // Claiming again extends it under the same epoch.
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 1))
            #expect(try a.owner(of: boardA) == "a" && b.owner(of: boardA) == "a")
            #expect(try b.owner(of: boardB) == nil)
            // The owner writes; the other node, which never got the lease, is fenced.
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 40)
            try a.write([.create(maker.board), .append(boardA, maker.next(3))])
            #expect(Self.kind { try b.write([.append(boardA, maker.next(1))]) } == .fenced)
            #expect(try b.load(boardA, recentLimit: 0)?.seq == 3)
        }
    }

    @Test func anExpiredLeaseGoesToTheNextClaimByTheDatabaseClockAndFencesTheOldOwner() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a", lease: 0.3)
            let b = try cluster.node("b", lease: 0.3)
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 1))
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 41)
            try a.write([.create(maker.board), .append(boardA, maker.next(2))])
            #expect(try Self.claimOnceFree(b, boardA) == .mine(epoch: 2))
            // A's append is fenced and stores nothing; B continues the stored seq.
            let stale = maker.next(1)
            #expect(Self.kind { try a.write([.append(boardA, stale)]) } == .fenced)
            #expect(try b.load(boardA, recentLimit: 10)?.seq == 2)
            var again = OpMaker(board: .defaultTemplate(id: boardA), seed: 41)
            _ = again.next(2)
            try b.write([.append(boardA, again.next(2))])
            #expect(try b.load(boardA, recentLimit: 10)?.board == again.board)
        }
    }

    @Test func forceTakesALiveLeaseAndTheStaleEpochCommitsNothing() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 1))
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 42)
            try a.write([.create(maker.board), .append(boardA, maker.next(4))])
            #expect(try b.claim(boardA, force: true) == .mine(epoch: 2))
            #expect(try a.owner(of: boardA) == "b")
            // A still believes it holds epoch 1: its batch, of two boards, commits nothing at all.
            #expect(try a.claim(boardB, force: false) == .mine(epoch: 1))
            let error = try #require(throws: StoreError.self) {
                try a.write([.create(.defaultTemplate(id: boardB)), .append(boardA, maker.next(1))])
            }
            #expect(error.kind == .fenced && error.message.contains("board alpha"))
            #expect(try a.exists(boardB) == false)
            #expect(try a.load(boardA, recentLimit: 0)?.seq == 4)
            // Alone, the board it still holds commits.
            try a.write([.create(.defaultTemplate(id: boardB))])
            #expect(try a.exists(boardB))
        }
    }

    @Test func appendsAfterTheFirstGoAsOnePipelineAndAStaleOwnerIsStillFenced() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            _ = try a.claim(boardA, force: false)
            _ = try a.claim(boardB, force: false)
            var alpha = OpMaker(board: .defaultTemplate(id: boardA), seed: 46)
            var beta = OpMaker(board: .defaultTemplate(id: boardB), seed: 47)
            // The first write of each board reads the fence's answer before it goes on.
            try a.write([.create(alpha.board), .create(beta.board), .append(boardA, alpha.next(2))])
            #expect(a.pipelinedWrites == 0)
            try a.write([.append(boardA, alpha.next(3)), .append(boardB, beta.next(2))])
            try a.write([.append(boardA, alpha.next(1)), .append(boardA, alpha.next(2))])
            #expect(a.pipelinedWrites == 2)
            #expect(try a.load(boardA, recentLimit: 100)?.recent == alpha.all)
            #expect(try a.load(boardB, recentLimit: 100)?.board == beta.board)
            // B takes alpha by force: A's next pipelined batch, of both boards, commits nothing.
            #expect(try b.claim(boardA, force: true) == .mine(epoch: 2))
            let error = try #require(throws: StoreError.self) {
                try a.write([.append(boardB, beta.next(1)), .append(boardA, alpha.next(1))])
            }
            #expect(a.pipelinedWrites == 3)
            #expect(error.kind == .fenced, "\(error)")
            #expect(error.message.contains("board alpha is fenced (node b holds its lease)"), "\(error)")
            #expect(try b.load(boardA, recentLimit: 0)?.seq == 8)
            #expect(try b.load(boardB, recentLimit: 0)?.seq == 2)
        }
    }

    /// A pipelined batch of several boards goes as one INSERT per 500 rows whatever board each
    /// row is of, with one UPDATE of every board's seq: here 700 rows of three boards, one of
    /// them in two runs of the batch, with snapshots due on the way. Another node, reading the
    /// database, sees every op of every board in order and each board's seq.
    @Test func aPipelinedBatchOfManyBoardsStoresEveryBoardsOpsAndSeq() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let ids = ["many0", "many1", "many2"].map { BoardID($0)! }
            var makers = ids.enumerated().map { OpMaker(board: .defaultTemplate(id: $1), seed: 70 + UInt64($0)) }
            for id in ids { _ = try a.claim(id, force: false) }
            try a.write(makers.map { .create($0.board) } + (0..<3).map { .append(ids[$0], makers[$0].next(1)) })
            #expect(a.pipelinedWrites == 0)
            try a.write([
                .append(ids[0], makers[0].next(150)), .append(ids[1], makers[1].next(250)),
                .append(ids[0], makers[0].next(100)), .append(ids[2], makers[2].next(200)),
            ])
            #expect(a.pipelinedWrites == 1)
            let db = try PostgresConnection(url: cluster.url)
            defer { db.close() }
            for (i, id) in ids.enumerated() {
                #expect(try db.int("SELECT seq FROM boards WHERE id = $1", [.text(id.rawValue)]) == makers[i].all.count)
            }
            let b = try cluster.node("b")
            for (i, id) in ids.enumerated() {
                _ = try b.claim(id, force: true)
                let loaded = try #require(try b.load(id, recentLimit: 1_000))
                #expect(loaded.seq == makers[i].all.count)
                #expect(loaded.recent == makers[i].all)
                #expect(loaded.board == makers[i].board)
            }
        }
    }

    /// The first writes of many boards: each created with its first ops in one batch, which is
    /// not pipelined (the fence is read first). The creations go without waiting for answers and
    /// every board's ops in one INSERT after them, each board's changes still in order: here a
    /// deletion in the batch (its board's ops before it written first) and the board made again
    /// after it. Another node sees every board at its seq with its ops, and every board's search
    /// documents are of its seq.
    @Test func aBatchCreatingManyBoardsWithTheirFirstOpsStoresEachInOrder() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let ids = (0..<5).map { BoardID("first\($0)")! }
            var makers = ids.enumerated().map { OpMaker(board: .defaultTemplate(id: $1), seed: 90 + UInt64($0)) }
            for id in ids { _ = try a.claim(id, force: false) }
            var batch: [StoreWrite] = []
            for i in ids.indices { batch += [.create(makers[i].board), .append(ids[i], makers[i].next(3))] }
            var again = OpMaker(board: .defaultTemplate(id: ids[1]), seed: 99)
            batch += [
                .append(ids[0], makers[0].next(2)), .append(ids[1], makers[1].next(1)), .delete(ids[1]),
                .create(again.board), .append(ids[1], again.next(4)),
            ]
            makers[1] = again
            try a.write(batch)
            #expect(a.pipelinedWrites == 0)
            let db = try PostgresConnection(url: cluster.url)
            defer { db.close() }
            for (i, id) in ids.enumerated() {
                let key: [PostgresValue] = [.text(id.rawValue)]
                #expect(try db.int("SELECT seq FROM boards WHERE id = $1", key) == makers[i].all.count)
                #expect(try db.int("SELECT indexed FROM boards WHERE id = $1", key) == makers[i].all.count)
            }
            // The next appends go pipelined: the writer kept each board it made.
            try a.write(ids.indices.map { .append(ids[$0], makers[$0].next(2)) })
            #expect(a.pipelinedWrites == 1)
            let b = try cluster.node("b")
            for (i, id) in ids.enumerated() {
                _ = try b.claim(id, force: true)
                let loaded = try #require(try b.load(id, recentLimit: 1_000))
                #expect(loaded.seq == makers[i].all.count)
                #expect(loaded.recent == makers[i].all)
                #expect(loaded.board == makers[i].board)
            }
        }
    }

    @Test func aPipelinedBatchIsFencedWhenTheStoredSeqMovedBehindTheWritersBack() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            _ = try a.claim(boardA, force: false)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 48)
            try a.write([.create(maker.board), .append(boardA, maker.next(2))])
            try a.write([.append(boardA, maker.next(1))])
            let db = try PostgresConnection(url: cluster.url)
            defer { db.close() }
            try db.query("UPDATE boards SET seq = seq + 1 WHERE id = $1", [.text(boardA.rawValue)])
            let error = try #require(throws: StoreError.self) { try a.write([.append(boardA, maker.next(1))]) }
            #expect(a.pipelinedWrites == 2)
            #expect(error.kind == .fenced)
            #expect(error.message.contains("the batch starts at seq 4 but the stored seq is 4"), "\(error)")
            #expect(try db.int("SELECT count(*) FROM ops") == 3)
        }
    }

    @Test func anAppendThatDoesNotContinueTheStoredSeqCommitsNothing() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            _ = try a.claim(boardA, force: false)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 43)
            let first = maker.next(3)
            try a.write([.create(maker.board), .append(boardA, first)])
            let more = maker.next(3)
            // A gap, a repeat and an overlap: each fenced, nothing stored.
            for bad in [Array(more[1...]), first, Array(first[2...]) + more] {
                #expect(Self.kind { try a.write([.append(boardA, bad)]) } == .fenced)
                #expect(try a.load(boardA, recentLimit: 100)?.recent == first)
            }
            // A create of a board that exists is out of step too.
            #expect(Self.kind { try a.write([.create(.defaultTemplate(id: boardA))]) } == .fenced)
            try a.write([.append(boardA, more)])
            #expect(try a.load(boardA, recentLimit: 100)?.recent == first + more)
        }
    }

    @Test func writesAndImportsNeedAClaim() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            #expect(Self.kind { try a.write([.create(.defaultTemplate(id: boardA))]) } == .fenced)
            let archive = try BoardArchive(board: .defaultTemplate(id: boardA), baseSeq: 0, ops: [])
            #expect(Self.kind { try a.restore(archive, replace: false) } == .fenced)
            _ = try a.claim(boardA, force: false)
            try a.restore(archive, replace: false)
            // A delete is fenced like any write.
            let b = try cluster.node("b")
            #expect(Self.kind { try b.write([.delete(boardA)]) } == .fenced)
            #expect(try a.exists(boardA))
            try a.write([.delete(boardA)])
            #expect(try a.exists(boardA) == false)
        }
    }

    @Test func renewExtendsTheLiveLeasesAndDoesNotReviveExpiredOnes() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a", lease: 0.3)
            _ = try a.claim(boardA, force: false)
            #expect(try a.renew() == [boardA])
            #expect(try Self.waitForOwner(a, boardA, nil) == nil)
            #expect(try a.renew() == [])
            #expect(try a.owner(of: boardA) == nil)
            // Once expired the lease is lost to its writes as well, until claimed again, at a new epoch.
            #expect(Self.kind { try a.write([.create(.defaultTemplate(id: boardA))]) } == .fenced)
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 2))
            #expect(try a.renew() == [boardA])
            try a.write([.create(.defaultTemplate(id: boardA))])
        }
    }

    @Test func aReleasedLeaseIsFreeAtOnceAndItsEpochKeepsGrowing() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            _ = try a.claim(boardA, force: false)
            try a.write([.create(.defaultTemplate(id: boardA))])
            try a.release(boardA)
            #expect(try b.owner(of: boardA) == nil)
            #expect(try b.claim(boardA, force: false) == .mine(epoch: 2))
            #expect(Self.kind { try a.write([.delete(boardA)]) } == .fenced)
            // Releasing what another node holds changes nothing.
            try a.release(boardA)
            #expect(try a.owner(of: boardA) == "b")
            try b.release(boardA)
            #expect(try a.claim(boardA, force: false) == .mine(epoch: 3))
        }
    }

    @Test func releasingTheLeaseOfABoardNeverStoredRemovesItsRow() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            let db = try PostgresConnection(url: cluster.url)
            defer { db.close() }
            func rows() throws -> Int? { try db.int("SELECT count(*) FROM leases") }
            for n in 0..<20 {
                _ = try a.claim(BoardID("never-\(n)")!, force: false)
                try a.release(BoardID("never-\(n)")!)
            }
            #expect(try rows() == 0)
            // A stored board keeps its row, and so its epoch, across releases.
            _ = try a.claim(boardA, force: false)
            try a.write([.create(.defaultTemplate(id: boardA))])
            try a.release(boardA)
            #expect(try rows() == 1)
            // A board claimed afresh after its row went never admits the old claim's writes.
            let fresh = BoardID("fresh")!
            _ = try a.claim(fresh, force: false)
            try a.release(fresh)
            #expect(try b.claim(fresh, force: false) == .mine(epoch: 1))
            #expect(Self.kind { try a.write([.create(.defaultTemplate(id: fresh))]) } == .fenced)
        }
    }

    @Test func nodesListsEveryNodeWithItsAddressAndLiveLeases() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b", lease: 0.3)
            _ = try a.claim(boardA, force: false)
            _ = try a.claim(boardB, force: false)
            _ = try b.claim(BoardID("gamma")!, force: false)
            #expect(
                try a.nodes() == [
                    ClusterNode(name: "a", advertise: "a:1", alive: true, boards: 2),
                    ClusterNode(name: "b", advertise: "b:1", alive: true, boards: 1),
                ])
            // b's lease runs out; a, whose lease is 30 s, still sees b (renewed at start) as alive.
            #expect(try Self.waitForOwner(a, BoardID("gamma")!, nil) == nil)
            #expect(try a.nodes().map(\.boards) == [2, 0])
            try b.setAdvertise("b:2")
            #expect(try a.nodes().last?.advertise == "b:2")
            #expect(try b.claim(boardA, force: false) == .owned(by: "a", advertise: "a:1"))
        }
    }

    @Test func everyNodeReadsTheSameClusterSecret() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            let b = try cluster.node("b")
            let secret = try a.clusterSecret()
            #expect(secret.count == 32 && Set(secret).count > 1)
            #expect(try b.clusterSecret() == secret)
            #expect(try cluster.node("c").clusterSecret() == secret)
        }
    }

    @Test func concurrentClaimsFromTwoNodesYieldExactlyOneOwnerPerBoard() throws {
        try Self.withCluster { cluster in
            let nodes = [try cluster.node("a"), try cluster.node("b")]
            let boards = (0..<40).map { BoardID("board-\($0)")! }
            let claims = Mutex<[[BoardID: Claim]]>([[:], [:]])
            let failures = Mutex<[StoreError]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { n in
                for id in boards {
                    do throws(StoreError) {
                        let claim = try nodes[n].claim(id, force: false)
                        claims.withLock { $0[n][id] = claim }
                    } catch {
                        failures.withLock { $0.append(error) }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let results = claims.withLock { $0 }
            for id in boards {
                let mine = (0..<2).filter { if case .mine = results[$0][id] { true } else { false } }
                #expect(
                    mine.count == 1,
                    "board \(id): \(String(describing: results[0][id])), \(String(describing: results[1][id]))")
                guard let winner = mine.first else { continue }
                let loser = 1 - winner
                #expect(results[winner][id] == .mine(epoch: 1))
                #expect(results[loser][id] == .owned(by: nodes[winner].node, advertise: "\(nodes[winner].node):1"))
            }
        }
    }

    @Test func aBoardTakenBackAfterAnotherNodeWroteItLoadsAndSnapshotsRight() throws {
        // The first owner's replica of the board is from its old epoch; it must not be trusted.
        try Self.withCluster { cluster in
            let a = try cluster.node("a", snapshotEvery: 4)
            let b = try cluster.node("b", snapshotEvery: 4)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 44)
            _ = try a.claim(boardA, force: false)
            try a.write([.create(maker.board), .append(boardA, maker.next(5))])
            _ = try b.claim(boardA, force: true)
            try b.write([.append(boardA, maker.next(6))])
            #expect(try a.claim(boardA, force: true) == .mine(epoch: 3))
            try a.write([.append(boardA, maker.next(7))])
            #expect(try a.load(boardA, recentLimit: 100)?.board == maker.board)
            #expect(try b.load(boardA, recentLimit: 100)?.recent == maker.all)
        }
    }

    @Test(.timeLimit(.minutes(1)))
    func aNodeStoppedInsideATransactionHoldsItsLeaseRowOnlyUntilTheIdleTimeout() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a", lease: 0.3)
            let b = try cluster.node("b", lease: 0.3)
            _ = try a.claim(boardA, force: false)
            // A's writer, as if stopped between the fence and COMMIT: its session, with the
            // store's settings, holds the lease row locked and sends nothing more.
            let stopped = try PostgresConnection(
                url: cluster.url, settings: PostgresStore.sessionSettings(leaseSeconds: 0.3))
            defer { stopped.close() }
            try stopped.query("BEGIN")
            try stopped.query("SELECT epoch FROM leases WHERE board = $1 FOR UPDATE", [.text(boardA.rawValue)])
            // B's claim waits for the row; the server ends the idle session (2 s) and B takes it.
            #expect(try Self.claimOnceFree(b, boardA, within: 30) == .mine(epoch: 2))
            #expect(throws: StoreError.self) { try stopped.query("COMMIT") }
        }
    }

    @Test func aConnectionTheServerDroppedIsOpenedAgain() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            _ = try a.claim(boardA, force: false)
            try a.write([.create(.defaultTemplate(id: boardA))])
            #expect(try cluster.dropConnections() >= 3)
            // The first use of each of the three connections may learn that it broke (a transient
            // error); after that, each is open again.
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 45)
            let op = maker.next(1)
            var failures: [StoreError] = []
            for _ in 0..<4 {
                do throws(StoreError) {
                    #expect(try a.load(boardA, recentLimit: 0) != nil)
                    #expect(try a.claim(boardA, force: false) == .mine(epoch: 1))
                    #expect(try a.renew() == [boardA])
                    try a.write([.append(boardA, op)])
                    break
                } catch {
                    failures.append(error)
                }
            }
            #expect(failures.count <= 3 && failures.allSatisfy { $0.kind == .transient }, "\(failures)")
            #expect(try a.load(boardA, recentLimit: 0)?.seq == 1)
            // The append went as a pipeline, at least the first time: the retry after a COMMIT
            // whose answer was lost stored it once.
            #expect(a.pipelinedWrites >= 1)
            #expect(try a.ops(of: boardA, since: 0, limit: 10) == .ops([op[0]], current: 1))
        }
    }

    @Test func aReadOnAConnectionTheServerDroppedIsAnsweredTheFirstTime() throws {
        try Self.withCluster { cluster in
            let a = try cluster.node("a")
            _ = try a.claim(boardA, force: false)
            try a.write([.create(.defaultTemplate(id: boardA))])
            // As after a failover: the reader's connection is gone while it is idle.
            try cluster.dropConnections()
            // Each read that finds its connection broken opens it again and runs once more.
            #expect(try a.load(boardA, recentLimit: 0)?.seq == 0)
            #expect(try a.exists(boardA))
            #expect(try a.owner(of: boardA) == "a")
            #expect(try a.nodes().map(\.name) == ["a"])
        }
    }
}

/// Opening a PostgreSQL store: migrations, concurrent first starts, and clear errors.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipped))
struct PostgresStartupTests {
    @Test func nodesStartingAtOnceOnANewDatabaseAllMigrateIt() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        let opened = Mutex<[Result<PostgresStore, StoreError>]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { n in
            let result = Result { () throws(StoreError) in
                try PostgresStore(url: database.url, node: "n\(n)", advertise: "n\(n):1")
            }
            opened.withLock { $0.append(result) }
        }
        let stores = try opened.withLock { $0 }.map { try $0.get() }
        #expect(stores.count == 4)
        let db = try PostgresConnection(url: database.url)
        defer { db.close() }
        #expect(try db.int("SELECT version FROM schema_version") == PostgresSchema.current)
        #expect(try db.int("SELECT count(*) FROM schema_version") == 1)
        stores.forEach { $0.close() }
    }

    @Test func aDatabaseWithANewerSchemaIsRefused() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        try PostgresStore(url: database.url, node: "a", advertise: "a:1").close()
        let db = try PostgresConnection(url: database.url)
        try db.query("UPDATE schema_version SET version = 999")
        db.close()
        let error = try #require(throws: StoreError.self) {
            try PostgresStore(url: database.url, node: "a", advertise: "a:1")
        }
        #expect(error.message.contains("schema version 999"))
    }

    @Test func aBadURLOrNodeNameIsRefusedClearly() throws {
        let error = try #require(throws: StoreError.self) {
            try PostgresStore(url: "postgresql://a@b:c:d/?=", node: "a", advertise: "a:1")
        }
        #expect(error.message.hasPrefix("not a PostgreSQL connection URL"))
        let url = try #require(TestPostgres.url)
        for name in ["", "a\u{0}b", String(repeating: "n", count: 200)] {
            let error = try #require(throws: StoreError.self) { try PostgresStore(url: url, node: name, advertise: "") }
            #expect(error.message.contains("node name"))
        }
    }

    @Test func anUnreachableServerIsATransientErrorThatNeverShowsThePassword() throws {
        // Port 1 on loopback: nothing listens there, so the connection is refused at once.
        let error = try #require(throws: StoreError.self) {
            try PostgresStore(url: "postgresql://ada:hunter2@127.0.0.1:1/boards", node: "a", advertise: "a:1")
        }
        #expect(error.kind == .transient)
        #expect(error.message.hasPrefix("postgresql://ada@127.0.0.1:1/boards: cannot connect"))
        #expect(!error.message.contains("hunter2"))
    }

    @Test(arguments: [
        ("08006", StoreError.Kind.transient), ("40001", .transient), ("40P01", .transient), ("57P01", .transient),
        ("53300", .transient), ("53100", .transient), ("23505", .permanent), ("22021", .permanent),
        ("42601", .permanent), ("XX000", .permanent),
    ])
    func sqlStatesAreClassifiedByWhetherARetryCanHelp(state: String, kind: StoreError.Kind) {
        #expect(PostgresConnection.kind(sqlState: state) == kind)
    }

    @Test func byteaAndBoundTextKeepEveryByte() throws {
        let database = try TestPostgres.database()
        defer { database.drop() }
        let db = try PostgresConnection(url: database.url)
        defer { db.close() }
        try db.execute("CREATE TABLE t (n int8 NOT NULL, v bytea NOT NULL)")
        let values = [
            "\u{0}", "\u{0}lead", "in\u{0}side", "trail\u{0}", "\u{1}\u{1B}[31m\u{7F}", "", "😀\u{0}",
            "'; DROP TABLE t; --",
        ]
        for (n, v) in values.enumerated() { try db.query("INSERT INTO t VALUES ($1, $2)", [.int(n), .utf8(v)]) }
        var back: [[UInt8]] = []
        try db.query("SELECT v FROM t ORDER BY n") { row in back.append(row.bytes(0)) }
        #expect(back == values.map { Array($0.utf8) })
        // Arrays keep quotes and backslashes; integers keep their sign.
        var items: [String] = []
        try db.query("SELECT unnest($1::text[])", [.textArray(["a\"b", "c\\d", "e,f", "{}"])]) {
            items.append($0.text(0))
        }
        #expect(items == ["a\"b", "c\\d", "e,f", "{}"])
        #expect(try db.int("SELECT $1::int8", [.int(-5_000_000_000)]) == -5_000_000_000)
        #expect(try db.int("SELECT -7::int4") == -7 && db.int("SELECT true") == 1)
    }
}
