/// A tile on a board.
package struct Item: Equatable, Sendable {
    /// Its id, unique on the board.
    package var id: ItemID
    /// The text shown on the tile.
    package var label: String
    /// A CSS color.
    package var color: String
    /// The paint state, flipped by `toggle`.
    package var on: Bool
    /// A second, smaller line of text (a playlist row's artist, a card's note), or nil.
    package var detail: String?
    /// What the card is about, as Markdown source, or nil.
    package var description: String?
    /// The board tags it carries, in the order they were added.
    package var tags: [TagID] = []
    /// Who does it, in the order they were assigned.
    package var assignees: [Assignee] = []
    /// When it is due (`DueDate`), or nil.
    package var due: String?
    /// Its checklist, in order.
    package var checklist: [Check] = []
    /// How many comments it has (their texts are in the store: `Comment.swift`).
    package var comments = 0

    /// An item.
    package init(
        id: ItemID, label: String, color: String, on: Bool = false, detail: String? = nil, description: String? = nil,
        tags: [TagID] = [], assignees: [Assignee] = [], due: String? = nil, checklist: [Check] = []
    ) {
        self.id = id
        self.label = label
        self.color = color
        self.on = on
        self.detail = detail
        self.description = description
        self.tags = tags
        self.assignees = assignees
        self.due = due
        self.checklist = checklist
    }
}

/// An ordered list of items: the `grid`, the `tray`, a strip, a list, a column.
package struct Zone: Equatable, Sendable {
    /// How a zone lays its items out.
    package enum Layout: String, Equatable, Sendable, CaseIterable {
        /// Rows of `columns` items.
        case grid
        /// One horizontal strip.
        case row
        /// One vertical list.
        case list
    }

    /// The one axis a lifted item may move along.
    package enum Axis: String, Equatable, Sendable, CaseIterable {
        case x, y
    }

    /// Its id, unique on the board.
    package var id: ZoneID
    /// The items, in order.
    package var items: [ItemID]
    /// A heading shown above it (a kanban column's name), or nil.
    package var title: String?
    /// Its layout; nil for boards made before layouts: the first zone is then a grid of the
    /// board's `columns`, the others rows.
    package var layout: Layout?
    /// The columns of a `grid` (nil: the board's `columns`).
    package var columns: Int?
    /// Drags start only from an item's handle.
    package var handle: Bool
    /// A lifted item moves only along this axis, or freely when nil.
    package var axis: Axis?

    /// A zone.
    package init(
        id: ZoneID, items: [ItemID], title: String? = nil, layout: Layout? = nil, columns: Int? = nil,
        handle: Bool = false, axis: Axis? = nil
    ) {
        self.id = id
        self.items = items
        self.title = title
        self.layout = layout
        self.columns = columns
        self.handle = handle
        self.axis = axis
    }
}

