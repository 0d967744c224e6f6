/// Why an op cannot apply to a board: the one validity check, used by the sequencer for new ops
/// and by the store for archived ones.
package enum OpProblem: Equatable, Sendable, CustomStringConvertible {
    /// An involved item (`a`, `b`, `item`, `before`) is not on the board.
    case unknownItem(ItemID)
    /// The move's target zone is not on the board.
    case unknownZone(ZoneID)
    /// A swap of an item with itself.
    case selfSwap(ItemID)
    /// A move of an item before itself.
    case beforeItself(ItemID)
    /// A move before an anchor that is not in the target zone.
    case anchorOutsideZone(anchor: ItemID, zone: ZoneID)

    /// The reject reason the protocol gives for it.
    package var reason: RejectReason {
        switch self {
        case .unknownItem: .unknownItem
        case .unknownZone: .unknownZone
        case .selfSwap, .beforeItself, .anchorOutsideZone: .invalid
        }
    }

    /// What is wrong, for people.
    package var description: String {
        switch self {
        case .unknownItem(let item): "unknown item \(item)"
        case .unknownZone(let zone): "unknown zone \(zone)"
        case .selfSwap(let item): "swaps \(item) with itself"
        case .beforeItself(let item): "moves \(item) before itself"
        case .anchorOutsideZone(let anchor, let zone): "anchor \(anchor) is not in zone \(zone)"
        }
    }
}

extension Board {
    /// Why `op` cannot apply to this board, or nil when it can. Unknown ids come first (items in
    /// `involvedItems` order, then the zone), then the ops that make no sense here.
    package func problem(applying op: Op) -> OpProblem? {
        for item in op.involvedItems where self.item(item) == nil { return .unknownItem(item) }
        switch op {
        case .swap(let a, let b):
            if a == b { return .selfSwap(a) }
        case .move(let item, let zone, let before):
            guard let target = self.zone(zone) else { return .unknownZone(zone) }
            if let before {
                if before == item { return .beforeItself(item) }
                if !target.items.contains(before) { return .anchorOutsideZone(anchor: before, zone: zone) }
            }
        case .toggle:
            break
        }
        return nil
    }
}
