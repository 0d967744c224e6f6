import BoardCore
import Foundation
import TestSupport
import Testing

@testable import BoardStore

@Suite struct SQLiteStoreTests {
    @Test func createdBoardLoadsAtSeqZeroWithNoOps() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
            let board = Board.defaultTemplate(id: boardA)
            try store.write([.create(board)])
            #expect(try store.load(boardA, recentLimit: 10) == StoredBoard(board: board, seq: 0, recent: []))
            #expect(try store.load(boardB, recentLimit: 10) == nil)
            #expect(try store.list(after: nil, limit: 1000) == [BoardSummary(id: boardA, title: "alpha", seq: 0)])
        }
    }

    @Test(arguments: [true, false])
    func theBoardListIsPagedByID(sqlite: Bool) throws {
        try withTempDirectory { dir in
            let store: any BoardStore = sqlite ? try SQLiteStore(directory: dir.path) : MemoryStore()
            let ids = ["a", "b", "c", "d", "e"].map { BoardID($0)! }
            try store.write(ids.reversed().map { .create(.defaultTemplate(id: $0)) })
            #expect(try store.list(after: nil, limit: 2).map(\.id) == Array(ids[0..<2]))
            #expect(try store.list(after: ids[1], limit: 2).map(\.id) == Array(ids[2..<4]))
            #expect(try store.list(after: ids[3], limit: 2).map(\.id) == [ids[4]])
            #expect(try store.list(after: ids[4], limit: 2).isEmpty)
            #expect(try store.exists(ids[2]) && !(try store.exists(BoardID("zz")!)))
        }
    }

    @Test(arguments: Template.allCases)
    func layoutsAndDetailsSurviveTheStoreAndAnArchive(_ template: Template) throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
            let board = template.board(id: boardA)
            try store.write([.create(board)])
            #expect(try store.load(boardA, recentLimit: 0)?.board == board)
            let archive = try #require(try store.archive(of: boardA))
            let parsed = try BoardArchive(json: archive.encoded())
            #expect(parsed.board == board && parsed.board.zones.map(\.layout) == board.zones.map(\.layout))
            store.close()
        }
    }

    @Test func appendedOpsLoadAsTheReplayedBoardWithTheNewestOps() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
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

    @Test func creatingAnExistingBoardKeepsIt() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 2)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(2))])
            try store.write([.create(.defaultTemplate(id: boardA))])
            #expect(try store.load(boardA, recentLimit: 0)?.seq == 2)
            #expect(try store.load(boardA, recentLimit: 0)?.board == maker.board)
        }
    }

    @Test func snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps() throws {
        let seed: UInt64 = 20_240_601
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path, snapshotEvery: 7, keepOps: 20)
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
            // Two snapshots at most: the base and the latest.
            let reader = try SQLiteConnection(path: dir.file(SQLiteStore.databaseName))
            #expect(try reader.int("SELECT count(*) FROM snapshots") ?? 0 <= 2)
            #expect(try reader.int("SELECT count(*) FROM ops") ?? 0 < 28)
            reader.close()
        }
    }

    @Test func opsSincePagesOldestFirstWithTheCurrentSeq() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
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

    @Test func opsSinceIsGoneOnceTheOpsAfterItWereCompacted() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path, snapshotEvery: 10, keepOps: 15)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 4)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(50))])
            // The snapshot at 50 moved the base to 35: ops 36…50 remain.
            #expect(try store.ops(of: boardA, since: 0, limit: 100) == .gone)
            #expect(try store.ops(of: boardA, since: 34, limit: 100) == .gone)
            #expect(try store.ops(of: boardA, since: 35, limit: 100) == .ops(Array(maker.all[35...]), current: 50))
        }
    }

    @Test func committedOpIDsSurviveARestartForDeduplication() throws {
        try withTempDirectory { dir in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 5)
            do {
                let store = try SQLiteStore(directory: dir.path, snapshotEvery: 10)
                try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(35))])
                store.close()
            }
            let store = try SQLiteStore(directory: dir.path, snapshotEvery: 10)
            let loaded = try #require(try store.load(boardA, recentLimit: 1000))
            #expect(loaded.recent.map(\.opID) == maker.all.map(\.opID))
            let sequencer = Sequencer(board: loaded.board, seq: loaded.seq, recent: loaded.recent)
            #expect(sequencer.committedSeq(of: maker.all[3].opID) == 4)
        }
    }

    @Test func reopeningAfterCloseKeepsEveryBoardAndOp() throws {
        try withTempDirectory { dir in
            var a = OpMaker(board: .defaultTemplate(id: boardA), seed: 6)
            var b = OpMaker(board: .defaultTemplate(id: boardB), seed: 7)
            do {
                let store = try SQLiteStore(directory: dir.path, snapshotEvery: 4)
                try store.write([.create(a.board), .create(b.board), .append(boardA, a.next(9))])
                try store.write([.append(boardB, b.next(3)), .append(boardA, a.next(2))])
                store.close()
                #expect(throws: StoreError.self) { try store.list(after: nil, limit: 1000) }
            }
            let store = try SQLiteStore(directory: dir.path, snapshotEvery: 4)
            #expect(
                try store.list(after: nil, limit: 1000) == [
                    BoardSummary(id: boardA, title: "alpha", seq: 11), BoardSummary(id: boardB, title: "beta", seq: 3),
                ])
            #expect(try store.load(boardA, recentLimit: 100) == StoredBoard(board: a.board, seq: 11, recent: a.all))
            #expect(try store.load(boardB, recentLimit: 100) == StoredBoard(board: b.board, seq: 3, recent: b.all))
            // The writer's replica is rebuilt lazily: appending after the restart still snapshots right.
            try store.write([.append(boardA, a.next(10))])
            #expect(try store.load(boardA, recentLimit: 0)?.board == a.board)
        }
    }

    @Test func deletingABoardRemovesItsSnapshotsAndLog() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
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

    @Test func aFailedBatchStoresNothingAndLaterBatchesStillWork() throws {
        try withTempDirectory { dir in
            let store = try SQLiteStore(directory: dir.path)
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

    @Test func readsRunWhileTheWriterCommits() async throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let store = try SQLiteStore(directory: dir.path, snapshotEvery: 10, keepOps: 50)
        try store.write([.create(.defaultTemplate(id: boardA))])
        let writer = Task.detached {
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 10)
            for _ in 0..<100 { try store.write([.append(boardA, maker.next(3))]) }
            return maker.board
        }
        var lastSeq = 0
        while lastSeq < 300 {
            let loaded = try #require(try store.load(boardA, recentLimit: 10))
            #expect(loaded.seq >= lastSeq)
            #expect(loaded.recent.last?.seq ?? 0 == loaded.seq)
            lastSeq = loaded.seq
            await Task.yield()
        }
        #expect(try await writer.value == store.load(boardA, recentLimit: 0)?.board)
    }
}

