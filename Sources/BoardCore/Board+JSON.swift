// The one JSON form of a board, the snapshot `{id, title, columns, zones, items}`: what `welcome`
// and the HTTP API send, what archives and the store keep.

extension Board {
    /// Writes the board as a snapshot object, as a value or as the member `key`. With `stored`
    /// (what the store keeps) it also carries `commentRefs`, who wrote which comment on which
    /// card, which the comment rules need after a restart; what clients get has only counts.
    package func encode(into w: inout JSONWriter, key: String? = nil, stored: Bool = false) {
        w.beginObject(key)
        w.write("id", id.rawValue)
        w.write("title", title)
        w.write("columns", columns)
        if let mode { w.write("mode", mode.rawValue) }
        w.beginArray("zones")
        for zone in zones {
            w.beginObject()
            w.write("id", zone.id.rawValue)
            w.beginArray("items")
            for item in zone.items { w.write(nil, item.rawValue) }
            w.endArray()
            // Written only when set, so boards made before layouts keep their exact JSON.
            if let title = zone.title { w.write("title", title) }
            if let layout = zone.layout { w.write("layout", layout.rawValue) }
            if let columns = zone.columns { w.write("columns", columns) }
            if zone.handle { w.write("handle", true) }
            if let axis = zone.axis { w.write("axis", axis.rawValue) }
            w.endObject()
        }
        w.endArray()
        w.beginArray("items")
        for item in items { item.encode(into: &w) }
        w.endArray()
        // Only when set, so boards made before tags keep their exact JSON.
        if !tags.isEmpty {
            w.beginArray("tags")
            for tag in tags { tag.encode(into: &w) }
            w.endArray()
        }
        if stored && !commentRefs.isEmpty {
            w.beginArray("commentRefs")
            for (id, ref) in sortedCommentRefs {
                w.beginArray()
                w.write(nil, id.rawValue)
                w.write(nil, ref.item.rawValue)
                w.write(nil, ref.member.rawValue)
                w.endArray()
            }
            w.endArray()
        }
        // Only when some item is archived, so boards without an archive keep their exact JSON.
        if !archived.isEmpty {
            w.beginArray("archived")
            for item in archived { w.write(nil, item.rawValue) }
            w.endArray()
        }
        // Only when known (boards made before boards kept it say nothing), and last, so that a
        // board's JSON up to here is what it always was.
        if let template { w.write("template", template.rawValue) }
        w.endObject()
    }

    /// The board as snapshot JSON text, as clients get it (`stored`: as the store keeps it).
    package func encoded(stored: Bool = false) -> [UInt8] {
        var w = JSONWriter()
        encode(into: &w, stored: stored)
        return w.bytes
    }

