/// A new board as a client describes it: `{id?, title, columns?, zones:[{id, items:[{label,
/// color, detail?}], title?, layout?, columns?, handle?, axis?}]}`, or `{id?, template, title?}`.
///
/// Item ids are assigned by the server (`t1`, `t2`, … in zone order).
package struct BoardDefinition: Equatable, Sendable {
    /// An item before it has an id.
    package struct ItemSpec: Equatable, Sendable {
        /// Its label.
        package var label: String
        /// Its CSS color.
        package var color: String
        /// Its second line, if any.
        package var detail: String?
        /// An item spec.
        package init(_ label: String, _ color: String, detail: String? = nil) {
            self.label = label
            self.color = color
            self.detail = detail
        }
    }

    /// A zone before its items have ids: the zone's presentation (its `items` empty) and the items.
    package struct ZoneSpec: Equatable, Sendable {
        /// The zone, without items.
        package var zone: Zone
        /// Its items, in order.
        package var items: [ItemSpec]
        /// A zone spec.
        package init(_ zone: Zone, _ items: [ItemSpec]) {
            self.zone = zone
            self.items = items
        }
    }

    /// The requested id, or nil to have one made up.
    package var id: BoardID?
    /// The title.
    package var title: String
    /// The board's grid columns (for zones without a layout of their own).
    package var columns: Int
    /// Zones with their items.
    package var zones: [ZoneSpec]
    /// The drag mode hint.
    package var mode: Board.Mode?
    /// The template it is, or nil for a board described zone by zone.
    package var template: Template?

    /// A definition.
    package init(
        id: BoardID?, title: String, columns: Int, zones: [ZoneSpec], mode: Board.Mode? = nil,
        template: Template? = nil
    ) {
        self.id = id
        self.title = title
        self.columns = columns
        self.zones = zones
        self.mode = mode
        self.template = template
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
        var definition: BoardDefinition
        if json.hasValue("template") {
            let template = try json.read("template", named: "template", mustBe: Template.rule) {
                $0.stringValue.flatMap(Template.init)
            }
            definition = template.definition(title: json.hasValue("title") ? try json.string("title") : nil)
            definition.id = id
        } else {
            let title = try json.string("title", named: "title")
            var zones: [ZoneSpec] = []
            for (z, zone) in try json.array("zones", named: "zones").enumerated() {
                let zoneID = try zone.read("id", named: "zones[\(z)].id", mustBe: idRule) {
                    $0.stringValue.flatMap(ZoneID.init)
                }
                var presentation = Zone(id: zoneID, items: [])
                try presentation.readPresentation(from: zone, path: "zones[\(z)]")
                var items: [ItemSpec] = []
                for (i, item) in try zone.array("items", named: "zones[\(z)].items").enumerated() {
                    let name = "zones[\(z)].items[\(i)]"
                    let label = try item.string("label", named: "\(name).label")
                    let color = try item.string("color", named: "\(name).color")
                    let detail = item.hasValue("detail") ? try item.string("detail", named: "\(name).detail") : nil
                    items.append(ItemSpec(label, color, detail: detail))
                }
                zones.append(ZoneSpec(presentation, items))
            }
            // Without board-level columns, those of the first grid zone (or 1).
            let fallback = zones.lazy.compactMap(\.zone.columns).first ?? 1
            let columns = json.hasValue("columns") ? try json.int("columns", named: "columns") : fallback
            definition = BoardDefinition(
                id: id, title: title, columns: columns, zones: zones, mode: try Board.readMode(from: json, path: nil))
        }
        let board = definition.board(id: id ?? BoardID("check")!)
        if let problem = Board.validate(
            title: board.title, columns: board.columns, zones: board.zones, items: board.items)
        {
            throw JSON.DecodingError(problem)
        }
        if let problem = Self.invisibleText(in: board) { throw JSON.DecodingError(problem) }
        return definition
    }

    /// The first text of `board` with nothing visible (`TextLimit.accepts`), as a problem; or nil.
    /// A new board's texts must show something; a stored one is read as it was accepted.
    static func invisibleText(in board: Board) -> String? {
        if !BoardLimits.title.accepts(board.title) { return "title must be \(BoardLimits.title.inputRule)" }
        for zone in board.zones {
            if let title = zone.title, !BoardLimits.zoneTitle.accepts(title) {
                return "title of zone \(zone.id) must be \(BoardLimits.zoneTitle.inputRule)"
            }
        }
        for item in board.items {
            if !BoardLimits.label.accepts(item.label) {
                return "label of \(item.id) must be \(BoardLimits.label.inputRule)"
            }
            if let detail = item.detail, !BoardLimits.detail.accepts(detail) {
                return "detail of \(item.id) must be \(BoardLimits.detail.inputRule)"
            }
        }
        return nil
    }

    /// The board this definition describes, under `id`.
    package func board(id: BoardID) -> Board {
        var items: [Item] = []
        var boardZones: [Zone] = []
        for spec in zones {
            var zone = spec.zone
            zone.items = []
            for item in spec.items {
                let itemID = ItemID("t\(items.count + 1)")!
                items.append(Item(id: itemID, label: item.label, color: item.color, detail: item.detail))
                zone.items.append(itemID)
            }
            boardZones.append(zone)
        }
        var board = Board(id: id, title: title, columns: columns, zones: boardZones, items: items)
        board.mode = mode
        board.template = template
        return board
    }

    /// A fresh random board id, `b-` and ten lowercase letters or digits.
    package static func randomID() -> BoardID {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return BoardID("b-" + String((0..<10).map { _ in alphabet.randomElement(using: &generator)! }))!
    }
}
