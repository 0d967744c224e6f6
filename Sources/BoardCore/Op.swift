/// A change to a board. Committed ops are numbered and applied in one order everywhere.
///
/// The ops that carry a whole item, zone, edit or board are `indirect` (their payload in a box of
/// its own): an op is copied several times on its way from the socket to every reader, and the
/// moves and toggles that make most of the traffic then copy a small value, not the size of the
/// largest case (`OpLayoutTests`).
package enum Op: Equatable, Sendable {
    /// Exchange the places of two items, possibly in different zones.
    case swap(a: ItemID, b: ItemID)
    /// Take `item` out and insert it before `before` in `zone`, or at the end when `before` is nil.
    case move(item: ItemID, zone: ZoneID, before: ItemID?)
    /// Set the paint state of `item`.
    case toggle(item: ItemID, on: Bool)
    /// Put a new `item` into `zone` before `before` (nil: at the end). In a request `item.id` is
    /// `ItemID.unassigned`; the sequencer gives the committed op a fresh id.
    indirect case add(zone: ZoneID, before: ItemID?, item: Item)
    /// Change some of an item's texts or its color.
    indirect case edit(item: ItemID, changes: ItemEdit)
    /// Take `item` off the board.
    case remove(item: ItemID)
    /// Put a new, empty `zone` before the zone `before` (nil: last). In a request `zone.id` is
    /// `ZoneID.unassigned`; the sequencer gives the committed op a fresh id.
    indirect case addZone(before: ZoneID?, zone: Zone)
    /// Change a zone's title or layout.
    indirect case editZone(zone: ZoneID, changes: ZoneEdit)
    /// Take an empty zone off the board.
    case removeZone(zone: ZoneID)
    /// Rename the board.
    case retitle(title: String)
    /// Add tags to `item` and take others off it (a set change: adding one it has, or taking off
    /// one it lacks, changes nothing). No tag is in both lists.
    case tag(item: ItemID, add: [TagID], remove: [TagID])
    /// Assign people to `item` and unassign others (a set change, as `tag`).
    case assign(item: ItemID, add: [Assignee], remove: [MemberID])
    /// Define a new tag on the board, and put it on `items` at once (the undo of a `removeTag`
    /// brings the tag back onto the cards that had it; usually none). In a request `tag.id` is
    /// `TagID.unassigned`; the sequencer gives the committed op a fresh id.
    indirect case addTag(tag: Tag, items: [ItemID] = [])
    /// Rename or recolor a tag.
    indirect case editTag(tag: TagID, changes: TagEdit)
    /// Take a tag off the board and off every item that carries it.
    case removeTag(tag: TagID)
    /// Put a new entry into `item`'s checklist before `before` (nil: at the end). In a request
    /// `check.id` is `CheckID.unassigned`; the sequencer gives the committed op a fresh id.
    indirect case addCheck(item: ItemID, before: CheckID?, check: Check)
    /// Change a checklist entry's text or tick it.
    indirect case editCheck(item: ItemID, check: CheckID, changes: CheckEdit)
    /// Take an entry out of `item`'s checklist.
    case removeCheck(item: ItemID, check: CheckID)
    /// Write a comment on `item`. In a request `comment.id` is `CommentID.unassigned` and its
    /// author, name and time are the sequencer's to fill in.
    indirect case comment(item: ItemID, comment: Comment)
    /// Change a comment's text and mentions (its author only); `edited` is the server's time.
    indirect case editComment(item: ItemID, comment: CommentID, text: String, mentions: [Mention], edited: Int64)
    /// Take a comment off `item` (its author or an admin).
    case removeComment(item: ItemID, comment: CommentID)
    /// Take `items` (1–200, distinct) out of their places and put them, in this order, before
    /// `before` in `zone` (nil: at its end): all of them or none (issue 36).
    case moveMany(items: [ItemID], zone: ZoneID, before: ItemID?)
    /// Take `items` (1–200, distinct) off the board's zones into its archive.
    case archive(items: [ItemID])
    /// Put archived `items` (1–200, distinct) back, in this order, before `before` in `zone`.
    case unarchive(items: [ItemID], zone: ZoneID, before: ItemID?)
    /// Set the board (items, zones, title) to what it was right after op `to`. In a request
    /// `board` is nil: the hub reads the board as of `to` from the store, and the committed op
    /// carries it, so that a replay of the log needs nothing else.
    indirect case restore(to: Seq, board: Board?)

    /// The kinds of op by their wire names, in the order the protocol lists them: the one list
    /// of them in Swift (`kind` maps every case here and `init(type:fields:assigned:)` reads
    /// every kind, both checked complete by the compiler; `kinds` and the REST API's list follow).
    package enum Kind: String, CaseIterable, Sendable {
        case swap, move, toggle, add, edit, remove, addZone, editZone, removeZone, retitle, restore
        case tag, assign, addTag, editTag, removeTag, addCheck, editCheck, removeCheck
        case comment, editComment, removeComment
        case moveMany, archive, unarchive

        /// The kind's place in `allCases`, in O(1): a payload-free enum of fewer than 256 cases
        /// is stored as one byte, its case's place in the declaration (`allCases`' order);
        /// `OpLayoutTests` checks it for every kind, and the cast traps if the size changes.
        package var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }

        /// The kind whose wire name is `name`, or nil: a scan of `Op.kinds` (most ops are among
        /// the first), cheaper than `init(rawValue:)`'s hashed lookup for every op a client sends.
        package init?(named name: String) {
            guard let place = Op.kinds.firstIndex(of: name) else { return nil }
            self = Self.inOrder[place]
        }

        /// `allCases`, made once.
        private static let inOrder = allCases
    }

    /// The op's kind.
    package var opKind: Kind {
        switch self {
        case .swap: .swap
        case .move: .move
        case .toggle: .toggle
        case .add: .add
        case .edit: .edit
        case .remove: .remove
        case .addZone: .addZone
        case .editZone: .editZone
        case .removeZone: .removeZone
        case .retitle: .retitle
        case .restore: .restore
        case .tag: .tag
        case .assign: .assign
        case .addTag: .addTag
        case .editTag: .editTag
        case .removeTag: .removeTag
        case .addCheck: .addCheck
        case .editCheck: .editCheck
        case .removeCheck: .removeCheck
        case .comment: .comment
        case .editComment: .editComment
        case .removeComment: .removeComment
        case .moveMany: .moveMany
        case .archive: .archive
        case .unarchive: .unarchive
        }
    }

    /// The wire name of the op.
    package var kind: String { opKind.rawValue }

    /// The wire names of every op, in the order the protocol lists them.
    package static let kinds = Kind.allCases.map(\.rawValue)

    /// The items the op names and needs on the board: swap a and b, move item and its anchor,
    /// toggle, edit and remove item, add its anchor.
    package var involvedItems: [ItemID] {
        switch self {
        case .swap(let a, let b): [a, b]
        case .move(let item, _, let before): before.map { [item, $0] } ?? [item]
        case .toggle(let item, _), .edit(let item, _), .remove(let item): [item]
        case .tag(let item, _, _), .assign(let item, _, _), .addCheck(let item, _, _), .editCheck(let item, _, _),
            .removeCheck(let item, _), .comment(let item, _), .editComment(let item, _, _, _, _),
            .removeComment(let item, _):
            [item]
        case .add(_, let before, _): before.map { [$0] } ?? []
        case .addTag(_, let items), .archive(let items): items
        case .moveMany(let items, _, let before), .unarchive(let items, _, let before):
            before.map { items + [$0] } ?? items
        case .addZone, .editZone, .removeZone, .retitle, .restore, .editTag, .removeTag: []
        }
    }

    /// The zones the op names and needs on the board.
    package var involvedZones: [ZoneID] {
        switch self {
        case .move(_, let zone, _), .add(let zone, _, _), .editZone(let zone, _), .removeZone(let zone),
            .moveMany(_, let zone, _), .unarchive(_, let zone, _):
            [zone]
        case .addZone(let before, _): before.map { [$0] } ?? []
        case .swap, .toggle, .edit, .remove, .retitle, .restore, .tag, .assign, .addTag, .editTag, .removeTag,
            .addCheck, .editCheck, .removeCheck, .comment, .editComment, .removeComment, .archive:
            []
        }
    }

    /// The items another user's drag keeps this op from touching: everything a swap, move or
    /// toggle names (and a moveMany, archive or unarchive: each item and the anchor), and the
    /// item a remove takes away. An edit changes text under the holder's
    /// hand, never the place, so a hold does not stop it. A restore is stopped by any hold
    /// (`holdsEveryItem`), which this list does not name.
    package var heldItems: [ItemID] {
        switch self {
        case .swap, .move, .toggle, .moveMany, .archive, .unarchive: involvedItems
        case .remove(let item): [item]
        case .add, .edit, .addZone, .editZone, .removeZone, .retitle, .restore, .tag, .assign, .addTag, .editTag,
            .removeTag, .addCheck, .editCheck, .removeCheck, .comment, .editComment, .removeComment:
            []
        }
    }

    /// True for an op that any other user's hold stops: a restore moves every item.
    package var holdsEveryItem: Bool {
        if case .restore = self { return true }
        return false
    }
}

