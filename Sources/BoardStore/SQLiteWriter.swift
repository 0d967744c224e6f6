internal import BoardCore
import Glibc

/// The writing half of `SQLiteStore`: the writer connection and a replica of every board it wrote.
///
/// Used only under `SQLiteStore`'s writer mutex. The replicas let it write snapshots without
/// reading boards back; they are loaded lazily and dropped when a transaction rolls back.
final class SQLiteWriter {
    let db: SQLiteConnection
    /// A snapshot is written each time a board gains this many ops.
    let snapshotEvery: Int
    /// At least this many of a board's newest ops are kept.
    let keepOps: Int
    private var replicas: [BoardID: BoardState] = [:]

    init(db: SQLiteConnection, snapshotEvery: Int, keepOps: Int) {
        self.db = db
        self.snapshotEvery = max(snapshotEvery, 1)
        self.keepOps = max(keepOps, 0)
    }

    /// Applies the batch in one immediate transaction; durable when this returns (`synchronous=FULL`).
    func write(_ batch: [StoreWrite]) throws(StoreError) {
        try inTransaction { () throws(StoreError) in
            for change in batch {
                switch change {
                case .create(let board): try create(board)
                case .append(let id, let ops): try append(ops, to: id)
                case .delete(let id): try delete(id)
                }
            }
        }
    }

    /// Stores an archived board at its seq, overwriting an existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try inTransaction { () throws(StoreError) in
            if try db.boardSeq(of: archive.id) != nil {
                guard replace else { throw StoreError("board \(archive.id) already exists (replace it to overwrite)") }
                try delete(archive.id)
            }
            try insertBoard(archive.board, seq: archive.seq)
            try insertSnapshot(archive.board, of: archive.id, at: archive.baseSeq)
            for op in archive.ops { try insert(op, of: archive.id) }
            var state = BoardState(
                board: archive.current, seq: archive.seq, latestSnapshot: archive.baseSeq, baseSeq: archive.baseSeq)
            // A snapshot bounds the replay on load; compaction waits for the next one, so that an
            // import keeps every op of the archive.
            if state.seq - state.latestSnapshot >= snapshotEvery {
                try snapshot(&state, of: archive.id, compact: false)
            }
            replicas[archive.id] = state
        }
    }

    /// Closes the connection.
    func close() {
        replicas = [:]
        db.close()
    }

    private func inTransaction(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        do throws(StoreError) {
            try db.transaction(.immediate, body)
        } catch {
            // The replicas may hold changes that were just rolled back.
            replicas = [:]
            throw error
        }
    }

    // MARK: Changes

    private func create(_ board: Board) throws(StoreError) {
        try insertBoard(board, seq: 0, ignoringExisting: true)
        guard db.changes == 1 else { return }
        try insertSnapshot(board, of: board.id, at: 0)
        replicas[board.id] = BoardState(board: board, seq: 0, latestSnapshot: 0, baseSeq: 0)
    }

    private func append(_ ops: [CommittedOp], to id: BoardID) throws(StoreError) {
        // Like MemoryStore, ops for a board that is gone (deleted earlier in the queue) are dropped.
        guard var state = try replica(of: id), !ops.isEmpty else { return }
        for op in ops {
            guard op.seq == state.seq + 1 else {
                throw StoreError("\(db.path): op seq \(op.seq) does not follow seq \(state.seq) of board \(id)")
            }
            try insert(op, of: id)
            state.board.apply(op.op)
            state.seq = op.seq
            if state.seq - state.latestSnapshot >= snapshotEvery { try snapshot(&state, of: id) }
        }
        try db.query("UPDATE boards SET seq = ?2 WHERE id = ?1", [.text(id.rawValue), .int(state.seq)])
        replicas[id] = state
    }

    private func delete(_ id: BoardID) throws(StoreError) {
        let key = SQLiteValue.text(id.rawValue)
        try db.query("DELETE FROM ops WHERE board = ?1", [key])
        try db.query("DELETE FROM snapshots WHERE board = ?1", [key])
        try db.query("DELETE FROM boards WHERE id = ?1", [key])
        replicas[id] = nil
    }

    /// Writes the board as the latest snapshot, then compacts: the base moves up to keep `keepOps`
    /// ops (never past the latest snapshot, so every dropped op is covered), and older ops and
    /// snapshots go.
    private func snapshot(_ state: inout BoardState, of id: BoardID, compact: Bool = true) throws(StoreError) {
        try insertSnapshot(state.board, of: id, at: state.seq)
        if state.latestSnapshot > state.baseSeq {
            try db.query(
                "DELETE FROM snapshots WHERE board = ?1 AND seq = ?2", [.text(id.rawValue), .int(state.latestSnapshot)])
        }
        state.latestSnapshot = state.seq

        let newBase = max(state.baseSeq, state.seq - keepOps)
        guard compact, newBase > state.baseSeq else { return }
        if newBase < state.seq {
            // The board at the new base: the old base with the ops up to the new one replayed.
            guard var base = try db.snapshot(of: id, .base)?.board else {
                throw db.damaged(id, "it has no base snapshot")
            }
            for op in try db.committedOps(of: id, after: state.baseSeq, through: newBase) { base.apply(op.op) }
            try insertSnapshot(base, of: id, at: newBase)
        }
        try db.query("DELETE FROM snapshots WHERE board = ?1 AND seq < ?2", [.text(id.rawValue), .int(newBase)])
        try db.query("DELETE FROM ops WHERE board = ?1 AND seq <= ?2", [.text(id.rawValue), .int(newBase)])
        state.baseSeq = newBase
    }

    // MARK: Rows

    private func replica(of id: BoardID) throws(StoreError) -> BoardState? {
        if let state = replicas[id] { return state }
        let state = try db.boardState(of: id)
        replicas[id] = state
        return state
    }

    private func insertBoard(_ board: Board, seq: Seq, ignoringExisting: Bool = false) throws(StoreError) {
        let values: [SQLiteValue] = [
            .text(board.id.rawValue), .text(board.title), .int(board.columns), .int(Self.now()), .int(seq),
        ]
        if ignoringExisting {
            try db.query(
                "INSERT OR IGNORE INTO boards (id, title, columns, created, seq) VALUES (?1, ?2, ?3, ?4, ?5)", values)
        } else {
            try db.query("INSERT INTO boards (id, title, columns, created, seq) VALUES (?1, ?2, ?3, ?4, ?5)", values)
        }
    }

    private func insertSnapshot(_ board: Board, of id: BoardID, at seq: Seq) throws(StoreError) {
        let json = String(decoding: board.encoded(), as: UTF8.self)
        try db.query(
            "INSERT OR REPLACE INTO snapshots (board, seq, snapshot) VALUES (?1, ?2, ?3)",
            [.text(id.rawValue), .int(seq), .text(json)])
    }

    private func insert(_ op: CommittedOp, of id: BoardID) throws(StoreError) {
        try db.query(
            "INSERT INTO ops (board, seq, op_id, user, type, fields, time) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            [
                .text(id.rawValue), .int(op.seq), .text(op.opID.rawValue), .text(op.by.rawValue), .text(op.op.kind),
                .text(String(decoding: op.op.encodedFields(), as: UTF8.self)), .int(Int(op.time.milliseconds)),
            ])
    }

    /// Wall-clock milliseconds since 1970, for `boards.created`.
    private static func now() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return ts.tv_sec * 1000 + ts.tv_nsec / 1_000_000
    }
}
