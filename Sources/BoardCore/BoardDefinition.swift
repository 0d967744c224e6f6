/// A new board as a client describes it: `{id?, title, columns, zones:[{id, items:[{label, color}]}]}`.
///
/// Item ids are assigned by the server (`t1`, `t2`, … in zone order).
public struct BoardDefinition: Equatable, Sendable {
    /// The requested id, or nil to have one made up.
    public var id: BoardID?
    /// The title.
    public var title: String
    /// Grid columns.
    public var columns: Int
    /// Zones with their items' labels and colors.
    public var zones: [(id: ZoneID, items: [(label: String, color: String)])]

    /// Definitions compare field by field.
    public static func == (a: BoardDefinition, b: BoardDefinition) -> Bool {
        a.id == b.id && a.title == b.title && a.columns == b.columns && a.zones.count == b.zones.count
            && zip(a.zones, b.zones).allSatisfy { x, y in
                x.id == y.id && x.items.map(\.label) == y.items.map(\.label)
                    && x.items.map(\.color) == y.items.map(\.color)
            }
    }

    /// What is wrong with a definition, for a 400 answer.
    public struct Problem: Error, Equatable, Sendable {
        /// The explanation.
        public var message: String
        init(_ message: String) { self.message = message }
    }

    /// Parses and validates a definition, or says what is wrong with it.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<BoardDefinition, Problem> {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch {
            return .failure(Problem("body is not JSON: \(error.reason) at byte \(error.offset)"))
        }
        guard case .object = json else { return .failure(Problem("body must be a JSON object")) }
        var id: BoardID?
        if let raw = json["id"], !raw.isNull {
            guard let s = raw.stringValue, let parsed = BoardID(s) else {
                return .failure(Problem("id must be 1–64 characters of [A-Za-z0-9_-]"))
            }
            id = parsed
        }
        guard let title = json["title"]?.stringValue else { return .failure(Problem("title must be a string")) }
        guard let columns = json["columns"]?.intValue else { return .failure(Problem("columns must be an integer")) }
        guard let zoneList = json["zones"]?.arrayValue else { return .failure(Problem("zones must be an array")) }
        var zones: [(id: ZoneID, items: [(label: String, color: String)])] = []
        for (z, zone) in zoneList.enumerated() {
            guard let zid = zone["id"]?.stringValue.flatMap(ZoneID.init) else {
                return .failure(Problem("zones[\(z)].id must be 1–64 characters of [A-Za-z0-9_-]"))
            }
            guard let itemList = zone["items"]?.arrayValue else {
                return .failure(Problem("zones[\(z)].items must be an array"))
            }
            var items: [(label: String, color: String)] = []
            for (i, item) in itemList.enumerated() {
                guard let label = item["label"]?.stringValue else {
                    return .failure(Problem("zones[\(z)].items[\(i)].label must be a string"))
                }
                guard let color = item["color"]?.stringValue else {
                    return .failure(Problem("zones[\(z)].items[\(i)].color must be a string"))
                }
                items.append((label, color))
            }
            zones.append((zid, items))
        }
        let definition = BoardDefinition(id: id, title: title, columns: columns, zones: zones)
        let board = definition.board(id: id ?? BoardID("check")!)
        if let problem = Board.validate(
            title: board.title, columns: board.columns, zones: board.zones, items: board.items)
        {
            return .failure(Problem(problem))
        }
        return .success(definition)
    }

    /// The board this definition describes, under `id`.
    public func board(id: BoardID) -> Board {
        var items: [Item] = []
        var boardZones: [Zone] = []
        for zone in zones {
            var ids: [ItemID] = []
            for item in zone.items {
                let itemID = ItemID("t\(items.count + 1)")!
                items.append(Item(id: itemID, label: item.label, color: item.color))
                ids.append(itemID)
            }
            boardZones.append(Zone(id: zone.id, items: ids))
        }
        return Board(id: id, title: title, columns: columns, zones: boardZones, items: items)
    }

    /// A fresh random board id, `b-` and ten lowercase letters or digits.
    public static func randomID() -> BoardID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return BoardID("b-" + String((0..<10).map { _ in alphabet.randomElement(using: &generator)! }))!
    }
}
