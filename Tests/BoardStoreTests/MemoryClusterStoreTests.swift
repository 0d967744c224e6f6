import BoardCore
import BoardStore
import TestSupport
import Testing

/// The in-memory cluster store keeps the `ClusterStore` fencing rules exactly: one live lease per
/// board, an epoch that grows each time it changes hands, and a write that commits only under the
/// lease and epoch it was claimed at, unexpired, continuing the stored seq; else nothing, `.fenced`.
@Suite struct MemoryClusterStoreTests {
    /// A database with a clock the test moves, and three nodes on it with 5 s leases.
    final class Cluster: Sendable {
        let clock = ManualClock()
        let database: MemoryClusterDatabase
        let a: MemoryClusterStore
        let b: MemoryClusterStore
        let c: MemoryClusterStore

        init() {
            let clock = self.clock
            database = MemoryClusterDatabase(clock: { clock.now })
            a = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:1001")
            b = MemoryClusterStore(database: database, node: "b", advertise: "127.0.0.1:1002")
            c = MemoryClusterStore(database: database, node: "c", advertise: "127.0.0.1:1003")
        }

        func advance(_ milliseconds: Int64) { clock.advance(milliseconds) }
    }

    func creation(_ maker: OpMaker) -> StoreWrite { .create(maker.board) }

    /// The kind of the error `body` throws, or nil when it does not throw.
    func failure(_ body: () throws -> Void) -> StoreError.Kind? {
        do {
            try body()
            return nil
        } catch {
            return (error as? StoreError)?.kind
        }
    }

    @Test func aFreeBoardIsClaimedAtEpochOneAndOthersAreToldWhoOwnsIt() throws {
        let cluster = Cluster()
        #expect(try cluster.a.claim(boardA, force: false) == .mine(epoch: 1))
        #expect(try cluster.b.claim(boardA, force: false) == .owned(by: "a", advertise: "127.0.0.1:1001"))
        #expect(try cluster.a.claim(boardA, force: false) == .mine(epoch: 1), "claiming its own lease renews it")
        #expect(try cluster.c.owner(of: boardA) == "a")
        #expect(try cluster.c.owner(of: boardB) == nil)
    }

