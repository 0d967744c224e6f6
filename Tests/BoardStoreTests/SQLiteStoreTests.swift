import BoardCore
import Foundation
import TestSupport
import Testing

@testable import BoardStore

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

    @Test func aVersionTwoDatabaseIsMigratedAndItsOpsHaveNoName() throws {
        try withTempDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            let db = try SQLiteConnection(path: dir.file(SQLiteStore.databaseName))
            for migration in Schema.migrations[0..<2] { try db.execute(migration) }
            let board = Board.defaultTemplate(id: boardA)
            let snapshot = String(decoding: board.encoded(), as: UTF8.self)
            try db.execute(
                "PRAGMA user_version = 2; INSERT INTO boards VALUES ('alpha', 'alpha', 3, 0, 1); "
                    + "INSERT INTO snapshots VALUES ('alpha', 0, '\(snapshot)'); "
                    + #"INSERT INTO ops VALUES ('alpha', 1, 'o1', 'u1', 'toggle', '{"item":"t1","on":true}', 5)"#)
            db.close()
            let store = try SQLiteStore(directory: dir.path)
            defer { store.close() }
            var after = board
            after.apply(.toggle(item: ItemID("t1")!, on: true))
            #expect(try store.load(boardA, recentLimit: 5)?.board == after)
            let op = CommittedOp(
                seq: 1, opID: OpID("o1")!, by: UserID("u1"), op: .toggle(item: ItemID("t1")!, on: true),
                time: UnixTime(milliseconds: 5))
            #expect(try store.history(of: boardA, before: .max, limit: 5) == .ops([op], current: 1, oldest: 0))
            #expect(try store.board(boardA, at: 0) == .board(board, time: nil))
            // A board stored before boards kept their template lists none: the list reads the
            // boards table only, never a snapshot.
            #expect(try store.list(after: nil, limit: 10) == [BoardSummary(id: boardA, title: "alpha", seq: 1)])
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
