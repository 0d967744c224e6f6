internal import BoardCore

/// The comment rows whose SQL is the same in SQLite and PostgreSQL (`CommentRows`); `putComment`,
/// whose conflict rule differs (SQLite replaces, PostgreSQL keeps the first), stays in each.
extension SQLConnection {
    func editComment(seq: Seq, of id: BoardID, text: String, mentions: [UInt8], edited: Int64) throws(StoreError) {
        try write(
            "UPDATE comments SET text = $3, mentions = $4, edited = $5 WHERE board = $1 AND seq = $2",
            [.text(id.rawValue), .int(seq), .utf8(text), .json(mentions), .int(Int(edited))])
    }

    func deleteComment(seq: Seq, of id: BoardID) throws(StoreError) {
        try write("DELETE FROM comments WHERE board = $1 AND seq = $2", [.text(id.rawValue), .int(seq)])
    }

    func deleteComments(of id: BoardID) throws(StoreError) {
        try write("DELETE FROM comments WHERE board = $1", [.text(id.rawValue)])
    }

    func commentRows(of id: BoardID, item: ItemID, before: Seq, limit: Int) throws(StoreError) -> [Comment] {
        var comments: [Comment] = []
        try rows(
            "SELECT seq, member, name, at, text, mentions, edited FROM comments "
                + "WHERE board = $1 AND item = $2 AND seq < $3 ORDER BY seq DESC LIMIT $4",
            [.text(id.rawValue), .text(item.rawValue), .int(before), .int(limit)]
        ) { row throws(StoreError) in comments.append(try Self.comment(row, of: id)) }
        return comments
    }

    func commentRows(of id: BoardID, through seq: Seq) throws(StoreError) -> [ItemComment] {
        var comments: [ItemComment] = []
        try rows(
            "SELECT seq, member, name, at, text, mentions, edited, item FROM comments "
                + "WHERE board = $1 AND seq <= $2 ORDER BY seq",
            [.text(id.rawValue), .int(seq)]
        ) { row throws(StoreError) in
            guard let item = ItemID(row.text(7)) else {
                throw StoreError("board \(id): comment n\(row.int(0)) has a bad item")
            }
            comments.append(ItemComment(item: item, comment: try Self.comment(row, of: id)))
        }
        return comments
    }

    /// A comment's columns: board, seq, item, member, name, at, text, mentions, edited.
    static func values(of comment: Comment, on item: ItemID, seq: Seq, of id: BoardID) -> [SQLValue] {
        [
            .text(id.rawValue), .int(seq), .text(item.rawValue), .text(comment.member.rawValue),
            .utf8(comment.name), .int(Int(comment.at)), .utf8(comment.text),
            .json(Comment.encodeMentions(comment.mentions)), .int(Int(comment.edited ?? 0)),
        ]
    }

    /// A comment row's first seven columns: seq, member, name, at, text, mentions, edited.
    private static func comment(_ row: Row, of id: BoardID) throws(StoreError) -> Comment {
        try Comment.row(
            seq: row.int(0), member: row.text(1), name: row.text(2), at: row.int(3), text: row.text(4),
            mentions: row.bytes(5), edited: row.int(6), board: id)
    }
}
