/// A change to a board. Committed ops are numbered and applied in one order everywhere.
package enum Op: Equatable, Sendable {
    /// Exchange the places of two items, possibly in different zones.
    case swap(a: ItemID, b: ItemID)
    /// Take `item` out and insert it before `before` in `zone`, or at the end when `before` is nil.
    case move(item: ItemID, zone: ZoneID, before: ItemID?)
    /// Set the paint state of `item`.
    case toggle(item: ItemID, on: Bool)
    /// Put a new `item` into `zone` before `before` (nil: at the end). In a request `item.id` is
    /// `ItemID.unassigned`; the sequencer gives the committed op a fresh id.
    case add(zone: ZoneID, before: ItemID?, item: Item)
    /// Change some of an item's texts or its color.
    case edit(item: ItemID, changes: ItemEdit)
    /// Take `item` off the board.
    case remove(item: ItemID)
    /// Put a new, empty `zone` before the zone `before` (nil: last). In a request `zone.id` is
    /// `ZoneID.unassigned`; the sequencer gives the committed op a fresh id.
    case addZone(before: ZoneID?, zone: Zone)
    /// Change a zone's title or layout.
    case editZone(zone: ZoneID, changes: ZoneEdit)
    /// Take an empty zone off the board.
    case removeZone(zone: ZoneID)
    /// Rename the board.
    case retitle(title: String)
    /// Set the board (items, zones, title) to what it was right after op `to`. In a request
    /// `board` is nil: the hub reads the board as of `to` from the store, and the committed op
    /// carries it, so that a replay of the log needs nothing else.
    case restore(to: Seq, board: Board?)

    /// The wire name of the op.
    package var kind: String {
        switch self {
        case .swap: "swap"
        case .move: "move"
        case .toggle: "toggle"
        case .add: "add"
        case .edit: "edit"
        case .remove: "remove"
        case .addZone: "addZone"
        case .editZone: "editZone"
        case .removeZone: "removeZone"
        case .retitle: "retitle"
        case .restore: "restore"
        }
    }

    /// The wire names of every op, in the order the protocol lists them.
    package static let kinds = [
        "swap", "move", "toggle", "add", "edit", "remove", "addZone", "editZone", "removeZone", "retitle", "restore",
    ]

    /// The items the op names and needs on the board: swap a and b, move item and its anchor,
    /// toggle, edit and remove item, add its anchor.
    package var involvedItems: [ItemID] {
        switch self {
        case .swap(let a, let b): [a, b]
        case .move(let item, _, let before): before.map { [item, $0] } ?? [item]
        case .toggle(let item, _), .edit(let item, _), .remove(let item): [item]
        case .add(_, let before, _): before.map { [$0] } ?? []
        case .addZone, .editZone, .removeZone, .retitle, .restore: []
        }
    }

    /// The zones the op names and needs on the board.
    package var involvedZones: [ZoneID] {
        switch self {
        case .move(_, let zone, _), .add(let zone, _, _), .editZone(let zone, _), .removeZone(let zone): [zone]
        case .addZone(let before, _): before.map { [$0] } ?? []
        case .swap, .toggle, .edit, .remove, .retitle, .restore: []
        }
    }

    /// The items another user's drag keeps this op from touching: everything a swap, move or
    /// toggle names, and the item a remove takes away. An edit changes text under the holder's
    /// hand, never the place, so a hold does not stop it. A restore is stopped by any hold
    /// (`holdsEveryItem`), which this list does not name.
    package var heldItems: [ItemID] {
        switch self {
        case .swap, .move, .toggle: involvedItems
        case .remove(let item): [item]
        case .add, .edit, .addZone, .editZone, .removeZone, .retitle, .restore: []
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

    /// An edit.
    package init(label: String? = nil, color: String? = nil, detail: String?? = nil) {
        self.label = label
        self.color = color
        self.detail = detail
    }

    /// True when the edit changes nothing.
    package var isEmpty: Bool { label == nil && color == nil && detail == nil }

    /// The fields it changes.
    package var fields: [ItemField] {
        var fields: [ItemField] = []
        if label != nil { fields.append(.label) }
        if color != nil { fields.append(.color) }
        if detail != nil { fields.append(.detail) }
        return fields
    }
}

/// A field of an item that `edit` can change: the unit of its conflict rule.
package enum ItemField: String, Equatable, Sendable, CaseIterable {
    case label, color, detail
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

extension ItemID {
    /// The id an `add` request carries until the sequencer assigns a real one (never committed).
    package static let unassigned = ItemID("unassigned")!
}

extension ZoneID {
    /// The id an `addZone` request carries until the sequencer assigns a real one (never committed).
    package static let unassigned = ZoneID("unassigned")!
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

    /// A committed op.
    package init(seq: Seq, opID: OpID, by: UserID, op: Op, time: UnixTime, name: String? = nil) {
        self.seq = seq
        self.opID = opID
        self.by = by
        self.op = op
        self.time = time
        self.name = name
    }
}
