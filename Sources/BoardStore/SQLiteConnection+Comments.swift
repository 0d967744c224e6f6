internal import BoardCore

/// The comment rows in SQLite (schema migration 4).
extension SQLiteConnection: CommentRows {
    func putComment(_ comment: Comment, on item: ItemID, seq: Seq, of id: BoardID) throws(StoreError) {
        try query(
            "INSERT OR REPLACE INTO comments (board, seq, item, member, name, at, text, mentions, edited) "
                + "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            [
                .text(id.rawValue), .int(seq), .text(item.rawValue), .text(comment.member.rawValue),
                .text(comment.name), .int(Int(comment.at)), .text(comment.text),
                .text(String(decoding: Comment.encodeMentions(comment.mentions), as: UTF8.self)),
                .int(Int(comment.edited ?? 0)),
            ])
    }

    func editComment(seq: Seq, of id: BoardID, text: String, mentions: [UInt8], edited: Int64) throws(StoreError) {
        try query(
            "UPDATE comments SET text = ?3, mentions = ?4, edited = ?5 WHERE board = ?1 AND seq = ?2",
            [
                .text(id.rawValue), .int(seq), .text(text), .text(String(decoding: mentions, as: UTF8.self)),
                .int(Int(edited)),
            ])
    }

    func deleteComment(seq: Seq, of id: BoardID) throws(StoreError) {
        try query("DELETE FROM comments WHERE board = ?1 AND seq = ?2", [.text(id.rawValue), .int(seq)])
    }

    func deleteComments(of id: BoardID) throws(StoreError) {
        try query("DELETE FROM comments WHERE board = ?1", [.text(id.rawValue)])
    }

    func commentRows(of id: BoardID, item: ItemID, before: Seq, limit: Int) throws(StoreError) -> [Comment] {
        var rows: [(Int, String, String, Int, String, [UInt8], Int)] = []
        try query(
            "SELECT seq, member, name, at, text, CAST(mentions AS BLOB), edited FROM comments "
                + "WHERE board = ?1 AND item = ?2 AND seq < ?3 ORDER BY seq DESC LIMIT ?4",
            [.text(id.rawValue), .text(item.rawValue), .int(before), .int(limit)]
        ) { row in
            rows.append((row.int(0), row.text(1), row.text(2), row.int(3), row.text(4), row.bytes(5), row.int(6)))
        }
        var comments: [Comment] = []
        for r in rows {
            comments.append(
                try Comment.row(
                    seq: r.0, member: r.1, name: r.2, at: r.3, text: r.4, mentions: r.5, edited: r.6, board: id))
        }
        return comments
    }

    func commentRows(of id: BoardID, through seq: Seq) throws(StoreError) -> [ItemComment] {
        var rows: [(Int, String, String, Int, String, [UInt8], Int, String)] = []
        try query(
            "SELECT seq, member, name, at, text, CAST(mentions AS BLOB), edited, item FROM comments "
                + "WHERE board = ?1 AND seq <= ?2 ORDER BY seq",
            [.text(id.rawValue), .int(seq)]
        ) { row in
            rows.append(
                (row.int(0), row.text(1), row.text(2), row.int(3), row.text(4), row.bytes(5), row.int(6), row.text(7)))
        }
        var comments: [ItemComment] = []
        for r in rows {
            guard let item = ItemID(r.7) else { throw StoreError("board \(id): comment n\(r.0) has a bad item") }
            let comment = try Comment.row(
                seq: r.0, member: r.1, name: r.2, at: r.3, text: r.4, mentions: r.5, edited: r.6, board: id)
            comments.append(ItemComment(item: item, comment: comment))
        }
        return comments
    }
}
