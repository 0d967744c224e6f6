package import BoardCore

/// Search in PostgreSQL (PostgresConnection+Search.swift; the reads are SQLStore+Reads.swift).
extension PostgresStore {
    /// Search hits, best first, read in one read-only transaction (not in SQLStore+Reads.swift:
    /// `BoardStore`'s own answer for a store with no index would stand beside it).
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        try onReadOnly { db throws(StoreError) in try db.search(query, board: board, limit: limit) }
    }

    /// Rebuilds the search index of the boards behind their log, or of every board.
    package func reindex(all: Bool) throws(StoreError) -> Int {
        try withWriter(0) { writer throws(StoreError) in try writer.reindex(all: all) }
    }
}
