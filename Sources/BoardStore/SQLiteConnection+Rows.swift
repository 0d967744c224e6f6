internal import BoardCore

/// The board log's rows in SQLite's SQL.
extension SQLiteConnection: BoardRows {
    var location: String { path }

    func boardSeq(of id: BoardID) throws(StoreError) -> Seq? {
        try int("SELECT seq FROM boards WHERE id = ?1", [.text(id.rawValue)])
    }

    func baseSeq(of id: BoardID) throws(StoreError) -> Seq? {
        try int("SELECT min(seq) FROM snapshots WHERE board = ?1", [.text(id.rawValue)])
    }

    func snapshotRow(of id: BoardID, _ choice: SnapshotChoice) throws(StoreError) -> (seq: Seq, json: [UInt8])? {
        let sql =
            switch choice {
            case .base: "SELECT seq, snapshot FROM snapshots WHERE board = ?1 ORDER BY seq ASC LIMIT 1"
            case .latest: "SELECT seq, snapshot FROM snapshots WHERE board = ?1 ORDER BY seq DESC LIMIT 1"
            }
        var found: (seq: Seq, json: [UInt8])?
        try query(sql, [.text(id.rawValue)]) { row in found = (row.int(0), row.bytes(1)) }
        return found
    }

    func snapshotRow(of id: BoardID, atOrBefore seq: Seq) throws(StoreError) -> (seq: Seq, json: [UInt8])? {
        var found: (seq: Seq, json: [UInt8])?
        try query(
            "SELECT seq, snapshot FROM snapshots WHERE board = ?1 AND seq <= ?2 ORDER BY seq DESC LIMIT 1",
            [.text(id.rawValue), .int(seq)]
        ) { row in found = (row.int(0), row.bytes(1)) }
        return found
    }

    func opRows(of id: BoardID, after since: Seq, through: Seq, limit: Int?) throws(StoreError) -> [OpRow] {
        var rows: [OpRow] = []
        try query(
            "SELECT seq, op_id, user, type, fields, time, name FROM ops WHERE board = ?1 AND seq > ?2 AND seq <= ?3 "
                + "ORDER BY seq ASC LIMIT ?4",
            [.text(id.rawValue), .int(since), .int(through), .int(limit ?? -1)]
        ) { row in rows.append(Self.opRow(row)) }
        return rows
    }

    func newestOpRows(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> [OpRow] {
        var rows: [OpRow] = []
        try query(
            "SELECT seq, op_id, user, type, fields, time, name FROM ops WHERE board = ?1 AND seq < ?2 "
                + "ORDER BY seq DESC LIMIT ?3",
            [.text(id.rawValue), .int(before), .int(limit)]
        ) { row in rows.append(Self.opRow(row)) }
        return rows
    }

    func summaryRows(after: BoardID?, limit: Int) throws(StoreError) -> [SummaryRow] {
        var rows: [SummaryRow] = []
        try query(
            "SELECT id, title, seq, template FROM boards WHERE id > ?1 ORDER BY id LIMIT ?2",
            [.text(after?.rawValue ?? ""), .int(limit)]
        ) { row in
            rows.append(SummaryRow(id: row.text(0), title: row.text(1), seq: row.int(2), template: row.text(3)))
        }
        return rows
    }

    func insertBoard(_ board: Board, seq: Seq, created: Int64, ignoringExisting: Bool) throws(StoreError) -> Bool {
        let values: [SQLiteValue] = [
            .text(board.id.rawValue), .text(board.title), .int(board.columns), .int(Int(created)), .int(seq),
            .text(board.template?.rawValue ?? ""),
        ]
        let insert = "INTO boards (id, title, columns, created, seq, template) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
        try query((ignoringExisting ? "INSERT OR IGNORE " : "INSERT ") + insert, values)
        return changes == 1
    }

    func putSnapshot(_ json: [UInt8], of id: BoardID, at seq: Seq) throws(StoreError) {
        try query(
            "INSERT OR REPLACE INTO snapshots (board, seq, snapshot) VALUES (?1, ?2, ?3)",
            [.text(id.rawValue), .int(seq), .text(String(decoding: json, as: UTF8.self))])
    }

    func deleteSnapshots(of id: BoardID, below seq: Seq) throws(StoreError) {
        try query("DELETE FROM snapshots WHERE board = ?1 AND seq < ?2", [.text(id.rawValue), .int(seq)])
    }

    func deleteSnapshot(of id: BoardID, at seq: Seq) throws(StoreError) {
        try query("DELETE FROM snapshots WHERE board = ?1 AND seq = ?2", [.text(id.rawValue), .int(seq)])
    }

    func snapshotSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)] {
        var sizes: [(seq: Seq, bytes: Int)] = []
        // length() of TEXT counts characters; of a BLOB, bytes.
        try query(
            "SELECT seq, length(CAST(snapshot AS BLOB)) FROM snapshots WHERE board = ?1 ORDER BY seq",
            [.text(id.rawValue)]
        ) { row in sizes.append((row.int(0), row.int(1))) }
        return sizes
    }

    func opSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)] {
        var sizes: [(seq: Seq, bytes: Int)] = []
        try query(
            "SELECT seq, length(CAST(fields AS BLOB)) FROM ops WHERE board = ?1 ORDER BY seq", [.text(id.rawValue)]
        ) { row in sizes.append((row.int(0), row.int(1))) }
        return sizes
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
        try query("UPDATE boards SET seq = ?2 WHERE id = ?1", [.text(id.rawValue), .int(last.seq)])
    }

    func deleteOps(of id: BoardID, through seq: Seq) throws(StoreError) {
        try query("DELETE FROM ops WHERE board = ?1 AND seq <= ?2", [.text(id.rawValue), .int(seq)])
    }

    func deleteBoard(_ id: BoardID) throws(StoreError) {
        let key = SQLiteValue.text(id.rawValue)
        try query("DELETE FROM ops WHERE board = ?1", [key])
        try query("DELETE FROM snapshots WHERE board = ?1", [key])
        try query("DELETE FROM boards WHERE id = ?1", [key])
    }

    func setTitle(_ title: String, of id: BoardID) throws(StoreError) {
        try query("UPDATE boards SET title = ?2 WHERE id = ?1", [.text(id.rawValue), .text(title)])
    }

    func revokeLinks(of id: BoardID) throws(StoreError) {
        let key = SQLiteValue.text(id.rawValue)
        try query(
            "INSERT INTO revocations (id, board, until) SELECT token_id, board, expires FROM links WHERE board = ?1 "
                + "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)", [key])
        try query("DELETE FROM links WHERE board = ?1", [key])
    }

    private static func opRow(_ row: SQLiteRow) -> OpRow {
        OpRow(
            seq: row.int(0), opID: row.text(1), user: row.text(2), type: row.text(3), fields: row.bytes(4),
            time: Int64(row.int(5)), name: row.text(6))
    }
}
