import BoardCore
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import BoardStore

/// The store tests, written once. `StoreContractTests` runs every one of them on each store under
/// test (PostgreSQL only with a test server; without one it says it is skipped).
struct StoreContract {
    let backend: Backend
    func createdBoardLoadsAtSeqZeroWithNoOps() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            let board = Board.defaultTemplate(id: boardA)
            try store.write([.create(board)])
            #expect(try store.load(boardA, recentLimit: 10) == StoredBoard(board: board, seq: 0, recent: []))
            #expect(try store.load(boardB, recentLimit: 10) == nil)
            #expect(
                try store.list(after: nil, limit: 1000) == [
                    BoardSummary(id: boardA, title: "alpha", seq: 0, template: .colors)
                ])
        }
    }

    func theBoardListIsPagedByID() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            let ids = ["a", "b", "c", "d", "e"].map { BoardID($0)! }
            try store.write(ids.reversed().map { .create(.defaultTemplate(id: $0)) })
            #expect(try store.list(after: nil, limit: 2).map(\.id) == Array(ids[0..<2]))
            #expect(try store.list(after: ids[1], limit: 2).map(\.id) == Array(ids[2..<4]))
            #expect(try store.list(after: ids[3], limit: 2).map(\.id) == [ids[4]])
            #expect(try store.list(after: ids[4], limit: 2).isEmpty)
            #expect(try store.exists(ids[2]) && !(try store.exists(BoardID("zz")!)))
        }
    }

    func layoutsAndDetailsSurviveTheStoreAndAnArchive(_ template: Template) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            let board = template.board(id: boardA)
            try store.write([.create(board)])
            #expect(try store.load(boardA, recentLimit: 0)?.board == board)
            let archive = try #require(try store.archive(of: boardA))
            let parsed = try BoardArchive(json: archive.encoded())
            #expect(parsed.board == board && parsed.board.zones.map(\.layout) == board.zones.map(\.layout))
            store.close()
        }
    }

    func theListSaysWhichTemplateMadeEachBoardThroughOpsAReopenAndAnArchive() throws {
        try withSpace(backend) { space in
            var kanban = OpMaker(board: Template.kanban.board(id: boardA), seed: 35)
            // A board from a definition (zone by zone) names no template.
            var custom = Template.strips.board(id: boardB)
            custom.template = nil
            // Ids, seqs and templates (the titles: OpMaker's retitles reach some stores' lists only).
            let expected: [String] = ["alpha 9 kanban", "beta 0 none"]
            func listed(_ store: any BoardStore) throws -> [String] {
                try store.list(after: nil, limit: 10).map {
                    "\($0.id.rawValue) \($0.seq) \($0.template?.rawValue ?? "none")"
                }
            }
            do {
                let store = try space.open(snapshotEvery: 4)
                try store.write([.create(kanban.board), .create(custom), .append(boardA, kanban.next(9))])
                #expect(try listed(store) == expected)
                store.close()
            }
            let store = try space.open(snapshotEvery: 4)
            #expect(try listed(store) == expected)
            // The snapshots keep it too, past ops, retitles and restores (OpMaker makes some).
            #expect(try store.load(boardA, recentLimit: 0)?.board.template == .kanban)
            #expect(try store.load(boardB, recentLimit: 0)?.board.template == nil)
            // Export writes it with the board; import (here over the deleted board) lists it again.
            let archive = try #require(try store.archive(of: boardA))
            #expect(String(decoding: archive.encoded(), as: UTF8.self).contains(#""template":"kanban"}"#))
            try store.write([.delete(boardA)])
            #expect(try listed(store) == [expected[1]])
            try store.restore(try BoardArchive(json: archive.encoded()), replace: false)
            #expect(try listed(store) == expected)
            #expect(try store.load(boardA, recentLimit: 0)?.board == kanban.board)
            store.close()
        }
    }

    func appendedOpsLoadAsTheReplayedBoardWithTheNewestOps() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 1)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(3))])
            try store.write([.append(boardA, maker.next(4))])
            let loaded = try #require(try store.load(boardA, recentLimit: 5))
            #expect(loaded.board == maker.board)
            #expect(loaded.seq == 7)
            #expect(loaded.recent == Array(maker.all.suffix(5)))
            #expect(try store.load(boardA, recentLimit: 0)?.recent == [])
        }
    }

    func creatingAnExistingBoardKeepsIt() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 2)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(2))])
            do {
                try store.write([.create(.defaultTemplate(id: boardA))])
            } catch let error as StoreError where backend == .postgres && error.kind == .fenced {
                // A cluster's owner never creates a board it loaded: the store says the create is
                // out of step rather than ignoring it. Either way the board stays as it was.
            }
            #expect(try store.load(boardA, recentLimit: 0)?.seq == 2)
            #expect(try store.load(boardA, recentLimit: 0)?.board == maker.board)
        }
    }

    func snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps() throws {
        let seed: UInt64 = 20_240_601
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 7, keepOps: 20)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: seed)
            var sizes = SplitMix64(seed: seed)
            try store.write([.create(.defaultTemplate(id: boardA))])
            while maker.seq < 500 {
                try store.write([.append(boardA, maker.next(Int.random(in: 1...12, using: &sizes)))])
                let loaded = try #require(try store.load(boardA, recentLimit: 5))
                #expect(loaded.board == maker.board, "seed \(seed), seq \(maker.seq)")
                #expect(loaded.seq == maker.seq)
                #expect(loaded.recent == Array(maker.all.suffix(5)))
            }
            // At least keepOps ops stay; at most keepOps plus one snapshot interval.
            let kept = try #require(try store.ops(of: boardA, since: maker.seq - 20, limit: 100).ops)
            #expect(kept == Array(maker.all.suffix(20)))
            #expect(try store.ops(of: boardA, since: maker.seq - 27, limit: 100) == .gone)
            // The base and every snapshot after it: one each 7 ops of the 20 kept, and the latest.
            #expect(try space.count("snapshots") <= 2 + 20 / 7)
            #expect(try space.count("ops") < 28)
        }
    }

    func theBoardAtAnySeqIsTheReplayOfTheLogToIt() throws {
        let seed: UInt64 = 20_261_202
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 7, keepOps: 20)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: seed)
            var rng = SplitMix64(seed: seed)
            try store.write([.create(.defaultTemplate(id: boardA))])
            var oldest = 0
            while maker.seq < 300 {
                try store.write([.append(boardA, maker.next(Int.random(in: 1...12, using: &rng)))])
                // Every kept seq of the last stretch (across snapshots), and a few at random.
                let recent = Array(max(0, maker.seq - 25)...maker.seq)
                let random = (0..<5).map { _ in Int.random(in: 0...maker.seq, using: &rng) }
                for seq in recent + random {
                    switch try store.board(boardA, at: seq) {
                    case .board(let board, let time):
                        #expect(board == maker.boards[seq], "seed \(seed): the board at seq \(seq) of \(maker.seq)")
                        if let time {
                            #expect(time == maker.all[seq - 1].time, "seq \(seq)")
                        } else {
                            // Not known only where the op itself is no longer kept: seq 0, or the oldest kept.
                            #expect(
                                try seq == 0 || store.ops(of: boardA, since: seq - 1, limit: 1) == .gone, "seq \(seq)")
                        }
                        #expect(seq >= oldest, "seq \(seq) answered below the oldest kept, \(oldest)")
                    case .compacted(let kept):
                        // Compaction only moves forward, and keeps at least 20 ops.
                        #expect(seq < kept && kept >= oldest && kept <= maker.seq - 20, "seq \(seq), oldest \(kept)")
                        oldest = kept
                    case let other:
                        Issue.record("seq \(seq): \(other)")
                    }
                }
                #expect(try store.board(boardA, at: maker.seq + 1) == .ahead(current: maker.seq))
            }
            #expect(oldest > 0, "nothing was compacted")
            #expect(try store.board(boardB, at: 0) == .unknownBoard)
            // After a restart too.
            store.close()
            let reopened = try space.open(snapshotEvery: 7, keepOps: 20)
            #expect(
                try reopened.board(boardA, at: maker.seq - 3)
                    == .board(maker.boards[maker.seq - 3], time: maker.all[maker.seq - 4].time))
        }
    }

    func theHistoryIsNewestFirstWithNamesAndEndsAtTheOldestKept() throws {
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 7, keepOps: 20)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 5)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(12))])
            #expect(
                try store.history(of: boardA, before: .max, limit: 5)
                    == .ops(Array(maker.all[7..<12].reversed()), current: 12, oldest: 0))
            #expect(
                try store.history(of: boardA, before: 8, limit: 5)
                    == .ops(Array(maker.all[2..<7].reversed()), current: 12, oldest: 0))
            #expect(
                try store.history(of: boardA, before: 3, limit: 5)
                    == .ops(Array(maker.all[0..<2].reversed()), current: 12, oldest: 0))
            #expect(maker.all.contains { $0.name != nil } && maker.all.contains { $0.name == nil })
            try store.write([.append(boardA, maker.next(40))])
            guard case .ops(let ops, 52, let oldest) = try store.history(of: boardA, before: .max, limit: 100) else {
                Issue.record("no page")
                return
            }
            #expect(oldest >= 52 - 27 && oldest <= 32)
            #expect(ops == Array(maker.all[oldest...].reversed()))
            #expect(try store.history(of: boardB, before: .max, limit: 5) == .unknownBoard)
        }
    }

    func opsSincePagesOldestFirstWithTheCurrentSeq() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 3)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(25))])
            #expect(try store.ops(of: boardA, since: 0, limit: 10) == .ops(Array(maker.all[0..<10]), current: 25))
            #expect(try store.ops(of: boardA, since: 10, limit: 10) == .ops(Array(maker.all[10..<20]), current: 25))
            #expect(try store.ops(of: boardA, since: 20, limit: 10) == .ops(Array(maker.all[20..<25]), current: 25))
            #expect(try store.ops(of: boardA, since: 25, limit: 10) == .ops([], current: 25))
            #expect(try store.ops(of: boardA, since: 99, limit: 10) == .ops([], current: 25))
            #expect(try store.ops(of: boardA, since: 0, limit: 0) == .ops([], current: 25))
            #expect(try store.ops(of: boardB, since: 0, limit: 10) == .unknownBoard)
        }
    }

    func opsSinceIsGoneOnceTheOpsAfterItWereCompacted() throws {
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 10, keepOps: 15)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 4)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(50))])
            // The snapshot at 50 moved the base to 35: ops 36…50 remain.
            #expect(try store.ops(of: boardA, since: 0, limit: 100) == .gone)
            #expect(try store.ops(of: boardA, since: 34, limit: 100) == .gone)
            #expect(try store.ops(of: boardA, since: 35, limit: 100) == .ops(Array(maker.all[35...]), current: 50))
        }
    }

    func committedOpIDsSurviveARestartForDeduplication() throws {
        try withSpace(backend) { space in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 5)
            do {
                let store = try space.open(snapshotEvery: 10)
                try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(35))])
                store.close()
            }
            let store = try space.open(snapshotEvery: 10)
            let loaded = try #require(try store.load(boardA, recentLimit: 1000))
            #expect(loaded.recent.map(\.opID) == maker.all.map(\.opID))
            let sequencer = Sequencer(board: loaded.board, seq: loaded.seq, recent: loaded.recent)
            #expect(sequencer.committedSeq(of: maker.all[3].opID) == 4)
        }
    }

    func revocationsAreKeptAcrossAReopenUntilTheirTokensWouldHaveExpired() throws {
        try withSpace(backend) { space in
            let first = Revocation(id: String(repeating: "a", count: 64), board: boardA, until: 2_000)
            let every = Revocation(id: String(repeating: "b", count: 64), board: nil, until: 1_500)
            do {
                let store = try #require(try space.open() as? any RevocationStore)
                try store.revoke(first, now: 1_000)
                try store.revoke(every, now: 1_000)
                // Revoked again with an earlier expiry: the later one is kept.
                try store.revoke(Revocation(id: first.id, board: boardA, until: 1_200), now: 1_000)
                #expect(try store.revocations(now: 1_000) == [first, every])
                #expect(try store.revocations(now: 1_500) == [first], "in force only until the token's expiry")
                store.close()
            }
            let store = try #require(try space.open() as? any RevocationStore)
            #expect(try store.revocations(now: 1_000) == [first, every], "kept across a reopen")
            // The next revocation forgets the expired ones: the table holds only live tokens.
            let later = Revocation(id: String(repeating: "c", count: 64), board: boardB, until: 9_000)
            try store.revoke(later, now: 1_600)
            #expect(try store.revocations(now: 0) == [first, later])
            if backend != .memory { #expect(try space.count("revocations") == 2) }
        }
    }

    func reopeningAfterCloseKeepsEveryBoardAndOp() throws {
        try withSpace(backend) { space in
            var a = OpMaker(board: .defaultTemplate(id: boardA), seed: 6)
            var b = OpMaker(board: .defaultTemplate(id: boardB), seed: 7)
            do {
                let store = try space.open(snapshotEvery: 4)
                try store.write([.create(a.board), .create(b.board), .append(boardA, a.next(9))])
                try store.write([.append(boardB, b.next(3)), .append(boardA, a.next(2))])
                store.close()
                #expect(throws: StoreError.self) { try store.list(after: nil, limit: 1000) }
            }
            let store = try space.open(snapshotEvery: 4)
            #expect(
                try store.list(after: nil, limit: 1000) == [
                    // The title as the ops left it (a `retitle` among them changes the row).
                    BoardSummary(id: boardA, title: a.board.title, seq: 11, template: .colors),
                    BoardSummary(id: boardB, title: b.board.title, seq: 3, template: .colors),
                ])
            #expect(try store.load(boardA, recentLimit: 100) == StoredBoard(board: a.board, seq: 11, recent: a.all))
            #expect(try store.load(boardB, recentLimit: 100) == StoredBoard(board: b.board, seq: 3, recent: b.all))
            // The writer's replica is rebuilt lazily: appending after the restart still snapshots right.
            try store.write([.append(boardA, a.next(10))])
            #expect(try store.load(boardA, recentLimit: 0)?.board == a.board)
        }
    }

    func deletingABoardRemovesItsSnapshotsAndLog() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 8)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(5))])
            try store.write([.delete(boardA), .append(boardA, maker.next(1))])
            #expect(try store.load(boardA, recentLimit: 10) == nil)
            #expect(try store.list(after: nil, limit: 1000) == [])
            #expect(try store.ops(of: boardA, since: 0, limit: 10) == .unknownBoard)
            try store.write([.create(.defaultTemplate(id: boardA))])
            #expect(try store.load(boardA, recentLimit: 10)?.seq == 0)
        }
    }

    func aFailedBatchStoresNothingAndLaterBatchesStillWork() throws {
        try withSpace(backend) { space in
            let store = try space.open()
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 9)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(2))])
            let good = maker.next(1)
            var gap = maker.next(2)
            gap.removeFirst()
            #expect(throws: StoreError.self) {
                try store.write([.create(.defaultTemplate(id: boardB)), .append(boardA, good), .append(boardA, gap)])
            }
            #expect(try store.list(after: nil, limit: 1000).map(\.id) == [boardA])
            #expect(try store.load(boardA, recentLimit: 0)?.seq == 2)
            var again = OpMaker(board: .defaultTemplate(id: boardA), seed: 9)
            _ = again.next(2)
            try store.write([.append(boardA, again.next(3))])
            #expect(try store.load(boardA, recentLimit: 0) == StoredBoard(board: again.board, seq: 5, recent: []))
        }
    }

    func readsRunWhileTheWriterCommits() async throws {
        let space = try StoreSpace(backend)
        defer { space.remove() }
        let store = try space.open(snapshotEvery: 10, keepOps: 50)
        try store.write([.create(.defaultTemplate(id: boardA))])
        // The writer says when it stops, so that the reads stop too: a failed write ends the test
        // with the writer's error instead of leaving the reads waiting for seq 300 forever.
        let writerStopped = Flag()
        let writer = Task.detached {
            defer { writerStopped.set() }
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 10)
            for _ in 0..<100 { try store.write([.append(boardA, maker.next(3))]) }
            return maker.board
        }
        // 300 ops take well under a second; a minute means a stuck writer, even on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(60)
        var lastSeq = 0
        while lastSeq < 300 {
            let stopped = writerStopped.isSet
            let loaded = try #require(try store.load(boardA, recentLimit: 10))
            #expect(loaded.seq >= lastSeq)
            #expect(loaded.recent.last?.seq ?? 0 == loaded.seq)
            lastSeq = loaded.seq
            // Read once more after the writer stopped: its last commit is then visible.
            if stopped { break }
            guard ContinuousClock.now < deadline else {
                writer.cancel()
                Issue.record("the writer did not reach seq 300 within 60 s (at seq \(lastSeq))")
                return
            }
            await Task.yield()
        }
        let written = try await writer.value  // throws the writer's error, if it failed
        #expect(lastSeq == 300, "the reads saw every commit")
        #expect(try written == store.load(boardA, recentLimit: 0)?.board)
    }
}

/// A flag one task sets and another reads.
private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}
