internal import BoardCore

/// A board as the database holds it: the board at `seq`, and where its snapshots are.
struct BoardState {
    /// The board with every stored op applied.
    var board: Board
    /// The seq of the last stored op.
    var seq: Seq
    /// The seq of the newest snapshot (where replay starts).
    var latestSnapshot: Seq
    /// The seq of the oldest snapshot; the stored ops are exactly those after it.
    var baseSeq: Seq
}

/// The queries both connections share: reading boards, snapshots and ops back into BoardCore values.
extension SQLiteConnection {
    /// Which of a board's snapshots to read.
    enum SnapshotChoice {
        case base
        case latest
    }

    /// The seq of a board, or nil when there is no such board.
    func boardSeq(of id: BoardID) throws(StoreError) -> Seq? {
        try int("SELECT seq FROM boards WHERE id = ?1", [.text(id.rawValue)])
    }

    /// The base or latest snapshot of a board and its seq.
    func snapshot(of id: BoardID, _ choice: SnapshotChoice) throws(StoreError) -> (seq: Seq, board: Board)? {
        let sql =
            switch choice {
            case .base: "SELECT seq, snapshot FROM snapshots WHERE board = ?1 ORDER BY seq ASC LIMIT 1"
            case .latest: "SELECT seq, snapshot FROM snapshots WHERE board = ?1 ORDER BY seq DESC LIMIT 1"
            }
        var found: (seq: Seq, text: [UInt8])?
        try query(sql, [.text(id.rawValue)]) { row in found = (row.int(0), row.bytes(1)) }
        guard let found else { return nil }
        let json: JSON
        do { json = try JSON.parse(found.text) } catch {
            throw damaged(id, "its snapshot at seq \(found.seq) is not JSON")
        }
        do {
            return (found.seq, try Board(json: json, path: "snapshot"))
        } catch {
            throw damaged(id, "its snapshot at seq \(found.seq) is unreadable (\(error.message))")
        }
    }

    /// Stored ops of a board with `since < seq <= through`, oldest first, at most `limit` (all when nil).
    func committedOps(of id: BoardID, after since: Seq, through: Seq = .max, limit: Int? = nil) throws(StoreError)
        -> [CommittedOp]
    {
        var ops: [CommittedOp] = []
        try query(
            "SELECT seq, op_id, user, type, fields, time FROM ops WHERE board = ?1 AND seq > ?2 AND seq <= ?3 "
                + "ORDER BY seq ASC LIMIT ?4",
            [.text(id.rawValue), .int(since), .int(through), .int(limit ?? -1)]
        ) { row throws(StoreError) in ops.append(try committedOp(row, board: id)) }
        return ops
    }

    /// The newest `limit` ops of a board, oldest first.
    func newestOps(of id: BoardID, limit: Int) throws(StoreError) -> [CommittedOp] {
        guard limit > 0 else { return [] }
        var ops: [CommittedOp] = []
        try query(
            "SELECT seq, op_id, user, type, fields, time FROM ops WHERE board = ?1 ORDER BY seq DESC LIMIT ?2",
            [.text(id.rawValue), .int(limit)]
        ) { row throws(StoreError) in ops.append(try committedOp(row, board: id)) }
        return ops.reversed()
    }

    /// The board at its current seq: the latest snapshot with the ops after it replayed.
    func boardState(of id: BoardID) throws(StoreError) -> BoardState? {
        guard let seq = try boardSeq(of: id) else { return nil }
        guard let latest = try snapshot(of: id, .latest),
            let baseSeq = try int("SELECT min(seq) FROM snapshots WHERE board = ?1", [.text(id.rawValue)])
        else { throw damaged(id, "it has no snapshot") }
        var board = latest.board
        let ops = try committedOps(of: id, after: latest.seq)
        for (i, op) in ops.enumerated() {
            guard op.seq == latest.seq + i + 1 else {
                throw damaged(id, "its op log jumps from seq \(latest.seq + i) to \(op.seq)")
            }
            board.apply(op.op)
        }
        guard latest.seq + ops.count == seq else {
            throw damaged(id, "its op log ends at seq \(latest.seq + ops.count) but the board is at seq \(seq)")
        }
        return BoardState(board: board, seq: seq, latestSnapshot: latest.seq, baseSeq: baseSeq)
    }

    /// An op row (`seq, op_id, user, type, fields, time`) as a committed op.
    private func committedOp(_ row: SQLiteRow, board id: BoardID) throws(StoreError) -> CommittedOp {
        let seq = row.int(0)
        guard let opID = OpID(row.text(1)), let fields = try? JSON.parse(row.bytes(4)),
            let op = try? Op(type: row.text(3), fields: fields)
        else { throw damaged(id, "its op at seq \(seq) is unreadable") }
        return CommittedOp(
            seq: seq, opID: opID, by: UserID(row.text(2)), op: op, time: UnixTime(milliseconds: Int64(row.int(5))))
    }

    /// An error for data that cannot have been written by this store.
    func damaged(_ id: BoardID, _ problem: String) -> StoreError {
        StoreError("\(path): board \(id) is damaged: \(problem)")
    }
}
