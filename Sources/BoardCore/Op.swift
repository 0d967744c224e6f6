/// A change to a board. Committed ops are numbered and applied in one order everywhere.
package enum Op: Equatable, Sendable {
    /// Exchange the places of two items, possibly in different zones.
    case swap(a: ItemID, b: ItemID)
    /// Take `item` out and insert it before `before` in `zone`, or at the end when `before` is nil.
    case move(item: ItemID, zone: ZoneID, before: ItemID?)
    /// Set the paint state of `item`.
    case toggle(item: ItemID, on: Bool)

    /// The wire name of the op.
    package var kind: String {
        switch self {
        case .swap: "swap"
        case .move: "move"
        case .toggle: "toggle"
        }
    }

    /// The items the conflict rule looks at: swap a and b, move item and its anchor, toggle item.
    package var involvedItems: [ItemID] {
        switch self {
        case .swap(let a, let b): [a, b]
        case .move(let item, _, let before): before.map { [item, $0] } ?? [item]
        case .toggle(let item, _): [item]
        }
    }
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

    /// A committed op.
    package init(seq: Seq, opID: OpID, by: UserID, op: Op, time: UnixTime) {
        self.seq = seq
        self.opID = opID
        self.by = by
        self.op = op
        self.time = time
    }
}
