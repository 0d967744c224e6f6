/// Why the server refused a request. Each case is one `reason` on the wire.
package enum RejectReason: String, Equatable, Sendable, CaseIterable {
    /// An item id that is not on the board.
    case unknownItem = "unknown_item"
    /// A zone id that is not on the board.
    case unknownZone = "unknown_zone"
    /// A tag id that is not on the board.
    case unknownTag = "unknown_tag"
    /// A checklist entry id that is not on its item.
    case unknownCheck = "unknown_check"
    /// A comment id that is not on its item.
    case unknownComment = "unknown_comment"
    /// `base` is ahead of the board's seq.
    case badBase = "bad_base"
    /// `base` is older than the history the server keeps.
    case stale
    /// Another user's drag holds an involved item.
    case held
    /// An op committed after `base` changed what this op is about (see docs/conflicts.md).
    case conflict
    /// The op makes no sense on the current board (anchor elsewhere, move before itself, self-swap).
    case invalid
    /// A hover or drop from someone who does not hold the item.
    case notHolding = "not_holding"
    /// The connection's token allows watching only (`view`).
    case forbidden
    /// A `removeZone` of a zone that still has items.
    case notEmpty = "not_empty"
    /// An op over one of the board's count limits or its size in bytes (`--max-board-bytes`).
    case boardFull = "board_full"
    /// A `dragStart` of an item whose hold by this user (or address) expired a moment ago, or
    /// that is someone else's turn: those refused while it was held go first (`HoldTurns`).
    case cooldown
    /// A `dragStart` while the connections of this client address hold as many items as they may.
    case holdLimit = "hold_limit"
    /// A `restore` to a seq older than the store keeps (`--keep-ops`).
    case compacted
    /// A `dragStart`, `swap`, `move`, `moveMany` or `archive` of an item in the board's archive.
    case archived
}

/// A refusal, sent to the requester only.
package struct Rejection: Equatable, Sendable {
    /// The reason.
    package var reason: RejectReason
    /// The user whose hold or op caused it (`held`, `conflict`), or whose turn it is (`cooldown`).
    package var by: UserID?
    /// The op id of the refused op, when it was an op.
    package var opID: OpID?
    /// The item concerned, for drag requests.
    package var item: ItemID?

    /// A rejection.
    package init(_ reason: RejectReason, by: UserID? = nil, opID: OpID? = nil, item: ItemID? = nil) {
        self.reason = reason
        self.by = by
        self.opID = opID
        self.item = item
    }
}
