package import BoardCore

/// The reads of a board's past: the board as of a seq (through the store's `SnapshotCache`) and
/// pages of its history.
extension PostgresStore {
    /// The board as it was right after op `seq`: the nearest snapshot and the ops after it.
    package func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf {
        try onReadOnly { db throws(StoreError) in try db.boardAsOf(id, at: seq, cache: snapshots) }
    }

    /// Up to `limit` stored ops before `before`, newest first.
    package func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        try onReadOnly { db throws(StoreError) in try db.historyPage(of: id, before: before, limit: limit) }
    }
}
