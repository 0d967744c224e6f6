import BoardCore
import TestSupport
import Testing

@testable import BoardStore

/// The decoded snapshots the SQLite and PostgreSQL stores keep for reads of old seqs
/// (SnapshotCache.swift): what it serves, and its bound.
@Suite struct SnapshotCacheTests {
    private let board = Board.defaultTemplate(id: boardA)

    @Test func anEntryIsServedOnlyForTheSameTextAndOtherTextDropsIt() {
        let cache = SnapshotCache()
        let json = board.encoded(stored: true)
        cache.keep(board, of: boardA, at: 7, json: json)
        #expect(cache.board(of: boardA, at: 7, json: json) == board)
        #expect(cache.board(of: boardA, at: 8, json: json) == nil)
        #expect(cache.board(of: boardB, at: 7, json: json) == nil)
        // The row at seq 7 now holds other text (the board made again, another node's import…).
        var other = json
        other[other.count - 2] = UInt8(ascii: " ")
        #expect(cache.board(of: boardA, at: 7, json: other) == nil)
        #expect(cache.seqs(of: boardA).isEmpty)
        #expect(cache.bytes == 0)
        #expect(cache.board(of: boardA, at: 7, json: json) == nil)
    }

    @Test func theLeastRecentlyUsedGoFirstAndTheBytesStayWithinTheBound() {
        let json = board.encoded(stored: true)
        let cost = SnapshotCache.cost(ofJSON: json.count)
        let cache = SnapshotCache(limit: 2 * cost + cost / 2)
        cache.keep(board, of: boardA, at: 1, json: json)
        cache.keep(board, of: boardA, at: 2, json: json)
        #expect(cache.bytes == 2 * cost)
        _ = cache.board(of: boardA, at: 1, json: json)
        cache.keep(board, of: boardB, at: 3, json: json)
        #expect(cache.seqs(of: boardA) == [1])
        #expect(cache.seqs(of: boardB) == [3])
        #expect(cache.bytes == 2 * cost)
        for seq in 10..<40 {
            cache.keep(board, of: boardA, at: seq, json: json)
            #expect(cache.bytes <= cache.limit)
        }
        #expect(cache.seqs(of: boardA) == [38, 39])
        // Kept again at the same seq: one entry, counted once.
        cache.keep(board, of: boardA, at: 39, json: json)
        #expect(cache.bytes == 2 * cost)
    }

    @Test func aSnapshotOverTheBoundIsNotKeptAndForgetDropsOneBoard() {
        let json = board.encoded(stored: true)
        let cost = SnapshotCache.cost(ofJSON: json.count)
        let small = SnapshotCache(limit: cost - 1)
        small.keep(board, of: boardA, at: 1, json: json)
        #expect(small.bytes == 0)
        #expect(SnapshotCache(limit: 0).limit == 0)

        let cache = SnapshotCache(limit: 10 * cost)
        for seq in 1...3 {
            cache.keep(board, of: boardA, at: seq, json: json)
            cache.keep(board, of: boardB, at: seq, json: json)
        }
        cache.forget(boardA)
        #expect(cache.seqs(of: boardA).isEmpty)
        #expect(cache.seqs(of: boardB) == [1, 2, 3])
        #expect(cache.bytes == 3 * cost)
    }

    // MARK: In the stores (SQLite, and PostgreSQL with a test server)

    @Test(arguments: StoreContractTests.stores)
    func aCachedReadIsWhatTheStoreHoldsThroughDeletionImportAndChangesBehindItsBack(_ store: Backend) throws {
        try StoreContract(backend: store).aCachedReadIsWhatTheStoreHoldsThroughDeletionImportAndChangesBehindItsBack()
    }

    @Test(arguments: StoreContractTests.stores)
    func theStoresDecodedSnapshotsStayWithinTheirBound(_ store: Backend) throws {
        try StoreContract(backend: store).theStoresDecodedSnapshotsStayWithinTheirBound()
    }
}

