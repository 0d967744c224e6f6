// Comments on cards (issue 34): the conversation about a card. A board keeps only who wrote
// which comment on which card (`CommentRef`, for the rules) and each card's count; the texts
// live in the store's comments table and travel in the ops.

/// Comments.
package enum CommentKind: IDKind { package static let expected = identifier("a comment id") }
/// The id of a comment: `n<seq>`, the seq of the op that made it (unique on the board, never reused).
package typealias CommentID = WireID<CommentKind>

extension CommentID {
    /// The id of the comment made by op `seq`.
    package init(seq: Seq) { self.init(unchecked: "n\(seq)") }
    /// The seq the id names (`n<seq>`), or nil for an id of another form.
    package var seq: Seq? {
        guard rawValue.hasPrefix("n"), let seq = Int(rawValue.dropFirst()), seq > 0 else { return nil }
        return "n\(seq)" == rawValue ? seq : nil
    }
}

/// Someone a comment mentions: a member id and the name shown after `@`.
package typealias Mention = Assignee

/// A comment as the ops carry it and the store keeps it.
package struct Comment: Equatable, Sendable {
    /// Its id (`n<seq>`).
    package var id: CommentID
    /// Markdown source: 1–4,000 scalars, at most 16,000 bytes.
    package var text: String
    /// Its author.
    package var member: MemberID
    /// The author's name when they wrote it.
    package var name: String
    /// When it was made, ms since 1970.
    package var at: Int64
    /// The members it mentions (at most `BoardLimits.mentions`).
    package var mentions: [Mention]
    /// When it was last edited, ms since 1970; nil when never.
    package var edited: Int64?

    /// A comment.
    package init(
        id: CommentID, text: String, member: MemberID, name: String, at: Int64, mentions: [Mention] = [],
        edited: Int64? = nil
    ) {
        self.id = id
        self.text = text
        self.member = member
        self.name = name
        self.at = at
        self.mentions = mentions
        self.edited = edited
    }
}

/// What a board keeps of a comment: the card it is on and its author.
package struct CommentRef: Equatable, Sendable {
    /// The card.
    package var item: ItemID
    /// The author.
    package var member: MemberID

    /// A reference.
    package init(item: ItemID, member: MemberID) {
        self.item = item
        self.member = member
    }
}

extension BoardLimits {
    /// A comment's text (Markdown): 1–4,000 scalars, at most 16,000 bytes; newlines and tabs allowed.
    package static let commentText = TextLimit(
        scalars: 4_000, bytes: 16_000, allowsEmpty: false, allowsLineBreaks: true)
    /// The most members one comment mentions.
    package static let mentions = 20
    /// The most comments on one card.
    package static let commentsPerItem = 500
    /// The most comments a board keeps, over all its cards (those of removed cards included: a
    /// restore may bring the card back with them).
    package static let comments = 5_000
}

extension Board {
    /// Why a comment op cannot apply, after its item was found: an unknown comment, one on
    /// another card, or a comment over a bound.
    func commentProblem(applying op: Op) -> OpProblem? {
        switch op {
        case .comment(let item, _):
            if commentRefs.count >= BoardLimits.comments { return .boardFull }
            if (self.item(item)?.comments ?? 0) >= BoardLimits.commentsPerItem { return .boardFull }
        case .editComment(let item, let id, _, _, _), .removeComment(let item, let id):
            guard let ref = commentRefs[id], ref.item == item else { return .unknownComment(id) }
        default:
            break
        }
        return nil
    }

    /// Applies a comment op: the count of its card and the board's references.
    mutating func applyComment(_ op: Op) {
        switch op {
        case .comment(let item, let comment):
            guard commentRefs[comment.id] == nil else { return }
            commentRefs[comment.id] = CommentRef(item: item, member: comment.member)
            adjustComments(of: item, by: 1)
        case .removeComment(let item, let id):
            guard commentRefs[id]?.item == item else { return }
            commentRefs[id] = nil
            adjustComments(of: item, by: -1)
        default:
            break
        }
    }

    /// Sets every item's `comments` to the count of its references (after a restore or a load).
    mutating func recountComments() {
        var counts: [ItemID: Int] = [:]
        for ref in commentRefs.values { counts[ref.item, default: 0] += 1 }
        for i in items.indices { items[i].comments = counts[items[i].id] ?? 0 }
    }

    /// The references sorted by the seq of their ids (the stored snapshot's order).
    package var sortedCommentRefs: [(id: CommentID, ref: CommentRef)] {
        commentRefs.map { ($0.key, $0.value) }.sorted {
            ($0.id.seq ?? 0, $0.id.rawValue) < ($1.id.seq ?? 0, $1.id.rawValue)
        }
    }
}
