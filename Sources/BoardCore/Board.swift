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

    /// An item.
    package init(id: ItemID, label: String, color: String, on: Bool = false) {
        self.id = id
        self.label = label
        self.color = color
        self.on = on
    }
}

/// An ordered list of items: the `grid`, the `tray`.
package struct Zone: Equatable, Sendable {
    /// Its id, unique on the board.
    package var id: ZoneID
    /// The items, in order.
    package var items: [ItemID]

    /// A zone.
    package init(id: ZoneID, items: [ItemID]) {
        self.id = id
        self.items = items
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

    private var itemIndex: [ItemID: Int]
    private var zoneIndex: [ZoneID: Int]

    /// A board. Callers validate (see `Board.validate`) before trusting outside data.
    package init(id: BoardID, title: String, columns: Int, zones: [Zone], items: [Item]) {
        self.id = id
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
    }

    /// The item with this id.
    package func item(_ id: ItemID) -> Item? {
        itemIndex[id].map { items[$0] }
    }

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
        case .toggle(let item, let on):
            guard let i = itemIndex[item] else { return }
            items[i].on = on
        }
    }

    /// Problems that make a board definition unusable, or nil when it is sound.
    package static func validate(title: String, columns: Int, zones: [Zone], items: [Item]) -> String? {
        if title.isEmpty || !Text.isValidLabel(title, maximum: 200) {
            return "title must be 1–200 characters, no control characters"
        }
        if !(1...64).contains(columns) { return "columns must be 1–64" }
        if zones.isEmpty || zones.count > 16 { return "a board has 1–16 zones" }
        if items.count > 1000 { return "a board has at most 1000 items" }
        var zoneIDs = Set<ZoneID>()
        for zone in zones where !zoneIDs.insert(zone.id).inserted { return "duplicate zone id \(zone.id)" }
        var itemIDs = Set<ItemID>()
        for item in items {
            if !itemIDs.insert(item.id).inserted { return "duplicate item id \(item.id)" }
            if !Text.isValidLabel(item.label, maximum: 200) {
                return "label of \(item.id) must be at most 200 characters, no control characters"
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
        if placed.count != itemIDs.count { return "every item must be in exactly one zone" }
        return nil
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
    /// The board every new board id starts from: a 3-column grid of 12 tiles and an empty tray.
    package static func defaultTemplate(id: BoardID) -> Board {
        let palette = [
            ("Red", "#e53935"), ("Orange", "#fb8c00"), ("Yellow", "#fdd835"), ("Lime", "#c0ca33"),
            ("Green", "#43a047"), ("Teal", "#00897b"), ("Cyan", "#00acc1"), ("Blue", "#1e88e5"),
            ("Indigo", "#3949ab"), ("Purple", "#8e24aa"), ("Pink", "#d81b60"), ("Brown", "#6d4c41"),
        ]
        let items = palette.enumerated().map { i, p in
            Item(id: ItemID("t\(i + 1)")!, label: p.0, color: p.1)
        }
        return Board(
            id: id, title: id.rawValue, columns: 3,
            zones: [Zone(id: ZoneID("grid")!, items: items.map(\.id)), Zone(id: ZoneID("tray")!, items: [])],
            items: items)
    }
}
