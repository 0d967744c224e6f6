import BoardCore

/// Boards and ops as the JSON text the store keeps: a board snapshot is the `board` object of a
/// `welcome`; an op row keeps its type and its own fields as an object.
enum BoardSnapshot {
    /// The board as snapshot JSON.
    static func encode(_ board: Board) -> [UInt8] {
        var w = JSONWriter()
        ServerMessage.write(board, key: nil, into: &w)
        return w.bytes
    }

    /// Parses and validates snapshot JSON; errors say which member is wrong, starting at `path`.
    static func decode(_ json: JSON, path: String = "board") throws(StoreError) -> Board {
        func fail(_ what: String) -> StoreError { StoreError("\(path)\(what)") }
        guard case .object = json else { throw fail(" must be an object") }
        guard let id = json["id"]?.stringValue.flatMap(BoardID.init) else {
            throw fail(".id must be an id of 1–64 characters [A-Za-z0-9_-]")
        }
        guard let title = json["title"]?.stringValue else { throw fail(".title must be a string") }
        guard let columns = json["columns"]?.intValue else { throw fail(".columns must be an integer") }
        guard let zoneValues = json["zones"]?.arrayValue else { throw fail(".zones must be an array") }
        guard let itemValues = json["items"]?.arrayValue else { throw fail(".items must be an array") }
        var zones: [Zone] = []
        for (i, value) in zoneValues.enumerated() {
            guard let zoneID = value["id"]?.stringValue.flatMap(ZoneID.init) else {
                throw fail(".zones[\(i)].id must be an id of 1–64 characters [A-Za-z0-9_-]")
            }
            guard let members = value["items"]?.arrayValue else { throw fail(".zones[\(i)].items must be an array") }
            var ids: [ItemID] = []
            for (j, member) in members.enumerated() {
                guard let itemID = member.stringValue.flatMap(ItemID.init) else {
                    throw fail(".zones[\(i)].items[\(j)] must be an item id")
                }
                ids.append(itemID)
            }
            zones.append(Zone(id: zoneID, items: ids))
        }
        var items: [Item] = []
        for (i, value) in itemValues.enumerated() {
            guard let itemID = value["id"]?.stringValue.flatMap(ItemID.init) else {
                throw fail(".items[\(i)].id must be an id of 1–64 characters [A-Za-z0-9_-]")
            }
            guard let label = value["label"]?.stringValue else { throw fail(".items[\(i)].label must be a string") }
            guard let color = value["color"]?.stringValue else { throw fail(".items[\(i)].color must be a string") }
            guard let on = value["on"]?.boolValue else { throw fail(".items[\(i)].on must be a boolean") }
            items.append(Item(id: itemID, label: label, color: color, on: on))
        }
        if let problem = Board.validate(title: title, columns: columns, zones: zones, items: items) {
            throw fail(": \(problem)")
        }
        return Board(id: id, title: title, columns: columns, zones: zones, items: items)
    }

    /// An op's own fields as the JSON object kept in the `fields` column.
    static func encodeFields(of op: Op) -> String {
        var w = JSONWriter()
        w.beginObject()
        op.writeFields(into: &w)
        w.endObject()
        return w.string
    }

    /// Why `op` cannot be applied to `board`, or nil when it can.
    static func problem(applying op: Op, to board: Board) -> String? {
        for item in op.involvedItems where board.item(item) == nil { return "unknown item \(item)" }
        if case .move(let item, let zone, let before) = op {
            if !board.hasZone(zone) { return "unknown zone \(zone)" }
            if before == item { return "moves \(item) before itself" }
        }
        if case .swap(let a, let b) = op, a == b { return "swaps \(a) with itself" }
        return nil
    }
}
