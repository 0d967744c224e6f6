/// Why an op cannot apply to a board: the one validity check, used by the sequencer for new ops
/// and by the store for archived ones.
package enum OpProblem: Equatable, Sendable, CustomStringConvertible {
    /// An involved item (`a`, `b`, `item`, `before`) is not on the board.
    case unknownItem(ItemID)
    /// A zone the op names is not on the board.
    case unknownZone(ZoneID)
    /// A swap of an item with itself.
    case selfSwap(ItemID)
    /// A move of an item before itself.
    case beforeItself(ItemID)
    /// A move or add before an anchor that is not in the target zone.
    case anchorOutsideZone(anchor: ItemID, zone: ZoneID)
    /// An add of an item whose id is already on the board.
    case duplicateItem(ItemID)
    /// An addZone of a zone whose id is already on the board.
    case duplicateZone(ZoneID)
    /// A tag an op names is not on the board.
    case unknownTag(TagID)
    /// A checklist entry an op names is not on its item.
    case unknownCheck(CheckID)
    /// A comment an op names that is not on its item.
    case unknownComment(CommentID)
    /// An addTag of a tag whose id is already on the board.
    case duplicateTag(TagID)
    /// An addCheck of an entry whose id is already on the board.
    case duplicateCheck(CheckID)
    /// An op over one of the board's count limits (items, zones, tags, a card's tags, assignees
    /// or checks), or over its size in bytes.
    case boardFull
    /// A removeZone of a zone that still has items.
    case zoneNotEmpty(ZoneID)
    /// A removeZone of the board's only zone.
    case lastZone(ZoneID)
    /// An editZone giving columns to a zone that is not a grid.
    case notAGrid(ZoneID)
    /// A swap, move, moveMany or archive of an item that is in the archive.
    case archivedItem(ItemID)
    /// An unarchive of an item that is not in the archive.
    case notArchived(ItemID)

    /// The reject reason the protocol gives for it.
    package var reason: RejectReason {
        switch self {
        case .unknownItem: .unknownItem
        case .unknownZone: .unknownZone
        case .unknownTag: .unknownTag
        case .unknownCheck: .unknownCheck
        case .unknownComment: .unknownComment
        case .boardFull: .boardFull
        case .zoneNotEmpty: .notEmpty
        case .archivedItem: .archived
        case .notArchived: .invalid
        case .selfSwap, .beforeItself, .anchorOutsideZone, .duplicateItem, .duplicateZone, .lastZone, .notAGrid,
            .duplicateTag, .duplicateCheck:
            .invalid
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
        case .duplicateItem(let item): "item \(item) is already on the board"
        case .duplicateZone(let zone): "zone \(zone) is already on the board"
        case .unknownTag(let tag): "unknown tag \(tag)"
        case .unknownCheck(let check): "unknown check \(check)"
        case .unknownComment(let comment): "unknown comment \(comment)"
        case .duplicateTag(let tag): "tag \(tag) is already on the board"
        case .duplicateCheck(let check): "check \(check) is already on the board"
        case .boardFull: "the board has as many items, zones, tags or checks, or as many bytes, as it may"
        case .zoneNotEmpty(let zone): "zone \(zone) still has items"
        case .lastZone(let zone): "zone \(zone) is the board's only zone"
        case .notAGrid(let zone): "zone \(zone) would have columns but is not a grid"
        case .archivedItem(let item): "item \(item) is archived"
        case .notArchived(let item): "item \(item) is not archived"
        }
    }
}

extension Board {
    /// Why `op` cannot apply to this board, or nil when it can. Unknown ids come first (items in
    /// `involvedItems` order, then zones), then the ops that make no sense here.
    package func problem(applying op: Op) -> OpProblem? {
        for item in op.involvedItems where !hasItem(item) { return .unknownItem(item) }
        for zone in op.involvedZones where !hasZone(zone) { return .unknownZone(zone) }
        if let tag = unknownTag(in: op) { return .unknownTag(tag) }
        if let check = unknownCheck(in: op) { return .unknownCheck(check) }
        switch op {
        case .swap(let a, let b):
            if a == b { return .selfSwap(a) }
            if let archived = [a, b].first(where: isArchived) { return .archivedItem(archived) }
        case .move(let item, let zone, let before):
            if isArchived(item) { return .archivedItem(item) }
            if let before {
                if before == item { return .beforeItself(item) }
                if self.zone(zone)?.items.contains(before) != true {
                    return .anchorOutsideZone(anchor: before, zone: zone)
                }
            }
        case .toggle, .edit, .remove, .retitle, .restore, .editTag, .removeTag, .editCheck, .removeCheck:
            break
        case .tag, .assign, .addTag, .addCheck:
            return contentProblem(applying: op)
        case .comment, .editComment, .removeComment:
            return commentProblem(applying: op)
        case .add(let zone, let before, let item):
            if self.item(item.id) != nil { return .duplicateItem(item.id) }
            if let before, self.zone(zone)?.items.contains(before) != true {
                return .anchorOutsideZone(anchor: before, zone: zone)
            }
            if items.count >= BoardLimits.items { return .boardFull }
            return contentProblem(applying: op)
        case .addZone(_, let zone):
            if hasZone(zone.id) { return .duplicateZone(zone.id) }
            if zones.count >= BoardLimits.zones { return .boardFull }
        case .editZone(let zone, let changes):
            if changes.columns != nil, let z = zones.firstIndex(where: { $0.id == zone }),
                (changes.layout ?? effectiveLayout(of: z)) != .grid
            {
                return .notAGrid(zone)
            }
        case .removeZone(let zone):
            if self.zone(zone)?.items.isEmpty != true { return .zoneNotEmpty(zone) }
            if zones.count == 1 { return .lastZone(zone) }
        case .moveMany, .archive, .unarchive:
            return bulkProblem(applying: op)
        }
        return nil
    }
}
