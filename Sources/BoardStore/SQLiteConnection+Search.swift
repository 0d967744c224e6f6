internal import BoardCore

/// The search index in SQLite (schema migration 7): `search_docs` and FTS5's `search_fts` over
/// it, kept in step by triggers. The query is one bound parameter, built by `SearchQuery.fts5`.
extension SQLiteConnection: SearchRows {
    func putSearchDoc(_ doc: SearchDoc) throws(StoreError) {
        // An upsert, not INSERT OR REPLACE: a REPLACE deletes without firing the delete trigger.
        try query(
            "INSERT INTO search_docs (board, item, seq, archived, label, body) VALUES (?1, ?2, ?3, ?4, ?5, ?6) "
                + "ON CONFLICT (board, item, seq) DO UPDATE SET archived = excluded.archived, "
                + "label = excluded.label, body = excluded.body",
            [
                .text(doc.board.rawValue), .text(doc.item), .int(doc.seq), .int(doc.archived ? 1 : 0), .text(doc.label),
                .text(doc.body),
            ])
    }

    func deleteSearchDoc(of id: BoardID, item: String, seq: Seq) throws(StoreError) {
        try query(
            "DELETE FROM search_docs WHERE board = ?1 AND item = ?2 AND seq = ?3",
            [.text(id.rawValue), .text(item), .int(seq)])
    }

    func deleteSearchDocs(of id: BoardID) throws(StoreError) {
        try query("DELETE FROM search_docs WHERE board = ?1", [.text(id.rawValue)])
    }

    func deleteCardSearchDocs(of id: BoardID) throws(StoreError) {
        try query("DELETE FROM search_docs WHERE board = ?1 AND seq = 0", [.text(id.rawValue)])
    }

    func markIndexed(_ id: BoardID, seq: Seq) throws(StoreError) {
        try query("UPDATE boards SET indexed = ?2 WHERE id = ?1", [.text(id.rawValue), .int(seq)])
    }

    func boardsBehindIndex(limit: Int) throws(StoreError) -> [BoardID] {
        var ids: [BoardID] = []
        try query("SELECT id FROM boards WHERE indexed <> seq ORDER BY id LIMIT ?1", [.int(limit)]) { row in
            if let id = BoardID(row.text(0)) { ids.append(id) }
        }
        return ids
    }

    func lockBehindIndex(_ id: BoardID) throws(StoreError) -> Bool {
        // One writer per database (the directory lock): nothing to lock against.
        try int("SELECT indexed <> seq FROM boards WHERE id = ?1", [.text(id.rawValue)]) == 1
    }

    func clearSearchIndex() throws(StoreError) {
        try execute("DELETE FROM search_docs; UPDATE boards SET indexed = -1")
    }

    func searchRows(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> [SearchRow] {
        // bm25 weighs a word in the label four times one in the body; a comment counts only
        // while its card has a document (is on the board), and shows its card's label.
        var rows: [SearchRow] = []
        try self.query(
            """
            SELECT d.board, coalesce(t.label, ''), d.item, d.seq, coalesce(c.label, d.label),
                   coalesce(c.archived, d.archived), d.body
            FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
            LEFT JOIN search_docs c ON d.seq > 0 AND c.board = d.board AND c.item = d.item AND c.seq = 0
            LEFT JOIN search_docs t ON t.board = d.board AND t.item = '' AND t.seq = 0
            WHERE search_fts MATCH ?1 AND (d.seq = 0 OR c.id IS NOT NULL) AND (?3 IS NULL OR d.board = ?3)
            ORDER BY bm25(search_fts, 4.0, 1.0), d.id LIMIT ?2
            """,
            [.text(query.fts5), .int(limit), board.map { .text($0.rawValue) } ?? .null]
        ) { row in
            guard let id = BoardID(row.text(0)) else { return }
            rows.append(
                SearchRow(
                    board: id, boardTitle: row.text(1), item: row.text(2), seq: row.int(3), label: row.text(4),
                    archived: row.int(5) != 0, body: row.text(6)))
        }
        return rows
    }
}