/// The fields an `edit` changes; nil leaves a field as it is.
package struct ItemEdit: Equatable, Sendable {
    /// The new label.
    package var label: String?
    /// The new color.
    package var color: String?
    /// The new detail: `.some(nil)` clears it.
    package var detail: String??
    /// The new description: `.some(nil)` clears it.
    package var description: String??
    /// The new due date: `.some(nil)` clears it.
    package var due: String??

    /// An edit.
    package init(
        label: String? = nil, color: String? = nil, detail: String?? = nil, description: String?? = nil,
        due: String?? = nil
    ) {
        self.label = label
        self.color = color
        self.detail = detail
        self.description = description
        self.due = due
    }

    /// True when the edit changes nothing.
    package var isEmpty: Bool { label == nil && color == nil && detail == nil && description == nil && due == nil }

    /// The fields it changes.
    package var fields: [ItemField] {
        var fields: [ItemField] = []
        if label != nil { fields.append(.label) }
        if color != nil { fields.append(.color) }
        if detail != nil { fields.append(.detail) }
        if description != nil { fields.append(.description) }
        if due != nil { fields.append(.due) }
        return fields
    }
}

/// A field of an item that `edit` can change: the unit of its conflict rule.
package enum ItemField: String, Equatable, Sendable, CaseIterable {
    case label, color, detail, description, due
}

