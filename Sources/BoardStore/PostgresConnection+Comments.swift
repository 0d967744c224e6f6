internal import BoardCore

/// The comment rows in PostgreSQL (schema migration 5), every value a bound parameter.
extension PostgresConnection: CommentRows {
    func putComment(_ comment: Comment, on item: ItemID, seq: Seq, of id: BoardID) throws(StoreError) {
        try write(
            "INSERT INTO comments (board, seq, item, member, name, at, text, mentions, edited) "
                + "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (board, seq) DO NOTHING",
            Self.values(of: comment, on: item, seq: seq, of: id))
    }
}