    /// Reads and validates a snapshot; errors name the wrong member by its path from `path`.
    package init(json: JSON, path: String = "board") throws(JSON.DecodingError) {
        guard case .object = json else { throw JSON.DecodingError("\(path) must be an object") }
        let id: BoardID = try json.id("id", named: "\(path).id")
        let title = try json.string("title", named: "\(path).title")
        let columns = try json.int("columns", named: "\(path).columns")
        let zoneValues = try json.array("zones", named: "\(path).zones")
        let itemValues = try json.array("items", named: "\(path).items")
        var zones: [Zone] = []
        for (i, value) in zoneValues.enumerated() {
            let zone = "\(path).zones[\(i)]"
            let zoneID: ZoneID = try value.id("id", named: "\(zone).id")
            let members = try value.array("items", named: "\(zone).items")
            var ids: [ItemID] = []
            for (j, member) in members.enumerated() {
                ids.append(try member.id(named: "\(zone).items[\(j)]"))
            }
            var decoded = Zone(id: zoneID, items: ids)
            try decoded.readPresentation(from: value, path: zone)
            zones.append(decoded)
        }
        var items: [Item] = []
        for (i, value) in itemValues.enumerated() {
            let item = "\(path).items[\(i)]"
            var decoded = Item(
                id: try value.id("id", named: "\(item).id"),
                label: try value.string("label", named: "\(item).label"),
                color: try value.string("color", named: "\(item).color"),
                on: try value.bool("on", named: "\(item).on"),
                detail: value.hasValue("detail") ? try value.string("detail", named: "\(item).detail") : nil)
            try decoded.readContent(from: value, path: item)
            if value.hasValue("comments") {
                decoded.comments = try value.read("comments", named: "\(item).comments", mustBe: "a count") {
                    $0.intValue.flatMap { (0...BoardLimits.commentsPerItem).contains($0) ? $0 : nil }
                }
            }
            items.append(decoded)
        }
        var tags: [Tag] = []
        if json.hasValue("tags") {
            for (i, value) in try json.array("tags", named: "\(path).tags").enumerated() {
                tags.append(try Tag(json: value, path: "\(path).tags[\(i)]"))
            }
        }
        var archived: [ItemID] = []
        if json.hasValue("archived") {
            for (i, value) in try json.array("archived", named: "\(path).archived").enumerated() {
                archived.append(try value.id(named: "\(path).archived[\(i)]"))
            }
        }
        if let problem = Board.validate(
            title: title, columns: columns, zones: zones, items: items, tags: tags, archived: archived)
        {
            throw JSON.DecodingError("\(path): \(problem)")
        }
        self.init(id: id, title: title, columns: columns, zones: zones, items: items, tags: tags, archived: archived)
        mode = try Self.readMode(from: json, path: path)
        if json.hasValue("template") {
            template = try json.read("template", named: "\(path).template", mustBe: Template.rule) {
                $0.stringValue.flatMap(Template.init)
            }
        }
        if json.hasValue("commentRefs") {
            let refs = try json.array("commentRefs", named: "\(path).commentRefs")
            guard refs.count <= BoardLimits.comments else {
                throw JSON.DecodingError("\(path).commentRefs: a board keeps at most \(BoardLimits.comments) comments")
            }
            for (i, ref) in refs.enumerated() {
                let at = "\(path).commentRefs[\(i)]"
                let parts = try ref.array(nil, named: at)
                guard parts.count == 3 else { throw JSON.DecodingError("\(at) must be [comment, item, member]") }
                let id: CommentID = try parts[0].id(named: "\(at)[0]")
                guard commentRefs[id] == nil else { throw JSON.DecodingError("\(at): comment \(id) twice") }
                commentRefs[id] = CommentRef(
                    item: try parts[1].id(named: "\(at)[1]"), member: try parts[2].id(named: "\(at)[2]"))
            }
            recountComments()
            if items.contains(where: { $0.comments > BoardLimits.commentsPerItem }) {
                throw JSON.DecodingError("\(path): a card has more than \(BoardLimits.commentsPerItem) comments")
            }
        }
    }

    /// The optional `mode` hint of a snapshot or definition.
    static func readMode(from json: JSON, path: String?) throws(JSON.DecodingError) -> Mode? {
        guard json.hasValue("mode") else { return nil }
        let name = path.map { "\($0).mode" } ?? "mode"
        return try json.read("mode", named: name, mustBe: "\"swap\", \"move\" or \"paint\"") {
            $0.stringValue.flatMap(Mode.init)
        }
    }
}

extension Zone {
    /// Reads the optional presentation members (`title`, `layout`, `columns`, `handle`, `axis`),
    /// shared by snapshots and board definitions.
    mutating func readPresentation(from json: JSON, path: String) throws(JSON.DecodingError) {
        if json.hasValue("title") { title = try json.string("title", named: "\(path).title") }
        if json.hasValue("layout") {
            layout = try json.read("layout", named: "\(path).layout", mustBe: "\"grid\", \"row\" or \"list\"") {
                $0.stringValue.flatMap(Layout.init)
            }
        }
        if json.hasValue("columns") { columns = try json.int("columns", named: "\(path).columns") }
        if json.hasValue("handle") { handle = try json.bool("handle", named: "\(path).handle") }
        if json.hasValue("axis") {
            axis = try json.read("axis", named: "\(path).axis", mustBe: "\"x\" or \"y\"") {
                $0.stringValue.flatMap(Axis.init)
            }
        }
    }
}
