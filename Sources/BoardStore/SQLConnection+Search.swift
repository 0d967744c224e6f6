internal import BoardCore

/// The search index's rows whose SQL is the same in SQLite and PostgreSQL (`SearchRows`); each
/// store keeps its own index (FTS5's table and triggers, a `tsvector`), how documents go in, how
/// a board is locked while it is indexed and its query (SQLiteConnection+Search.swift,
/// PostgresConnection+Search.swift).
extension SQLConnection {
    func deleteSearchDoc(of id: BoardID, item: String, seq: Seq) throws(StoreError) {
        try write(
            "DELETE FROM search_docs WHERE board = $1 AND item = $2 AND seq = $3",
            [.text(id.rawValue), .text(item), .int(seq)])
    }

    func deleteSearchDocs(of id: BoardID) throws(StoreError) {
        try write("DELETE FROM search_docs WHERE board = $1", [.text(id.rawValue)])
    }

    func deleteCardSearchDocs(of id: BoardID) throws(StoreError) {
        try write("DELETE FROM search_docs WHERE board = $1 AND seq = 0", [.text(id.rawValue)])
    }

    func markIndexed(_ id: BoardID, seq: Seq) throws(StoreError) {
        try write("UPDATE boards SET indexed = $2 WHERE id = $1", [.text(id.rawValue), .int(seq)])
    }

    func boardsBehindIndex(limit: Int) throws(StoreError) -> [BoardID] {
        var ids: [BoardID] = []
        try rows("SELECT id FROM boards WHERE indexed <> seq ORDER BY id LIMIT $1", [.int(limit)]) { row in
            if let id = BoardID(row.text(0)) { ids.append(id) }
        }
        return ids
    }

    /// The hits of a search statement whose columns are board, board title, item, seq, label,
    /// archived (0 or 1) and body; a row of a damaged board id is passed over.
    func searchRows(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> [SearchRow] {
        var found: [SearchRow] = []
        try rows(sql, values) { row in
            guard let id = BoardID(row.text(0)) else { return }
            found.append(
                SearchRow(
                    doc: SearchDoc(
                        board: id, item: row.text(2), seq: row.int(3), archived: row.int(5) != 0, label: row.text(4),
                        body: row.text(6)), boardTitle: row.text(1)))
        }
        return found
    }
}
