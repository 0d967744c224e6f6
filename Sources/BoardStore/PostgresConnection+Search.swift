internal import BoardCore

/// The search index in PostgreSQL (schema migration 8): `search_docs` with a `tsvector` in the
/// 'simple' configuration and a GIN index on it. Every value is a bound parameter; the query is
/// one, built by `SearchQuery.tsquery`.
extension PostgresConnection: SearchRows {
    /// One document is a batch of one: the same statement as many.
    func putSearchDoc(_ doc: SearchDoc) throws(StoreError) {
        try putSearchDocs([doc])
    }

    /// Up to 100 documents an INSERT: a round trip and a statement each cost more than a row (a
    /// restore of a board of 1,000 cards writes them all again).
    func putSearchDocs(_ docs: [SearchDoc]) throws(StoreError) {
        var start = docs.startIndex
        while start < docs.endIndex {
            let chunk = docs[start..<min(start + 100, docs.endIndex)]
            var values: [PostgresValue] = []
            var tuples: [String] = []
            for doc in chunk {
                let n = values.count
                let (label, body) = ("$\(n + 5)", "$\(n + 6)")
                tuples.append(
                    "($\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4), \(label), \(body), "
                        + "setweight(to_tsvector('simple', \(label)), 'A') || setweight(to_tsvector('simple', \(body)), 'B'))"
                )
                values += [
                    .text(doc.board.rawValue), .text(doc.item), .int(doc.seq), .bool(doc.archived),
                    .text(Self.indexable(doc.label)), .text(Self.indexable(doc.body)),
                ]
            }
            try send(
                "INSERT INTO search_docs (board, item, seq, archived, label, body, doc) VALUES "
                    + tuples.joined(separator: ", ")
                    + " ON CONFLICT (board, item, seq) DO UPDATE SET archived = EXCLUDED.archived, "
                    + "label = EXCLUDED.label, body = EXCLUDED.body, doc = EXCLUDED.doc",
                values)
            start = chunk.endIndex
        }
    }

    func lockBehindIndex(_ id: BoardID) throws(StoreError) -> Bool {
        // The board's row stays locked to the end of the transaction: a node appending to the
        // board waits (its append updates the row), so the documents written are of its last seq.
        var behind = false
        try query("SELECT indexed <> seq FROM boards WHERE id = $1 FOR UPDATE", [.text(id.rawValue)]) { row in
            behind = row.bool(0)
        }
        return behind
    }

    func clearSearchIndex() throws(StoreError) {
        try query("DELETE FROM search_docs")
        try query("UPDATE boards SET indexed = -1")
    }

    func searchRows(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> [SearchRow] {
        // ts_rank with the default weights (A 1.0, B 0.4), divided by 1 + the log of the length; a comment counts only while its card
        // has a document (is on the board), and shows its card's label.
        try searchRows(
            """
            WITH q AS (SELECT to_tsquery('simple', $1) AS q)
            SELECT d.board, coalesce(t.label, ''), d.item, d.seq, coalesce(c.label, d.label),
                   coalesce(c.archived, d.archived)::int4::int8, d.body
            FROM q, search_docs d
            LEFT JOIN search_docs c ON d.seq > 0 AND c.board = d.board AND c.item = d.item AND c.seq = 0
            LEFT JOIN search_docs t ON t.board = d.board AND t.item = '' AND t.seq = 0
            WHERE d.doc @@ q.q AND (d.seq = 0 OR c.board IS NOT NULL) AND ($3 = '' OR d.board = $3)
            ORDER BY ts_rank(d.doc, q.q, 1) DESC, d.board, d.item, d.seq LIMIT $2
            """,
            [.text(query.tsquery), .int(limit), .text(board?.rawValue ?? "")]
        )
    }

    /// Text PostgreSQL's `text` can hold (`SearchDoc.clean` made control characters spaces already).
    private static func indexable(_ text: String) -> String {
        text.contains("\u{0}") ? text.replacingOccurrences(of: "\u{0}", with: " ") : text
    }
}
