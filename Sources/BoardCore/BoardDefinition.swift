/// A new board as a client describes it: `{id?, title, columns, zones:[{id, items:[{label, color}]}]}`.
///
/// Item ids are assigned by the server (`t1`, `t2`, … in zone order).
package struct BoardDefinition: Equatable, Sendable {
    /// The requested id, or nil to have one made up.
    package var id: BoardID?
    /// The title.
    package var title: String
    /// Grid columns.
    package var columns: Int
    /// Zones with their items' labels and colors.
    package var zones: [(id: ZoneID, items: [(label: String, color: String)])]

    /// Definitions compare field by field.
    package static func == (a: BoardDefinition, b: BoardDefinition) -> Bool {
        a.id == b.id && a.title == b.title && a.columns == b.columns && a.zones.count == b.zones.count
            && zip(a.zones, b.zones).allSatisfy { x, y in
                x.id == y.id && x.items.map(\.label) == y.items.map(\.label)
                    && x.items.map(\.color) == y.items.map(\.color)
            }
    }

    /// What is wrong with a definition, for a 400 answer.
    package struct Problem: Error, Equatable, Sendable {
        /// The explanation.
        package var message: String
        init(_ message: String) { self.message = message }
    }

    /// Parses and validates a definition, or says what is wrong with it.
    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<BoardDefinition, Problem> {
        let json: JSON
        do { json = try JSON.parse(bytes) } catch {
            return .failure(Problem("body is not JSON: \(error.reason) at byte \(error.offset)"))
        }
        do {
            return .success(try decode(json))
        } catch {
            return .failure(Problem(error.message))
        }
    }

    /// What the 400 answer says a board or zone id must be (its wording predates the shared readers).
    private static let idRule = "1–64 characters of [A-Za-z0-9_-]"

    private static func decode(_ json: JSON) throws(JSON.DecodingError) -> BoardDefinition {
        guard case .object = json else { throw JSON.DecodingError("body must be a JSON object") }
        var id: BoardID?
        if json.hasValue("id") {
            id = try json.read("id", named: "id", mustBe: idRule) { $0.stringValue.flatMap(BoardID.init) }
        }
        let title = try json.string("title", named: "title")
        let columns = try json.int("columns", named: "columns")
        var zones: [(id: ZoneID, items: [(label: String, color: String)])] = []
        for (z, zone) in try json.array("zones", named: "zones").enumerated() {
            let zoneID = try zone.read("id", named: "zones[\(z)].id", mustBe: idRule) {
                $0.stringValue.flatMap(ZoneID.init)
            }
            var items: [(label: String, color: String)] = []
            for (i, item) in try zone.array("items", named: "zones[\(z)].items").enumerated() {
                let name = "zones[\(z)].items[\(i)]"
                let label = try item.string("label", named: "\(name).label")
                items.append((label, try item.string("color", named: "\(name).color")))
            }
            zones.append((zoneID, items))
        }
        let definition = BoardDefinition(id: id, title: title, columns: columns, zones: zones)
        let board = definition.board(id: id ?? BoardID("check")!)
        if let problem = Board.validate(
            title: board.title, columns: board.columns, zones: board.zones, items: board.items)
        {
            throw JSON.DecodingError(problem)
        }
        return definition
    }

    /// The board this definition describes, under `id`.
    package func board(id: BoardID) -> Board {
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
    package static func randomID() -> BoardID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return BoardID("b-" + String((0..<10).map { _ in alphabet.randomElement(using: &generator)! }))!
    }
}