@Suite struct SQLiteStartupTests {
    @Test func aMissingDirectoryIsCreatedWithParents() throws {
        try withTempDirectory { dir in
            let nested = dir.file("a/b/data")
            let store = try SQLiteStore(directory: nested)
            #expect(FileManager.default.fileExists(atPath: nested + "/" + SQLiteStore.databaseName))
            store.close()
        }
    }

    @Test func aDatabaseWithANewerSchemaIsRefused() throws {
        try withTempDirectory { dir in
            try SQLiteStore(directory: dir.path).close()
            let db = try SQLiteConnection(path: dir.file(SQLiteStore.databaseName))
            try db.execute("PRAGMA user_version = 999")
            db.close()
            let error = try #require(throws: StoreError.self) { try SQLiteStore(directory: dir.path) }
            #expect(error.message.contains("schema version 999"))
            #expect(error.message.contains(dir.file(SQLiteStore.databaseName)))
            // The refused store let go of the directory.
            try DataDirectory(path: dir.path).unlock()
        }
    }

    @Test func aCorruptDatabaseIsRefusedNamingItsPath() throws {
        try withTempDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            let path = dir.file(SQLiteStore.databaseName)
            var rng = SplitMix64(seed: 11)
            let garbage = Data((0..<8192).map { _ in UInt8.random(in: 0...255, using: &rng) })
            #expect(FileManager.default.createFile(atPath: path, contents: garbage))
            let error = try #require(throws: StoreError.self) { try SQLiteStore(directory: dir.path) }
            #expect(error.message.contains(path))
            #expect(error.message.contains("corrupt"))
            // Nothing was written over it.
            #expect(FileManager.default.contents(atPath: path) == garbage)
        }
    }

    @Test func aRegularFileInsteadOfTheDirectoryIsRefused() throws {
        try withTempDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            let file = dir.file("data")
            #expect(FileManager.default.createFile(atPath: file, contents: Data("hello".utf8)))
            let error = try #require(throws: StoreError.self) { try SQLiteStore(directory: file) }
            #expect(error.message == "\(file) is not a directory")
            let below = try #require(throws: StoreError.self) { try SQLiteStore(directory: file + "/sub") }
            #expect(below.message.contains(file))
        }
    }

    @Test func aReadOnlyStoreReadsWhileTheServerHoldsTheDirectory() throws {
        try withTempDirectory { dir in
            let server = try SQLiteStore(directory: dir.path, snapshotEvery: 5)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 12)
            try server.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(12))])
            let reader = try SQLiteStore(directory: dir.path, readOnly: true)
            #expect(try reader.load(boardA, recentLimit: 0)?.board == maker.board)
            try server.write([.append(boardA, maker.next(1))])
            #expect(try reader.archive(of: boardA)?.current == maker.board)
            let error = try #require(throws: StoreError.self) { try reader.write([.delete(boardA)]) }
            #expect(error.message.contains("read-only"))
            reader.close()
            server.close()
        }
    }

    @Test func aReadOnlyStoreNeedsAnExistingDatabase() throws {
        try withTempDirectory { dir in
            #expect(throws: StoreError.self) { try SQLiteStore(directory: dir.path, readOnly: true) }
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            let error = try #require(throws: StoreError.self) { try SQLiteStore(directory: dir.path, readOnly: true) }
            #expect(error.message.contains(dir.file(SQLiteStore.databaseName)))
            #expect(!FileManager.default.fileExists(atPath: dir.file(SQLiteStore.databaseName)))
        }
    }

    @Test func aSecondStoreOnALockedDirectoryIsRefusedNamingTheOwner() throws {
        try withTempDirectory { dir in
            let first = try SQLiteStore(directory: dir.path)
            let error = try #require(throws: StoreError.self) { try SQLiteStore(directory: dir.path) }
            #expect(error.message == "\(dir.path) is in use by another shuffleboard server (pid \(getpid()))")
            first.close()
            try SQLiteStore(directory: dir.path).close()
        }
    }
}
