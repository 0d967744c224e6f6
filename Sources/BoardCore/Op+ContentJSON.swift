// The JSON form of the ops about card content: tags, assignees and checklists (docs/protocol.md,
// "Card content"). A broadcast carries each op's members as the client gave them, plus the ids
// the server chose.

extension Op {
    /// Writes the members of a tag, assign, addTag, editTag, removeTag, addCheck, editCheck or
    /// removeCheck; with `assigned` false, as a client sends them (no server-chosen ids).
    func writeContentFields(into w: inout JSONWriter, assigned: Bool) {
        switch self {
        case .tag(let item, let add, let remove):
            w.write("item", item.rawValue)
            w.beginArray("add")
            for tag in add { w.write(nil, tag.rawValue) }
            w.endArray()
            w.beginArray("remove")
            for tag in remove { w.write(nil, tag.rawValue) }
            w.endArray()
        case .assign(let item, let add, let remove):
            w.write("item", item.rawValue)
            w.beginArray("add")
            for person in add { person.encode(into: &w) }
            w.endArray()
            w.beginArray("remove")
            for member in remove { w.write(nil, member.rawValue) }
            w.endArray()
        case .addTag(let tag, let items):
            tag.encode(into: &w, key: "tag", withID: assigned)
            if !items.isEmpty {
                w.beginArray("items")
                for item in items { w.write(nil, item.rawValue) }
                w.endArray()
            }
        case .editTag(let tag, let changes):
            w.write("tag", tag.rawValue)
            if let name = changes.name { w.write("name", name) }
            if let color = changes.color { w.write("color", color) }
        case .removeTag(let tag):
            w.write("tag", tag.rawValue)
        case .addCheck(let item, let before, let check):
            w.write("item", item.rawValue)
            w.write("before", before?.rawValue)
            if assigned {
                check.encode(into: &w, key: "check")
            } else {
                w.write("text", check.text)
            }
        case .editCheck(let item, let check, let changes):
            w.write("item", item.rawValue)
            w.write("check", check.rawValue)
            if let text = changes.text { w.write("text", text) }
            if let done = changes.done { w.write("done", done) }
        case .removeCheck(let item, let check):
            w.write("item", item.rawValue)
            w.write("check", check.rawValue)
        default:
            break
        }
    }

    /// The most ids one `tag` or `assign` list may name: more could never fit on a card.
    static let maximumListed = 64

    /// Reads an op about card content of kind `kind`. With `assigned` false (a request) an
    /// addTag carries `tag:{name, color}` and an addCheck `text`; otherwise (a broadcast, an
    /// archive, a stored row) `tag:{id, name, color}` and `check:{id, text, done}`.
    init(contentType kind: Kind, fields: JSON, assigned: Bool) throws(JSON.DecodingError) {
        switch kind {
        case .tag:
            let item: ItemID = try fields.id("item")
            let add = try Self.list("add", in: fields) { (value, name) throws(JSON.DecodingError) -> TagID in
                try value.id(named: name)
            }
            let remove = try Self.list("remove", in: fields) { (value, name) throws(JSON.DecodingError) -> TagID in
                try value.id(named: name)
            }
            try Self.checkLists(add, remove, of: "tag")
            self = .tag(item: item, add: add, remove: remove)
        case .assign:
            let item: ItemID = try fields.id("item")
            let add = try Self.list("add", in: fields) { (value, name) throws(JSON.DecodingError) in
                try Assignee(json: value, path: name)
            }
            let remove = try Self.list("remove", in: fields) { (value, name) throws(JSON.DecodingError) -> MemberID in
                try value.id(named: name)
            }
            try Self.checkLists(add.map(\.member), remove, of: "member")
            self = .assign(item: item, add: add, remove: remove)
        case .addTag:
            guard let object = fields["tag"], case .object = object else {
                throw JSON.DecodingError("\"tag\" must be an object {name, color}")
            }
            let id: TagID = assigned ? try object.id("id", named: "\"tag.id\"") : .unassigned
            let name = try Self.text(
                "name", in: object, named: "\"tag.name\"", limit: BoardLimits.tagName, input: !assigned)
            let color = try Self.color("color", in: object, named: "\"tag.color\"")
            // Optional: cards to put the new tag on at once (the undo of a removeTag), each once.
            let items = try Self.list("items", in: fields, maximum: BoardLimits.items) {
                (value, name) throws(JSON.DecodingError) -> ItemID in try value.id(named: name)
            }
            guard Set(items).count == items.count else {
                throw JSON.DecodingError("\"items\" may name an item only once")
            }
            self = .addTag(tag: Tag(id: id, name: name, color: color), items: items)
        case .editTag:
            let tag: TagID = try fields.id("tag")
            let changes = TagEdit(
                name: try Self.edited("name", in: fields, limit: BoardLimits.tagName, input: !assigned),
                color: try Self.editedColor("color", in: fields))
            guard !changes.isEmpty else { throw JSON.DecodingError("an editTag needs \"name\" or \"color\"") }
            self = .editTag(tag: tag, changes: changes)
        case .removeTag:
            self = .removeTag(tag: try fields.id("tag"))
        case .addCheck:
            let item: ItemID = try fields.id("item")
            guard fields["before"] != nil else {
                throw JSON.DecodingError("\"before\" is required (a check id, or null for last)")
            }
            let before: CheckID? = try fields.hasValue("before") ? fields.id("before") : nil
            let check: Check
            if assigned {
                guard let object = fields["check"], case .object = object else {
                    throw JSON.DecodingError("\"check\" must be an object {id, text, done}")
                }
                check = Check(
                    id: try object.id("id", named: "\"check.id\""),
                    text: try Self.text(
                        "text", in: object, named: "\"check.text\"", limit: BoardLimits.checkText, input: !assigned),
                    done: try object.bool("done", named: "\"check.done\""))
            } else {
                check = Check(
                    id: .unassigned,
                    text: try Self.text("text", in: fields, limit: BoardLimits.checkText, input: !assigned))
            }
            self = .addCheck(item: item, before: before, check: check)
        case .editCheck:
            let item: ItemID = try fields.id("item")
            let check: CheckID = try fields.id("check")
            let changes = CheckEdit(
                text: try Self.edited("text", in: fields, limit: BoardLimits.checkText, input: !assigned),
                done: fields["done"] == nil ? nil : try fields.bool("done"))
            guard !changes.isEmpty else { throw JSON.DecodingError("an editCheck needs \"text\" or \"done\"") }
            self = .editCheck(item: item, check: check, changes: changes)
        case .removeCheck:
            self = .removeCheck(item: try fields.id("item"), check: try fields.id("check"))
        default:
            // Not content: `init(type:fields:assigned:)` reads the others itself.
            throw JSON.DecodingError("\"\(kind.rawValue)\" is not an op about card content")
        }
    }

