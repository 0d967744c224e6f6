import BoardCore
import Foundation
import TestSupport
import Testing

@testable import BoardStore

/// Client text goes into the store exactly as it was committed and comes back byte for byte, on
/// every path that reads it: load, an ops page, compaction (inside a write), export and import.
@Suite struct TextRoundTripTests {
    /// Strings a client may commit: combining marks, invisible and bidi characters, characters
    /// outside the BMP, quotes and backslashes. (Control characters, NUL among them, are refused
    /// at the door since the text rules; `sqliteTextKeepsEveryByte` covers them in the store.)
    static let strings = [
        "😀🇫🇷👩‍👩‍👧", "e\u{301}\u{301}\u{301}", "\u{FEFF}\u{200B}\u{202E}rtl", "\u{10FFFF}\u{1F600}", "q\"uo\\te",
        "\u{2028}line\u{2029}sep", "日本語", "\u{E000}private", "a\u{200D}b", "é",
    ]

    /// The same text as UTF-8, so that canonically equal strings (Swift's `==`) do not pass for equal bytes.
    static func utf8(_ ops: [CommittedOp]) -> [[UInt8]] { ops.map { Array($0.opID.rawValue.utf8) } }
    static func utf8(_ board: Board) -> [[UInt8]] {
        [Array(board.title.utf8)] + board.items.map { Array($0.label.utf8) }
    }

    /// A board whose title and labels are the strings above.
    static func board() -> Board {
        var board = Board.defaultTemplate(id: boardA)
        board.title = "title 😀\u{202E}"
        for (i, text) in strings.enumerated() { board.items[i].label = text }
        return board
    }

    /// Ten ops whose op ids are the strings above, by users whose ids the server made.
    static func ops(on board: Board) throws -> [CommittedOp] {
        var maker = OpMaker(board: board, seed: 8)
        return try maker.next(strings.count).enumerated().map { i, op in
            CommittedOp(
                seq: op.seq, opID: try #require(OpID(strings[i])), by: op.by, op: op.op, time: op.time)
        }
    }

    @Test func sqliteTextKeepsEveryByte() throws {
        try withTempDirectory { dir in
            try FileManager.default.createDirectory(atPath: dir.path, withIntermediateDirectories: true)
            let db = try SQLiteConnection(path: dir.path + "/t.sqlite3")
            defer { db.close() }
            try db.execute("CREATE TABLE t (v TEXT NOT NULL)")
            let values = ["\u{0}", "\u{0}lead", "in\u{0}side", "trail\u{0}", "\u{1}\u{1B}[31m\u{7F}", "", "😀\u{0}"]
            for v in values { try db.query("INSERT INTO t VALUES (?1)", [.text(v)]) { _ in } }
            var back: [[UInt8]] = []
            try db.query("SELECT v FROM t ORDER BY rowid") { row in back.append(Array(row.text(0).utf8)) }
            #expect(back == values.map { Array($0.utf8) })
        }
    }
}

/// The text tests every store passes (run on every store by `StoreContractTests`).
extension StoreContract {
    func exoticTextRoundTripsByteExact() throws {
        try withSpace(backend) { space in
            let board = TextRoundTripTests.board()
            let ops = try TextRoundTripTests.ops(on: board)
            var head = board
            for op in ops { head.apply(op.op) }
            // Snapshots every 5 ops and 6 kept: the snapshot at seq 10 compacts ops 1…4 away,
            // which reads them back (and the board at seq 4) inside the write.
            let store = try space.open(snapshotEvery: 5, keepOps: 6)
            try store.write([.create(board), .append(boardA, ops)])

            let loaded = try #require(try store.load(boardA, recentLimit: 100))
            #expect(loaded.seq == 10)
            #expect(TextRoundTripTests.utf8(loaded.recent) == TextRoundTripTests.utf8(Array(ops[4...])))
            #expect(loaded.recent == Array(ops[4...]))
            #expect(TextRoundTripTests.utf8(loaded.board) == TextRoundTripTests.utf8(head))

            let page = try #require(try store.ops(of: boardA, since: 4, limit: 100).ops)
            #expect(TextRoundTripTests.utf8(page) == TextRoundTripTests.utf8(Array(ops[4...])))
            #expect(try store.list(after: nil, limit: 1000).map { Array($0.title.utf8) } == [Array(head.title.utf8)])

            // Export: the base snapshot (the board at seq 4, rebuilt by compaction) and ops 5…10.
            let archive = try #require(try store.archive(of: boardA))
            var base = board
            for op in ops[..<4] { base.apply(op.op) }
            #expect(archive.baseSeq == 4)
            #expect(TextRoundTripTests.utf8(archive.board) == TextRoundTripTests.utf8(base))
            #expect(TextRoundTripTests.utf8(archive.ops) == TextRoundTripTests.utf8(Array(ops[4...])))

            // Import into another store, and a restart of the first: the same bytes again.
            let parsed = try BoardArchive(json: archive.encoded())
            #expect(
                TextRoundTripTests.utf8(parsed.ops) == TextRoundTripTests.utf8(archive.ops)
                    && TextRoundTripTests.utf8(parsed.board) == TextRoundTripTests.utf8(base))
            try withSpace(backend) { other in
                let copy = try other.open()
                try copy.restore(parsed, replace: false)
                let restored = try #require(try copy.load(boardA, recentLimit: 100))
                #expect(TextRoundTripTests.utf8(restored.recent) == TextRoundTripTests.utf8(Array(ops[4...])))
                #expect(TextRoundTripTests.utf8(restored.board) == TextRoundTripTests.utf8(head))
                copy.close()
            }
            store.close()
            let reopened = try space.open(snapshotEvery: 5, keepOps: 6)
            let again = try #require(try reopened.load(boardA, recentLimit: 100))
            #expect(TextRoundTripTests.utf8(again.recent) == TextRoundTripTests.utf8(Array(ops[4...])))
            #expect(TextRoundTripTests.utf8(again.board) == TextRoundTripTests.utf8(head))
            reopened.close()
        }
    }