    @Test func theOwnerWritesAndOthersAreFencedAndCommitNothing() throws {
        let cluster = Cluster()
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 1)
        _ = try cluster.a.claim(boardA, force: false)
        try cluster.a.write([creation(maker), .append(boardA, maker.next(3))])
        let ops = maker.next(1)
        #expect(failure { try cluster.b.write([.append(boardA, ops)]) } == .fenced)
        #expect(try cluster.b.load(boardA, recentLimit: 0)?.seq == 3)
        try cluster.a.write([.append(boardA, ops)])
        #expect(try cluster.c.load(boardA, recentLimit: 10)?.recent == maker.all)
    }

    @Test func anExpiredLeaseIsTakenAtTheNextEpochAndTheOldOwnerIsFenced() throws {
        let cluster = Cluster()
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 2)
        _ = try cluster.a.claim(boardA, force: false)
        try cluster.a.write([creation(maker), .append(boardA, maker.next(2))])
        cluster.advance(4_999)
        #expect(try cluster.b.claim(boardA, force: false) == .owned(by: "a", advertise: "127.0.0.1:1001"))
        cluster.advance(1)
        #expect(try cluster.b.claim(boardA, force: false) == .mine(epoch: 2))
        // a's next op continues the seq, but a's epoch is stale.
        let next = maker.next(1)
        #expect(failure { try cluster.a.write([.append(boardA, next)]) } == .fenced)
        #expect(try cluster.a.renew().isEmpty, "the lost lease is not renewed")
        try cluster.b.write([.append(boardA, next)])
        #expect(try cluster.a.load(boardA, recentLimit: 0)?.seq == 3)
    }

    @Test func anExpiredLeaseFencesItsHolderEvenWhenNobodyTookItAndIsNotRevived() throws {
        let cluster = Cluster()
        let maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 3)
        _ = try cluster.a.claim(boardA, force: false)
        cluster.advance(5_000)
        #expect(failure { try cluster.a.write([creation(maker)]) } == .fenced)
        #expect(try cluster.a.renew().isEmpty)
        #expect(try cluster.a.exists(boardA) == false)
        #expect(try cluster.a.claim(boardA, force: false) == .mine(epoch: 2), "claimed afresh: a new epoch")
        try cluster.a.write([creation(maker)])
    }

    @Test func renewalKeepsTheLeaseAlive() throws {
        let cluster = Cluster()
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 4)
        _ = try cluster.a.claim(boardA, force: false)
        _ = try cluster.a.claim(boardB, force: false)
        try cluster.a.write([creation(maker)])
        for _ in 0..<5 {
            cluster.advance(4_000)
            #expect(try cluster.a.renew() == [boardA, boardB])
        }
        try cluster.a.write([.append(boardA, maker.next(1))])
        #expect(try cluster.b.claim(boardA, force: false) == .owned(by: "a", advertise: "127.0.0.1:1001"))
    }

    @Test func aForcedClaimTakesALiveLeaseAndFencesItsOwner() throws {
        let cluster = Cluster()
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 5)
        _ = try cluster.a.claim(boardA, force: false)
        try cluster.a.write([creation(maker)])
        #expect(try cluster.b.claim(boardA, force: true) == .mine(epoch: 2))
        #expect(failure { try cluster.a.write([.append(boardA, maker.next(1))]) } == .fenced)
        #expect(try cluster.a.renew().isEmpty)
        try cluster.b.write([.delete(boardA)])
        #expect(try cluster.c.exists(boardA) == false)
    }

    @Test func aBatchThatDoesNotContinueTheStoredSeqCommitsNothingOfAnyBoard() throws {
        let cluster = Cluster()
        var alpha = OpMaker(board: .defaultTemplate(id: boardA), seed: 6)
        var beta = OpMaker(board: .defaultTemplate(id: boardB), seed: 7)
        _ = try cluster.a.claim(boardA, force: false)
        _ = try cluster.a.claim(boardB, force: false)
        try cluster.a.write([creation(alpha), creation(beta), .append(boardA, alpha.next(2))])
        let betaOps = beta.next(1)
        let gap = Array(alpha.next(2).dropFirst())  // seq 4 after 2
        #expect(failure { try cluster.a.write([.append(boardB, betaOps), .append(boardA, gap)]) } == .fenced)
        #expect(try cluster.a.load(boardB, recentLimit: 0)?.seq == 0, "the other board's ops were not committed")
        let repeated = Array(alpha.all.prefix(2).suffix(1))  // seq 2 again
        #expect(failure { try cluster.a.write([.append(boardA, repeated)]) } == .fenced)
        #expect(failure { try cluster.a.write([.append(BoardID("nowhere")!, betaOps)]) } == .fenced)
        try cluster.a.write([.append(boardB, betaOps)])
        #expect(try cluster.a.load(boardA, recentLimit: 0)?.seq == 2)
        #expect(try cluster.a.load(boardB, recentLimit: 0)?.seq == 1)
    }

    @Test func aReleasedLeaseIsFreeAtOnceAndItsFormerHolderIsFenced() throws {
        let cluster = Cluster()
        let maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 8)
        _ = try cluster.a.claim(boardA, force: false)
        try cluster.a.release(boardA)
        #expect(try cluster.a.owner(of: boardA) == nil)
        #expect(try cluster.b.claim(boardA, force: false) == .mine(epoch: 2))
        #expect(failure { try cluster.a.write([creation(maker)]) } == .fenced)
        // Releasing a lease another node holds now changes nothing.
        try cluster.a.release(boardA)
        #expect(try cluster.c.owner(of: boardA) == "b")
        #expect(cluster.database.epoch(of: boardA) == 2)
    }

    @Test func nodesSayWhoIsAliveAndHowManyBoardsEachOwns() throws {
        let cluster = Cluster()
        _ = try cluster.a.claim(boardA, force: false)
        _ = try cluster.a.claim(boardB, force: false)
        _ = try cluster.b.claim(BoardID("gamma")!, force: false)
        #expect(
            try cluster.c.nodes() == [
                ClusterNode(name: "a", advertise: "127.0.0.1:1001", alive: true, boards: 2),
                ClusterNode(name: "b", advertise: "127.0.0.1:1002", alive: true, boards: 1),
                ClusterNode(name: "c", advertise: "127.0.0.1:1003", alive: true, boards: 0),
            ])
        cluster.advance(3_000)
        _ = try cluster.a.renew()
        cluster.advance(2_000)
        // b and c have not renewed for a whole lease; a renewed 2 s ago.
        #expect(
            try cluster.a.nodes().map { [$0.name, "\($0.alive)", "\($0.boards)"] } == [
                ["a", "true", "2"], ["b", "false", "0"], ["c", "false", "0"],
            ])
    }

    @Test func everyNodeGetsTheSameClusterSecret() throws {
        let cluster = Cluster()
        let secret = try cluster.a.clusterSecret()
        #expect(secret.count == 32)
        #expect(try cluster.b.clusterSecret() == secret)
        #expect(try cluster.a.clusterSecret() == secret)
    }
}