    /// Reads the content an add request's `item` may carry: `description`, `due`, `tags`,
    /// `assignees` and `checklist:[{text, done?}]`, each text within its bound (the counts per
    /// item are `Board.contentProblem`'s: over one is `board_full`). Check ids are the server's.
    static func readRequestContent(into item: inout Item, from object: JSON) throws(JSON.DecodingError) {
        if object.hasValue("description") {
            item.description = try text(
                "description", in: object, named: "\"item.description\"", limit: BoardLimits.description, input: true)
        }
        if object.hasValue("due") { item.due = try object.dueDate("due", named: "\"item.due\"") }
        item.tags = try list("tags", in: object) { (value, name) throws(JSON.DecodingError) in
            try value.id(named: "\"item.\(name.dropFirst())")
        }
        item.assignees = try list("assignees", in: object) { (value, name) throws(JSON.DecodingError) in
            try Assignee(json: value, path: "\"item.\(name.dropFirst())")
        }
        guard Set(item.tags).count == item.tags.count else {
            throw JSON.DecodingError("\"item.tags\" may name a tag only once")
        }
        guard Set(item.assignees.map(\.member)).count == item.assignees.count else {
            throw JSON.DecodingError("\"item.assignees\" may name a member only once")
        }
        item.checklist = try list("checklist", in: object, maximum: 2 * BoardLimits.checksPerItem) {
            (value, name) throws(JSON.DecodingError) in
            let at = "\"item.\(name.dropFirst().dropLast())"
            guard case .object = value else { throw JSON.DecodingError("\(at)\" must be an object {text, done?}") }
            let words = try Self.text(
                "text", in: value, named: "\(at).text\"", limit: BoardLimits.checkText, input: true)
            let done = value.hasValue("done") ? try value.bool("done", named: "\(at).done\"") : false
            return Check(id: .unassigned, text: words, done: done)
        }
    }

    /// An optional array member of at most `maximum` values (absent or null: empty).
    private static func list<Value>(
        _ key: String, in fields: JSON, maximum: Int = maximumListed,
        _ read: (JSON, String) throws(JSON.DecodingError) -> Value
    ) throws(JSON.DecodingError) -> [Value] {
        guard fields.hasValue(key) else { return [] }
        let values = try fields.array(key)
        guard values.count <= maximum else {
            throw JSON.DecodingError("\"\(key)\" must have at most \(maximum) entries")
        }
        var result: [Value] = []
        for (i, value) in values.enumerated() { result.append(try read(value, "\"\(key)[\(i)]\"")) }
        return result
    }

    /// A tag or assign names something, and nothing twice.
    private static func checkLists<ID: Hashable>(_ add: [ID], _ remove: [ID], of what: String)
        throws(JSON.DecodingError)
    {
        guard !add.isEmpty || !remove.isEmpty else {
            throw JSON.DecodingError("\"add\" or \"remove\" must name at least one \(what)")
        }
        guard Set(add + remove).count == add.count + remove.count else {
            throw JSON.DecodingError("a \(what) may be named only once in \"add\" and \"remove\"")
        }
    }
}
