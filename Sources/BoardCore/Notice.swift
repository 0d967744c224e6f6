// The inbox (issue 34): each member is told when a comment mentions them or an `assign` adds
// them to a card. A notice is made by the store in the transaction that stores the op (so a
// notice exists exactly when its op does), from the op and the board as it was before it
// (`Notice.made(by:on:)`); the store numbers it, keeps the newest `Notice.keptPerMember` of each
// member, and the hub tells the member's connected clients (`ServerMessage.notice`).

/// One entry of a member's inbox.
package struct Notice: Equatable, Sendable {
    /// Why the member is told.
    package enum Kind: String, Equatable, Sendable {
        /// A comment (or an edit of one) mentions them.
        case mention
        /// An `assign` added them to a card.
        case assign
    }

    /// Its number: unique in the store, greater for a notice committed later (0 until stored).
    package var id: Int64
    /// Whose inbox it is in.
    package var member: MemberID
    /// Why.
    package var kind: Kind
    /// The board of the card.
    package var board: BoardID
    /// The card.
    package var item: ItemID
    /// The card's label when the notice was made (an item label: at most 800 bytes).
    package var label: String
    /// Who made it: their member id and name.
    package var by: Assignee
    /// When, ms since 1970 (the op's commit time).
    package var at: Int64
    /// The op that made it.
    package var seq: Seq
    /// For a mention, the comment's seq (`n<seq>`); 0 for an assignment. A member is told of
    /// one comment once, by the comment or by the first edit that mentions them.
    package var comment: Seq
    /// Whether the member has marked it read.
    package var read: Bool

    /// A notice.
    package init(
        id: Int64 = 0, member: MemberID, kind: Kind, board: BoardID, item: ItemID, label: String, by: Assignee,
        at: Int64, seq: Seq, comment: Seq = 0, read: Bool = false
    ) {
        self.id = id
        self.member = member
        self.kind = kind
        self.board = board
        self.item = item
        self.label = label
        self.by = by
        self.at = at
        self.seq = seq
        self.comment = comment
        self.read = read
    }

    /// The most notices a member's inbox keeps: past it, the oldest go.
    package static let keptPerMember = 500

    /// The notices `op` makes, committed on `board` (the board before the op is applied):
    /// - `comment`: one `mention` for each member in its mentions;
    /// - `editComment`: one `mention` for each member in its new mentions (the store leaves out
    ///   those already told of that comment);
    /// - `assign`: one `assign` for each member it adds who was not assigned to the card before.
    /// Never for the op's own author (a member does not notify themselves), never twice for
    /// one member, and none for an op without a member (stored before members existed).
    package static func made(by op: CommittedOp, on board: Board, id: BoardID) -> [Notice] {
        guard let author = op.member else { return [] }
        let item: ItemID
        let kind: Kind
        var members: [Assignee]
        var comment: Seq = 0
        switch op.op {
        case .comment(let on, let made):
            (item, kind, members, comment) = (on, .mention, made.mentions, made.id.seq ?? op.seq)
        case .editComment(let on, let edited, _, let mentions, _):
            guard let seq = edited.seq else { return [] }
            (item, kind, members, comment) = (on, .mention, mentions, seq)
        case .assign(let on, let add, _):
            let before = Set(board.item(on)?.assignees.map(\.member) ?? [])
            (item, kind, members) = (on, .assign, add.filter { !before.contains($0.member) })
        default:
            return []
        }
        var seen: Set<MemberID> = [author]
        let label = board.item(item)?.label ?? ""
        let by = Assignee(member: author, name: op.name ?? author.rawValue)
        return members.compactMap { person in
            guard seen.insert(person.member).inserted else { return nil }
            return Notice(
                member: person.member, kind: kind, board: id, item: item, label: label, by: by,
                at: op.time.milliseconds, seq: op.seq, comment: comment)
        }
    }

    /// Whether `op` can make a notice (so that the hub asks the store for new ones once it is durable).
    package static func mayNotify(_ op: Op) -> Bool {
        switch op {
        case .comment(_, let comment): !comment.mentions.isEmpty
        case .editComment(_, _, _, let mentions, _): !mentions.isEmpty
        case .assign(_, let add, _): !add.isEmpty
        default: false
        }
    }

    /// Writes `{id, kind, board, item, label, by:{member,name}, at, seq, read}`.
    package func encode(into w: inout JSONWriter, key: String? = nil) {
        w.beginObject(key)
        writeFields(into: &w)
        w.endObject()
    }

    /// The fields, without braces (a `notice` message puts its `type` first).
    func writeFields(into w: inout JSONWriter) {
        w.write("id", Int(id))
        w.write("kind", kind.rawValue)
        w.write("board", board.rawValue)
        w.write("item", item.rawValue)
        w.write("label", label)
        w.beginObject("by")
        w.write("member", by.member.rawValue)
        w.write("name", by.name)
        w.endObject()
        w.write("at", Int(at))
        w.write("seq", seq)
        w.write("read", read)
    }
}