    func anEmptyStringIsStoredAsEmptyTextNotNull() throws {
        try withSpace(backend) { space in
            // A title is bound as its own column (a label only inside the snapshot's JSON).
            var board = Board.defaultTemplate(id: boardA)
            board.title = ""
            let store = try space.open()
            try store.write([.create(board)])
            #expect(try store.list(after: nil, limit: 1000).map(\.title) == [""])
            store.close()
        }
    }
}

extension StoreContract {
    func nulInStoredTextRoundTrips() throws {
        // Op ids and labels refuse control characters at the door; user ids are the server's and
        // are stored as any text is, so they carry the NUL through every path here.
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 3, keepOps: 2)
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 31)
            let initial = maker.board
            let ops = maker.next(5).map { op in
                CommittedOp(
                    seq: op.seq, opID: op.opID, by: UserID("\u{0}u\u{0}\(op.seq)\u{0}"), op: op.op, time: op.time)
            }
            // The board the ops start from (ops that remove an item cannot replay on the board they end at).
            try store.write([.create(initial), .append(boardA, ops)])
            let users = { (ops: [CommittedOp]) in ops.map { Array($0.by.rawValue.utf8) } }
            // The snapshot at seq 3 compacted op 1 away (2 kept), and nothing since.
            #expect(try users(#require(try store.load(boardA, recentLimit: 10)).recent) == users(Array(ops[1...])))
            #expect(try users(#require(try store.ops(of: boardA, since: 3, limit: 10).ops)) == users(Array(ops[3...])))
            let archive = try #require(try store.archive(of: boardA))
            #expect(users(archive.ops) == users(Array(ops[1...])))
            store.close()
        }
    }
}
