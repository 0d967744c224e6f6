internal import BoardCore

/// The comment rows in SQLite (schema migration 4).
extension SQLiteConnection: CommentRows {
    func putComment(_ comment: Comment, on item: ItemID, seq: Seq, of id: BoardID) throws(StoreError) {
        try write(
            "INSERT OR REPLACE INTO comments (board, seq, item, member, name, at, text, mentions, edited) "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)", Self.values(of: comment, on: item, seq: seq, of: id))
    }
}
