package import BoardCore

// Comments in the store (issue 34): their texts are kept in a table of their own, written in the
// same transaction as the ops that make, edit and remove them, and read page by page. A board's
// snapshots keep only who wrote which comment (`Board.commentRefs`); compaction of the op log
// never touches this table, so a conversation outlives the ops that carried it.

/// A page of a card's comments, newest first.
package enum CommentsPage: Equatable, Sendable {
    /// Up to the asked-for number of comments older than the asked-for one; `more` when older ones remain.
    case comments([Comment], more: Bool)
    /// No such board.
    case unknownBoard
}

/// The most comments one page may ask for.
package let maximumCommentsPage = 100

/// The comment rows both stores share.
protocol CommentRows {
    /// Inserts the comment made by op `seq` on `item`.
    func putComment(_ comment: Comment, on item: ItemID, seq: Seq, of id: BoardID) throws(StoreError)
    /// Sets the text, mentions (JSON) and edit time of the comment made by op `seq`.
    func editComment(seq: Seq, of id: BoardID, text: String, mentions: [UInt8], edited: Int64) throws(StoreError)
    /// Deletes the comment made by op `seq`.
    func deleteComment(seq: Seq, of id: BoardID) throws(StoreError)
    /// Deletes every comment of the board.
    func deleteComments(of id: BoardID) throws(StoreError)
    /// Up to `limit` comments on `item` made before op `before`, newest first.
    func commentRows(of id: BoardID, item: ItemID, before: Seq, limit: Int) throws(StoreError) -> [Comment]
    /// Every comment of the board made by op `seq` or before, oldest first (for export).
    func commentRows(of id: BoardID, through seq: Seq) throws(StoreError) -> [ItemComment]
}

/// A comment and the card it is on, as an archive carries it.
package struct ItemComment: Equatable, Sendable {
    /// The card.
    package var item: ItemID
    /// The comment.
    package var comment: Comment
}

extension Comment {
    /// The mentions as the store keeps them: a JSON array of `{member, name}`.
    static func encodeMentions(_ mentions: [Mention]) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        Comment.writeMentions(mentions, into: &w)
        w.endObject()
        return w.bytes
    }

    /// A comment row read back: its mentions decoded (a damaged row names the board).
    static func row(
        seq: Seq, member: String, name: String, at: Int, text: String, mentions: [UInt8], edited: Int, board: BoardID
    ) throws(StoreError) -> Comment {
        guard let member = MemberID(member) else {
            throw StoreError("board \(board): comment n\(seq) has a bad member")
        }
        let list: [Mention]
        do { list = try Comment.readMentions(from: try JSON.parse(mentions)) } catch {
            throw StoreError("board \(board): comment n\(seq) has damaged mentions")
        }
        return Comment(
            id: CommentID(seq: seq), text: text, member: member, name: name, at: Int64(at), mentions: list,
            edited: edited > 0 ? Int64(edited) : nil)
    }
}

extension CommentRows {
    /// Writes what committed ops did to comments.
    func writeComments(_ ops: [CommittedOp], of id: BoardID) throws(StoreError) {
        for op in ops {
            switch op.op {
            case .comment(let item, let comment):
                try putComment(comment, on: item, seq: comment.id.seq ?? op.seq, of: id)
            case .editComment(_, let comment, let text, let mentions, let edited):
                guard let seq = comment.seq else { continue }
                try editComment(
                    seq: seq, of: id, text: text, mentions: Comment.encodeMentions(mentions), edited: edited)
            case .removeComment(_, let comment):
                guard let seq = comment.seq else { continue }
                try deleteComment(seq: seq, of: id)
            default:
                continue
            }
        }
    }

    /// A page of a card's comments: `limit` + 1 read to know whether there are more.
    func commentsPage(of id: BoardID, item: ItemID, before: Seq?, limit: Int, exists: Bool) throws(StoreError)
        -> CommentsPage
    {
        guard exists else { return .unknownBoard }
        let asked = min(max(limit, 1), maximumCommentsPage)
        let rows = try commentRows(of: id, item: item, before: before ?? .max, limit: asked + 1)
        return .comments(Array(rows.prefix(asked)), more: rows.count > asked)
    }
}

extension Op {
    /// True for the ops the comments table follows.
    var isCommentOp: Bool {
        switch self {
        case .comment, .editComment, .removeComment: true
        default: false
        }
    }
}
