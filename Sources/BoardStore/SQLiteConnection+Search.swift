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
        try searchRows(
            """
            SELECT d.board, coalesce(t.label, ''), d.item, d.seq, coalesce(c.label, d.label),
                   coalesce(c.archived, d.archived), d.body
            FROM search_fts JOIN search_docs d ON d.id = search_fts.rowid
            LEFT JOIN search_docs c ON d.seq > 0 AND c.board = d.board AND c.item = d.item AND c.seq = 0
            LEFT JOIN search_docs t ON t.board = d.board AND t.item = '' AND t.seq = 0
            WHERE search_fts MATCH ?1 AND (d.seq = 0 OR c.id IS NOT NULL) AND (?3 = '' OR d.board = ?3)
            ORDER BY bm25(search_fts, 4.0, 1.0), d.id LIMIT ?2
            """,
            [.text(query.fts5), .int(limit), .text(board?.rawValue ?? "")]
        )
    }
}
