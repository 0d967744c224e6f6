internal import BoardCore

/// The board log's rows in SQLite's SQL.
extension SQLiteConnection: BoardRows {
    var location: String { path }

    func insertBoard(_ board: Board, seq: Seq, created: Int64, ignoringExisting: Bool) throws(StoreError) -> Bool {
        try write(
            (ignoringExisting ? "INSERT OR IGNORE INTO boards " : "INSERT INTO boards ") + Self.boardColumns,
            Self.values(of: board, seq: seq, created: created))
        return changes == 1
    }

    func putSnapshot(_ json: [UInt8], of id: BoardID, at seq: Seq) throws(StoreError) {
        try query(
            "INSERT OR REPLACE INTO snapshots (board, seq, snapshot) VALUES (?1, ?2, ?3)",
            [.text(id.rawValue), .int(seq), .text(String(decoding: json, as: UTF8.self))])
    }

    func appendOps(_ ops: [CommittedOp], of id: BoardID) throws(StoreError) {
        guard let last = ops.last else { return }
        // One prepared statement, run per op: SQLite has no round trips to save.
        for op in ops {
            try query(
                "INSERT INTO ops (board, seq, op_id, user, type, fields, time, name) "
                    + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                [
                    .text(id.rawValue), .int(op.seq), .text(op.opID.rawValue), .text(op.by.rawValue),
                    .text(op.op.kind), .text(String(decoding: op.op.encodedFields(member: op.member), as: UTF8.self)),
                    .int(Int(op.time.milliseconds)), .text(op.name ?? ""),
                ])
        }
        // The search index follows in the same transaction (BoardLog.append): it is of this seq too.
        try query("UPDATE boards SET seq = ?2, indexed = ?2 WHERE id = ?1", [.text(id.rawValue), .int(last.seq)])
    }

    func deleteBoard(_ id: BoardID) throws(StoreError) {
        let key = SQLiteValue.text(id.rawValue)
        try query("DELETE FROM ops WHERE board = ?1", [key])
        try query("DELETE FROM snapshots WHERE board = ?1", [key])
        try query("DELETE FROM boards WHERE id = ?1", [key])
    }

    func revokeLinks(of id: BoardID) throws(StoreError) {
        let key = SQLiteValue.text(id.rawValue)
        try query(
            "INSERT INTO revocations (id, board, until) SELECT token_id, board, expires FROM links WHERE board = ?1 "
                + "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)", [key])
        try query("DELETE FROM links WHERE board = ?1", [key])
    }
}
