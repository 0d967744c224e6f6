internal import BoardCore

/// The store's reads, the same in SQLite and PostgreSQL: each in one read transaction on the
/// reader connection (`onReadOnly`), built on the `BoardRows` reads (StoreQueries.swift).
extension SQLStore {
    /// The board at its current seq (latest snapshot plus the ops after it) and its newest ops.
    package func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        try onReadOnly { db throws(StoreError) in try db.storedBoard(id, recentLimit: recentLimit) }
    }

    /// Whether the board is stored.
    package func exists(_ id: BoardID) throws(StoreError) -> Bool {
        try onReadOnly { db throws(StoreError) in try db.boardSeq(of: id) != nil }
    }

    /// A page of boards, by id.
    package func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        try onReadOnly { db throws(StoreError) in try db.summaries(after: after, limit: limit) }
    }

    /// Up to `limit` ops with seq greater than `since`; `.gone` when some of them were compacted away.
    package func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        try onReadOnly { db throws(StoreError) in try db.opsPage(of: id, since: since, limit: limit) }
    }

    /// The board as it was right after op `seq`: the nearest snapshot and the ops after it, the
    /// snapshot decoded once and kept (`SnapshotCache`).
    package func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf {
        try onReadOnly { db throws(StoreError) in try db.boardAsOf(id, at: seq, cache: snapshots) }
    }

    /// Up to `limit` stored ops before `before`, newest first.
    package func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        try onReadOnly { db throws(StoreError) in try db.historyPage(of: id, before: before, limit: limit) }
    }

    /// A page of a card's comments, newest first.
    package func comments(of id: BoardID, item: ItemID, before: Seq?, limit: Int) throws(StoreError) -> CommentsPage {
        try onReadOnly { db throws(StoreError) in
            try db.commentsPage(of: id, item: item, before: before, limit: limit, exists: db.boardSeq(of: id) != nil)
        }
    }

    /// The base snapshot and every stored op after it.
    package func archive(of id: BoardID) throws(StoreError) -> BoardArchive? {
        try onReadOnly { db throws(StoreError) in try db.boardArchive(of: id) }
    }
}
