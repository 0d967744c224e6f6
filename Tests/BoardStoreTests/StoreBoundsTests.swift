import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// What a board costs the store, in bytes on disk and in the writer's memory (issue 29, findings
/// 6 and 12), on SQLite and on PostgreSQL.
@Suite struct StoreBoundsTests {
    static let stores: [Backend] = [.sqlite] + (TestPostgres.available ? [.postgres] : [])

    /// A board of about 2.5 MB as JSON, within every limit: 1,000 cards with labels and details
    /// of 200 characters that the JSON writer escapes (`<` is written `\u003c`).
    static func bigBoard(_ id: BoardID) -> Board {
        let text = String(repeating: "<", count: 200)
        let items = (1...1000).map { n in
            Item(id: ItemID("c\(n)")!, label: text, color: "#ffe08a", detail: text)
        }
        return Board(
            id: id, title: "Big", columns: 4,
            zones: [Zone(id: ZoneID("todo")!, items: items.map(\.id))], items: items)
    }

    /// Bytes the store's data take: the database file and its WAL (SQLite); the tables' live rows
    /// (PostgreSQL, whose dead rows are autovacuum's to reclaim).
    static func storedBytes(_ space: StoreSpace, _ store: any BoardStore) throws -> Int {
        switch space.backend {
        case .sqlite:
            let path = (store as! SQLiteStore).databasePath
            let size = { (file: String) -> Int in
                ((try? FileManager.default.attributesOfItem(atPath: file))?[.size] as? Int) ?? 0
            }
            return size(path) + size(path + "-wal")
        case .postgres:
            let db = try PostgresConnection(url: space.url)
            defer { db.close() }
            return try db.int(
                "SELECT (SELECT coalesce(sum(octet_length(snapshot)), 0) FROM snapshots)::int8 "
                    + "+ (SELECT coalesce(sum(octet_length(fields) + 64), 0) FROM ops)::int8") ?? 0
        case .memory:
            return 0
        }
    }

    /// The attack: edit after edit on a 2.5 MB board. Each snapshot among the kept ops used to
    /// stay (33 snapshots of 2.5 MB here, a snapshot every 25 ops; by default 100 by 10,000
    /// edits: 283 MB); with the default byte bounds the board stays under 64 MB, and the board as
    /// of every kept seq still reads right.
    @Test(arguments: stores) func aBigBoardStaysUnder64MBHoweverManyEdits(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open(snapshotEvery: 25)
            defer { store.close() }
            let id = BoardID("big")!
            var board = Self.bigBoard(id)
            let boardBytes = board.encoded().count
            #expect(boardBytes > 2_000_000, "the board is \(boardBytes) bytes")
            try store.write([.create(board)])
            var seq = 0
            var largest = 0
            var boards: [Seq: Board] = [0: board]
            for batch in 0..<33 {
                var ops: [CommittedOp] = []
                for k in 0..<25 {
                    seq += 1
                    let item = ItemID("c\((batch * 25 + k) % 1000 + 1)")!
                    let op = Op.edit(
                        item: item, changes: ItemEdit(label: "edit \(seq) " + String(repeating: "<", count: 150)))
                    board.apply(op)
                    ops.append(
                        CommittedOp(
                            seq: seq, opID: OpID("e\(seq)")!, by: UserID(number: 1), op: op,
                            time: UnixTime(milliseconds: Int64(seq))))
                }
                boards[seq] = board
                try store.write([.append(id, ops)])
                largest = max(largest, try Self.storedBytes(space, store))
            }
            print("\(backend): \(seq) edits on a \(boardBytes)-byte board: at most \(largest) bytes stored")
            #expect(largest < 64 << 20, "the board took \(largest) bytes")
            // What is kept still reads: the board now, and as of every 50th seq back to the oldest kept.
            #expect(try store.load(id, recentLimit: 0)?.board == board)
            var read = 0
            for (at, expected) in boards.sorted(by: { $0.key > $1.key }) {
                switch try store.board(id, at: at) {
                case .board(let got, _):
                    #expect(got == expected, "the board as of seq \(at)")
                    read += 1
                case .compacted: break
                case let other: Issue.record("seq \(at): \(other)")
                }
            }
            #expect(read >= 20, "only \(read) of the checked seqs are kept")
        }
    }

    /// Restores write a whole board into the log: ops are bounded in bytes too, not only in count.
    @Test(arguments: stores) func opsAreBoundedInBytesNotOnlyInCount(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            defer { store.close() }
            let id = BoardID("restored")!
            let board = Self.bigBoard(id)
            try store.write([.create(board)])
            var largest = 0
            for seq in 1...30 {
                let op = CommittedOp(
                    seq: seq, opID: OpID("r\(seq)")!, by: UserID(number: 1), op: .restore(to: 0, board: board),
                    time: UnixTime(milliseconds: Int64(seq)))
                try store.write([.append(id, [op])])
                largest = max(largest, try Self.storedBytes(space, store))
            }
            print("\(backend): 30 restores of a 2.5 MB board: at most \(largest) bytes stored")
            #expect(largest < 64 << 20, "the board took \(largest) bytes")
            guard case .ops(let ops, let current) = try store.ops(of: id, since: 29, limit: 10) else {
                Issue.record("the newest op is not kept")
                return
            }
            #expect(current == 30 && ops.map(\.seq) == [30])
            #expect(try store.ops(of: id, since: 0, limit: 10) == .gone)
        }
    }

    /// The writer keeps a replica of the boards it writes only until it is told to forget them
    /// (the server does when a board leaves memory); a board written after that is read back.
    @Test(arguments: stores) func theWriterForgetsABoardsReplicaWhenAsked(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            defer { store.close() }
            let replicas = { () -> Int in
                if let sqlite = store as? SQLiteStore { return sqlite.replicaCount }
                return (store as! ClaimingStore).inner.replicaCount
            }
            let ids = (0..<40).map { BoardID("b\($0)")! }
            for id in ids {
                try store.write([
                    .create(.defaultTemplate(id: id)),
                    .append(
                        id,
                        [
                            CommittedOp(
                                seq: 1, opID: OpID("o")!, by: UserID(number: 1),
                                op: .toggle(item: ItemID("t1")!, on: true),
                                time: UnixTime(milliseconds: 1))
                        ]),
                ])
            }
            #expect(replicas() == 40)
            for id in ids { store.forget(id) }
            #expect(replicas() == 0)
            try store.write([
                .append(
                    ids[0],
                    [
                        CommittedOp(
                            seq: 2, opID: OpID("p")!, by: UserID(number: 1), op: .toggle(item: ItemID("t2")!, on: true),
                            time: UnixTime(milliseconds: 2))
                    ])
            ])
            #expect(replicas() == 1)
            #expect(try store.load(ids[0], recentLimit: 5)?.recent.map(\.seq) == [1, 2])
        }
    }
}