extension StoreContract {
    /// Writes `count` ops of `maker` one batch at a time (so that every board made this way has its
    /// snapshots at the same seqs).
    private func append(_ count: Int, of maker: inout OpMaker, to store: any BoardStore) throws {
        for _ in 0..<count { try store.write([.append(maker.board.id, maker.next(1))]) }
    }

    /// Every seq of `maker`'s board, read twice (the second time from the cache), is its replay.
    private func expectEverySeq(of maker: OpMaker, in store: any BoardStore, from first: Seq = 0, _ what: String) throws
    {
        for _ in 0..<2 {
            for seq in first...maker.seq {
                guard case .board(let board, _) = try store.board(boardA, at: seq) else {
                    Issue.record("\(what): no board at seq \(seq)")
                    continue
                }
                #expect(board == maker.boards[seq], "\(what): the board at seq \(seq)")
            }
        }
    }

    func aCachedReadIsWhatTheStoreHoldsThroughDeletionImportAndChangesBehindItsBack() throws {
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 7)
            let cache = try #require(space.snapshotCache(of: store))
            var first = OpMaker(board: .defaultTemplate(id: boardA), seed: 31)
            try store.write([.create(first.board)])
            try append(40, of: &first, to: store)
            try expectEverySeq(of: first, in: store, "the first board")
            let cached = cache.seqs(of: boardA)
            #expect(cached.count >= 40 / 7, "the reads kept the snapshots they decoded: \(cached)")

            // Another writer of the database (a node of the cluster, an operator) replaces the
            // snapshot at a kept seq with the one at seq 0: the read is of what the row now holds.
            let seq = try #require(cached.last { $0 > 0 })
            try space.execute(
                "UPDATE snapshots SET snapshot = (SELECT snapshot FROM snapshots WHERE board = 'alpha' AND seq = 0) "
                    + "WHERE board = 'alpha' AND seq = \(seq)")
            #expect(try store.board(boardA, at: seq) == .board(first.boards[0], time: first.all[seq - 1].time))

            // Deleted: nothing of it is served, and its entries are gone.
            try store.write([.delete(boardA)])
            #expect(try store.board(boardA, at: 7) == .unknownBoard)
            #expect(cache.seqs(of: boardA).isEmpty)

            // Made again under the same id with other ops: its snapshots are at the same seqs.
            var second = OpMaker(board: .defaultTemplate(id: boardA), seed: 32)
            try store.write([.create(second.board)])
            try append(40, of: &second, to: store)
            #expect(second.boards[7] != first.boards[7])
            try expectEverySeq(of: second, in: store, "the board made again")

            // Replaced by an import.
            var third = OpMaker(board: .defaultTemplate(id: boardA), seed: 33)
            let base = third.board
            try store.restore(BoardArchive(board: base, baseSeq: 0, ops: third.next(40)), replace: true)
            try expectEverySeq(of: third, in: store, "the imported board")
            // And restored by an op (a new seq with the board of an old one), then read again.
            try store.write([.append(boardA, third.next(1))])
            try expectEverySeq(of: third, in: store, "after more ops")
        }
    }

    func theStoresDecodedSnapshotsStayWithinTheirBound() throws {
        try withSpace(backend) { space in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 34)
            // About three snapshots of this board (it grows a little with the ops).
            let limit = 3 * SnapshotCache.cost(ofJSON: maker.board.encoded(stored: true).count)
            let store = try space.open(snapshotEvery: 5, snapshotCacheBytes: limit)
            let cache = try #require(space.snapshotCache(of: store))
            try store.write([.create(maker.board)])
            try append(60, of: &maker, to: store)
            var rng = SplitMix64(seed: 34)
            for _ in 0..<120 {
                let seq = Int.random(in: 0...maker.seq, using: &rng)
                #expect(
                    try store.board(boardA, at: seq)
                        == .board(maker.boards[seq], time: seq == 0 ? nil : maker.all[seq - 1].time))
                #expect(cache.bytes <= limit)
            }
            #expect((1...3).contains(cache.seqs(of: boardA).count), "\(cache.seqs(of: boardA))")
        }
    }
}