/// The fields an `editZone` changes; nil leaves a field as it is.
package struct ZoneEdit: Equatable, Sendable {
    /// The new title.
    package var title: String?
    /// The new layout (a layout other than `grid` drops the zone's `columns`).
    package var layout: Zone.Layout?
    /// The new columns of a grid.
    package var columns: Int?

    /// An edit.
    package init(title: String? = nil, layout: Zone.Layout? = nil, columns: Int? = nil) {
        self.title = title
        self.layout = layout
        self.columns = columns
    }

    /// True when the edit changes nothing.
    package var isEmpty: Bool { title == nil && layout == nil && columns == nil }

    /// The fields it changes.
    package var fields: [ZoneField] {
        var fields: [ZoneField] = []
        if title != nil { fields.append(.title) }
        if layout != nil { fields.append(.layout) }
        if columns != nil { fields.append(.columns) }
        return fields
    }
}

/// A field of a zone that `editZone` can change: the unit of its conflict rule.
package enum ZoneField: String, Equatable, Sendable, CaseIterable {
    case title, layout, columns
}

/// An op as committed: numbered, attributed, with the client's op id.
package struct CommittedOp: Equatable, Sendable {
    /// Its position in the board's history (1 is the first op).
    package var seq: Seq
    /// The client-chosen id, for deduplication.
    package var opID: OpID
    /// Who sent it.
    package var by: UserID
    /// What it does.
    package var op: Op
    /// When the server committed it, by the wall clock (informational).
    package var time: UnixTime
    /// The name its sender had on the board, for history lists; nil when not known (ops stored
    /// before names were, and ops made in tests without one). Never broadcast with the op.
    package var name: String?
    /// The person who sent it (`User.member`), broadcast beside `by`; nil for ops committed
    /// before members existed.
    package var member: MemberID?

    /// A committed op.
    package init(
        seq: Seq, opID: OpID, by: UserID, op: Op, time: UnixTime, name: String? = nil, member: MemberID? = nil
    ) {
        self.seq = seq
        self.opID = opID
        self.by = by
        self.op = op
        self.time = time
        self.name = name
        self.member = member
    }
}