/// The state of one board: its zones and items. Every item is in exactly one zone.
package struct Board: Equatable, Sendable {
    /// The board id.
    package var id: BoardID
    /// A human title.
    package var title: String
    /// How many columns the grid zone is laid out in.
    package var columns: Int
    /// The zones, in display order.
    package var zones: [Zone]
    /// The items, in creation order.
    package var items: [Item]
    /// The drag mode the board is made for (`paint` for a paint board), a hint for clients; nil: none.
    package var mode: Mode?
    /// The template the board was made from, or nil (made from a definition, or before boards
    /// remembered it). Set when the board is made; no op changes it, a restore neither.
    package var template: Template?

    /// The tags cards can carry, in the order they were made.
    package var tags: [Tag] = []
    /// Who wrote each comment on which card: what the comment rules need. Only the stored
    /// snapshot carries it (`encoded()`); welcome gives each item its `comments` count.
    package var commentRefs: [CommentID: CommentRef] = [:]

    /// The items taken off the zones into the board's archive (`archive`), in the order they
    /// went there; they stay in `items` with their content. Every item is in one zone or here.
    package private(set) var archived: [ItemID] = [] {
        didSet { archivedSet = Set(archived) }
    }
    private var archivedSet: Set<ItemID> = []

    /// A board's drag mode hint.
    package enum Mode: String, Equatable, Sendable, CaseIterable {
        case swap, move, paint
    }

    private var itemIndex: [ItemID: Int]
    private var zoneIndex: [ZoneID: Int]

    /// A board. Callers validate (see `Board.validate`) before trusting outside data.
    package init(
        id: BoardID, title: String, columns: Int, zones: [Zone], items: [Item], tags: [Tag] = [],
        archived: [ItemID] = []
    ) {
        self.id = id
        self.tags = tags
        self.archived = archived
        archivedSet = Set(archived)
        self.title = title
        self.columns = columns
        self.zones = zones
        self.items = items
        itemIndex = Dictionary(items.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        zoneIndex = Dictionary(zones.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// Boards compare by content.
    package static func == (a: Board, b: Board) -> Bool {
        a.id == b.id && a.title == b.title && a.columns == b.columns && a.zones == b.zones && a.items == b.items
            && a.mode == b.mode && a.template == b.template && a.tags == b.tags && a.commentRefs == b.commentRefs
            && a.archived == b.archived
    }

    /// The item with this id.
    package func item(_ id: ItemID) -> Item? {
        itemIndex[id].map { items[$0] }
    }

    /// True when the board has this item (in a zone or archived): `item(id) != nil` without
    /// copying the item out.
    package func hasItem(_ id: ItemID) -> Bool { itemIndex[id] != nil }

    /// True when `item` is in the board's archive.
    package func isArchived(_ item: ItemID) -> Bool { archivedSet.contains(item) }

    /// True when the board has this zone.
    package func hasZone(_ id: ZoneID) -> Bool { zoneIndex[id] != nil }

    /// The zone holding `item`, and its index there. Linear in the zone sizes; boards are small.
    package func location(of item: ItemID) -> (zone: Int, index: Int)? {
        for (z, zone) in zones.enumerated() {
            if let i = zone.items.firstIndex(of: item) { return (z, i) }
        }
        return nil
    }

    /// The zone with this id.
    package func zone(_ id: ZoneID) -> Zone? {
        zoneIndex[id].map { zones[$0] }
    }

    /// Applies an op that `problem(applying:)` finds nothing wrong with (others may be applied in part).
    package mutating func apply(_ op: Op) {
        switch op {
        case .swap(let a, let b):
            guard let la = location(of: a), let lb = location(of: b) else { return }
            zones[la.zone].items[la.index] = b
            zones[lb.zone].items[lb.index] = a
        case .move(let item, let zone, let before):
            guard let from = location(of: item), let target = zoneIndex[zone] else { return }
            zones[from.zone].items.remove(at: from.index)
            if let before, let at = zones[target].items.firstIndex(of: before) {
                zones[target].items.insert(item, at: at)
            } else {
                zones[target].items.append(item)
            }
        case .add(let zone, let before, let item):
            guard itemIndex[item.id] == nil, let target = zoneIndex[zone] else { return }
            itemIndex[item.id] = items.count
            var item = item
            // A card back under an id that had comments (an import's) shows their count.
            item.comments = commentRefs.isEmpty ? 0 : commentRefs.values.reduce(0) { $0 + ($1.item == item.id ? 1 : 0) }
            items.append(item)
            if let before, let at = zones[target].items.firstIndex(of: before) {
                zones[target].items.insert(item.id, at: at)
            } else {
                zones[target].items.append(item.id)
            }
        case .toggle(let item, _), .edit(let item, _), .tag(let item, _, _), .assign(let item, _, _),
            .addCheck(let item, _, _), .editCheck(let item, _, _), .removeCheck(let item, _):
            // The item bound here, not `involvedItems.first`: that builds an array, for every op.
            guard let i = itemIndex[item] else { return }
            items[i].apply(op)
        case .addTag(let tag, let tagged):
            guard !tags.contains(where: { $0.id == tag.id }) else { return }
            tags.append(tag)
            for item in tagged {
                if let i = itemIndex[item], !items[i].tags.contains(tag.id) { items[i].tags.append(tag.id) }
            }
        case .editTag(let tag, let changes):
            guard let t = tags.firstIndex(where: { $0.id == tag }) else { return }
            if let name = changes.name { tags[t].name = name }
            if let color = changes.color { tags[t].color = color }
        case .removeTag(let tag):
            tags.removeAll { $0.id == tag }
            for i in items.indices where items[i].tags.contains(tag) { items[i].tags.removeAll { $0 == tag } }
        case .remove(let item):
            guard let i = itemIndex[item] else { return }
            if let at = location(of: item) { zones[at.zone].items.remove(at: at.index) }
            if archivedSet.contains(item) { archived.removeAll { $0 == item } }
            items.remove(at: i)
            reindexItems()
        case .addZone(let before, let zone):
            guard zoneIndex[zone.id] == nil else { return }
            materializeLayouts()
            if let before, let at = zoneIndex[before] {
                zones.insert(zone, at: at)
            } else {
                zones.append(zone)
            }
            reindexZones()
        case .editZone(let zone, let changes):
            guard let z = zoneIndex[zone] else { return }
            materializeLayouts()
            if let title = changes.title { zones[z].title = title }
            if let layout = changes.layout {
                zones[z].layout = layout
                if layout != .grid { zones[z].columns = nil }
            }
            if let columns = changes.columns { zones[z].columns = columns }
        case .removeZone(let zone):
            guard let z = zoneIndex[zone], zones[z].items.isEmpty, zones.count > 1 else { return }
            materializeLayouts()
            zones.remove(at: z)
            reindexZones()
        case .retitle(let title):
            self.title = title
        case .moveMany, .archive, .unarchive:
            applyBulk(op)
        case .restore(_, let board):
            // The board as it was: every item, zone and the title (the id stays this board's).
            // Comments are not board state: every one stays, and the cards back show theirs.
            guard var board else { return }
            board.id = id
            board.template = template
            board.commentRefs = commentRefs
            board.recountComments()
            self = board
        case .comment, .removeComment:
            applyComment(op)
        case .editComment:
            break
        }
    }

    /// Gives every zone without a layout the one it is drawn with, before an op that adds,
    /// removes or edits a zone changes which zone is first.
    private mutating func materializeLayouts() {
        for z in zones.indices where zones[z].layout == nil { zones[z].layout = effectiveLayout(of: z) }
    }

    /// Changes the comment count of `item`, if it is on the board.
    mutating func adjustComments(of item: ItemID, by delta: Int) {
        guard let i = itemIndex[item] else { return }
        items[i].comments = max(0, items[i].comments + delta)
    }

    /// Takes `ids` out of their zones (and, with `archive`, out of the archive too): one pass
    /// over the zones, not a search per item.
    mutating func takeOut(_ ids: [ItemID], fromArchive: Bool = false) {
        let taken = Set(ids)
        for z in zones.indices where zones[z].items.contains(where: taken.contains) {
            zones[z].items.removeAll { taken.contains($0) }
        }
        if fromArchive { archived.removeAll { taken.contains($0) } }
    }

    /// Puts `ids`, in order, before `before` in `zone` (at its end when nil or not there).
    mutating func put(_ ids: [ItemID], zone: ZoneID, before: ItemID?) {
        guard let target = zoneIndex[zone] else { return }
        if let before, let at = zones[target].items.firstIndex(of: before) {
            zones[target].items.insert(contentsOf: ids, at: at)
        } else {
            zones[target].items.append(contentsOf: ids)
        }
    }

    /// Adds `ids` to the end of the archive.
    mutating func addToArchive(_ ids: [ItemID]) { archived.append(contentsOf: ids) }

    private mutating func reindexItems() {
        itemIndex = Dictionary(items.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    private mutating func reindexZones() {
        zoneIndex = Dictionary(zones.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The zone layout as clients draw it: a zone without one (boards made before layouts) is a
    /// grid when first, a row otherwise.
    package func effectiveLayout(of zone: Int) -> Zone.Layout {
        zones[zone].layout ?? (zone == 0 ? .grid : .row)
    }

    /// Problems that make a board definition unusable, or nil when it is sound.
    package static func validate(
        title: String, columns: Int, zones: [Zone], items: [Item], tags: [Tag] = [], archived: [ItemID] = []
    ) -> String? {
        if !BoardLimits.title.allows(title) { return "title must be \(BoardLimits.title.rule)" }
        if !(1...BoardLimits.columns).contains(columns) { return "columns must be 1–\(BoardLimits.columns)" }
        if zones.isEmpty || zones.count > BoardLimits.zones { return "a board has 1–\(BoardLimits.zones) zones" }
        if items.count > BoardLimits.items { return "a board has at most \(BoardLimits.items) items" }
        var zoneIDs = Set<ZoneID>()
        for zone in zones {
            if !zoneIDs.insert(zone.id).inserted { return "duplicate zone id \(zone.id)" }
            if let title = zone.title, !BoardLimits.zoneTitle.allows(title) {
                return "title of zone \(zone.id) must be \(BoardLimits.zoneTitle.rule)"
            }
            if let columns = zone.columns {
                if zone.layout != .grid { return "zone \(zone.id) has columns but is not a grid" }
                if !(1...BoardLimits.columns).contains(columns) {
                    return "columns of zone \(zone.id) must be 1–\(BoardLimits.columns)"
                }
            }
        }
        var itemIDs = Set<ItemID>()
        for item in items {
            if !itemIDs.insert(item.id).inserted { return "duplicate item id \(item.id)" }
            if !BoardLimits.label.allows(item.label) {
                return "label of \(item.id) must be \(BoardLimits.label.rule)"
            }
            if let detail = item.detail, !BoardLimits.detail.allows(detail) {
                return "detail of \(item.id) must be \(BoardLimits.detail.rule)"
            }
            if !Board.isValidColor(item.color) { return "color of \(item.id) is not a CSS color" }
        }
        var placed = Set<ItemID>()
        for zone in zones {
            for id in zone.items {
                if !itemIDs.contains(id) { return "zone \(zone.id) lists unknown item \(id)" }
                if !placed.insert(id).inserted { return "item \(id) is in more than one place" }
            }
        }
        for id in archived {
            if !itemIDs.contains(id) { return "archived lists unknown item \(id)" }
            if !placed.insert(id).inserted { return "item \(id) is in more than one place" }
        }
        if placed.count != itemIDs.count { return "every item must be in exactly one zone or archived" }
        return validateContent(items: items, tags: tags)
    }

    /// Colors are limited to a conservative CSS syntax so that they are safe to put in a style.
    package static func isValidColor(_ s: String) -> Bool {
        guard (1...64).contains(s.utf8.count) else { return false }
        return s.utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "#"), UInt8(ascii: "("), UInt8(ascii: ")"),
                UInt8(ascii: ","), UInt8(ascii: "."), UInt8(ascii: "%"), UInt8(ascii: " "), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }
}

extension Board {
    /// The board every new board id starts from unless the server says otherwise: `colors`.
    package static func defaultTemplate(id: BoardID) -> Board { Template.colors.board(id: id) }
}
