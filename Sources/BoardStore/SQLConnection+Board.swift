internal import BoardCore

/// The board log's rows whose SQL is the same in SQLite and PostgreSQL (`BoardRows`); what
/// differs (batched or prepared INSERTs of ops, upserts, cascades, sizes) stays in
/// SQLiteConnection+Rows.swift and PostgresConnection+Rows.swift.
extension SQLConnection {
    func boardSeq(of id: BoardID) throws(StoreError) -> Seq? {
        try intValue("SELECT seq FROM boards WHERE id = $1", [.text(id.rawValue)])
    }

    func baseSeq(of id: BoardID) throws(StoreError) -> Seq? {
        try intValue("SELECT min(seq) FROM snapshots WHERE board = $1", [.text(id.rawValue)])
    }

    func snapshotRow(of id: BoardID, _ choice: SnapshotChoice) throws(StoreError) -> (seq: Seq, json: [UInt8])? {
        let sql =
            switch choice {
            case .base: "SELECT seq, snapshot FROM snapshots WHERE board = $1 ORDER BY seq ASC LIMIT 1"
            case .latest: "SELECT seq, snapshot FROM snapshots WHERE board = $1 ORDER BY seq DESC LIMIT 1"
            }
        var found: (seq: Seq, json: [UInt8])?
        try rows(sql, [.text(id.rawValue)]) { row in found = (row.int(0), row.bytes(1)) }
        return found
    }

    func snapshotRow(of id: BoardID, atOrBefore seq: Seq) throws(StoreError) -> (seq: Seq, json: [UInt8])? {
        var found: (seq: Seq, json: [UInt8])?
        try rows(
            "SELECT seq, snapshot FROM snapshots WHERE board = $1 AND seq <= $2 ORDER BY seq DESC LIMIT 1",
            [.text(id.rawValue), .int(seq)]
        ) { row in found = (row.int(0), row.bytes(1)) }
        return found
    }

    func opRows(of id: BoardID, after since: Seq, through: Seq, limit: Int?) throws(StoreError) -> [OpRow] {
        var found: [OpRow] = []
        try rows(
            "SELECT seq, op_id, \"user\", type, fields, time, name FROM ops WHERE board = $1 AND seq > $2 AND seq <= $3 "
                + "ORDER BY seq ASC LIMIT $4",
            [.text(id.rawValue), .int(since), .int(through), .int(limit ?? .max)]
        ) { row in found.append(Self.opRow(row)) }
        return found
    }

    func newestOpRows(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> [OpRow] {
        var found: [OpRow] = []
        try rows(
            "SELECT seq, op_id, \"user\", type, fields, time, name FROM ops WHERE board = $1 AND seq < $2 "
                + "ORDER BY seq DESC LIMIT $3",
            [.text(id.rawValue), .int(before), .int(limit)]
        ) { row in found.append(Self.opRow(row)) }
        return found
    }

    func summaryRows(after: BoardID?, limit: Int) throws(StoreError) -> [SummaryRow] {
        var found: [SummaryRow] = []
        try rows(
            "SELECT id, title, seq, template FROM boards WHERE id > $1 ORDER BY id LIMIT $2",
            [.text(after?.rawValue ?? ""), .int(limit)]
        ) { row in
            found.append(SummaryRow(id: row.text(0), title: row.text(1), seq: row.int(2), template: row.text(3)))
        }
        return found
    }

    func deleteSnapshot(of id: BoardID, at seq: Seq) throws(StoreError) {
        try write("DELETE FROM snapshots WHERE board = $1 AND seq = $2", [.text(id.rawValue), .int(seq)])
    }

    func deleteSnapshots(of id: BoardID, below seq: Seq) throws(StoreError) {
        try write("DELETE FROM snapshots WHERE board = $1 AND seq < $2", [.text(id.rawValue), .int(seq)])
    }

    func deleteOps(of id: BoardID, through seq: Seq) throws(StoreError) {
        try write("DELETE FROM ops WHERE board = $1 AND seq <= $2", [.text(id.rawValue), .int(seq)])
    }

    func setTitle(_ title: String, of id: BoardID) throws(StoreError) {
        try write("UPDATE boards SET title = $2 WHERE id = $1", [.text(id.rawValue), .utf8(title)])
    }

    /// A board row's columns and their parameters, for each store's INSERT (whose conflict
    /// clause differs).
    static var boardColumns: String {
        "(id, title, columns, created, seq, template) VALUES ($1, $2, $3, $4, $5, $6)"
    }

    /// The values of `boardColumns`.
    static func values(of board: Board, seq: Seq, created: Int64) -> [SQLValue] {
        [
            .text(board.id.rawValue), .utf8(board.title), .int(board.columns), .int(Int(created)), .int(seq),
            .text(board.template?.rawValue ?? ""),
        ]
    }

    func snapshotSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)] {
        try sizeRows(
            "SELECT seq, \(Self.byteCount(of: "snapshot")) FROM snapshots WHERE board = $1 ORDER BY seq", of: id)
    }

    func opSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)] {
        try sizeRows("SELECT seq, \(Self.byteCount(of: "fields")) FROM ops WHERE board = $1 ORDER BY seq", of: id)
    }

    /// Each row's seq and a size in bytes, by `sql`.
    private func sizeRows(_ sql: String, of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)] {
        var sizes: [(seq: Seq, bytes: Int)] = []
        try rows(sql, [.text(id.rawValue)]) { row in sizes.append((row.int(0), row.int(1))) }
        return sizes
    }

    private static func opRow(_ row: Row) -> OpRow {
        OpRow(
            seq: row.int(0), opID: row.text(1), user: row.text(2), type: row.text(3), fields: row.bytes(4),
            time: Int64(row.int(5)), name: row.text(6))
    }
}
