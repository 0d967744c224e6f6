/// The size of a board's JSON snapshot after an op, worked out from its size before without
/// writing the whole board again for the ops that make most of the traffic: a move, swap or
/// toggle and every op about one card cost the bytes of that card, not of the board.
/// (`SnapshotSizeTests` checks it against `encoded().count` after every op of a random run.)
enum SnapshotSize {
    /// The bytes of `board` (whose snapshot takes `bytes`) once `op` is applied; `op` passed
    /// `board.problem(applying:)`.
    static func after(_ op: Op, on board: Board, bytes: Int) -> Int {
        switch op {
        case .swap:
            // The two ids trade places: the same characters, the same commas.
            return bytes
        case .move(let id, let zone, _):
            guard let from = board.location(of: id), let to = board.zone(zone) else { return bytes }
            if board.zones[from.zone].id == zone { return bytes }
            // The id's characters leave one array and enter another; only commas change.
            let left = board.zones[from.zone].items.count >= 2 ? 1 : 0
            let joined = to.items.isEmpty ? 0 : 1
            return bytes - left + joined
        case .toggle(let id, let on):
            // The hottest op: `"on":false` is one byte longer than `"on":true` (Item.encode writes
            // it always), and nothing else changes: no encode of the item per toggle.
            guard let item = board.item(id), item.on != on else { return bytes }
            return on ? bytes - 1 : bytes + 1
        case .edit(let id, _), .tag(let id, _, _), .assign(let id, _, _),
            .addCheck(let id, _, _), .editCheck(let id, _, _), .removeCheck(let id, _):
            guard var item = board.item(id) else { return bytes }
            let before = itemBytes(item)
            item.apply(op)
            return bytes - before + itemBytes(item)
        case .comment(let id, _), .removeComment(let id, _):
            // Only the card's count changes (the texts are not in the snapshot).
            guard var item = board.item(id) else { return bytes }
            let before = itemBytes(item)
            if case .comment = op { item.comments += 1 } else { item.comments = max(0, item.comments - 1) }
            return bytes - before + itemBytes(item)
        case .editComment:
            return bytes
        case .add(let zone, _, let item):
            guard let to = board.zone(zone) else { return bytes }
            let inItems = itemBytes(item) + (board.items.isEmpty ? 0 : 1)
            let inZone = item.id.rawValue.utf8.count + 2 + (to.items.isEmpty ? 0 : 1)
            return bytes + inItems + inZone
        case .remove(let id) where board.isArchived(id):
            // An archived card leaves `items` and the archive (the whole member with its last card).
            guard let item = board.item(id) else { return bytes }
            let inItems = itemBytes(item) + (board.items.count >= 2 ? 1 : 0)
            let inArchive =
                board.archived.count >= 2
                ? id.rawValue.utf8.count + 3 : placementBytes(of: board) - placementBytes(of: board, archive: false)
            return bytes - inItems - inArchive
        case .remove(let id):
            guard let item = board.item(id), let at = board.location(of: id) else { return bytes }
            let inItems = itemBytes(item) + (board.items.count >= 2 ? 1 : 0)
            let inZone = id.rawValue.utf8.count + 2 + (board.zones[at.zone].items.count >= 2 ? 1 : 0)
            return bytes - inItems - inZone
        case .moveMany, .archive, .unarchive:
            // Only ids change places: the zones' and the archive's arrays, measured before and after.
            var after = board
            after.apply(op)
            return bytes - placementBytes(of: board) + placementBytes(of: after)
        case .addZone, .editZone, .removeZone, .retitle, .restore, .addTag, .editTag, .removeTag:
            // Rare ops: the board written again.
            var after = board
            after.apply(op)
            return after.encoded().count
        }
    }

    /// The bytes of the id arrays of every zone and of the archive (with its member name), the
    /// part of a snapshot that the bulk ops change.
    static func placementBytes(of board: Board, archive: Bool = true) -> Int {
        func array(_ ids: [ItemID]) -> Int {
            2 + max(ids.count - 1, 0) + ids.reduce(0) { $0 + $1.rawValue.utf8.count + 2 }
        }
        var total = board.zones.reduce(0) { $0 + array($1.items) }
        if archive && !board.archived.isEmpty { total += array(board.archived) + #","archived":"#.utf8.count }
        return total
    }

    /// The bytes of one item as a snapshot's `items[]` entry.
    static func itemBytes(_ item: Item) -> Int {
        var w = JSONWriter()
        item.encode(into: &w)
        return w.bytes.count
    }
}

extension Op {
    /// True for the ops that only change where cards are or their paint: never refused for size.
    var onlyPlacesOrPaints: Bool {
        switch self {
        case .swap, .move, .toggle, .moveMany, .archive, .unarchive: true
        default: false
        }
    }
}
