// The JSON form of a card and its content: in snapshots (`board.items[]`, `board.tags[]`) and in
// the ops that carry them. Each member is written only when set, so that boards made before
// card content keep their exact JSON.

extension Item {
    /// Writes the item as a snapshot's `items[]` entry.
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.write("id", id.rawValue)
        w.write("label", label)
        w.write("color", color)
        w.write("on", on)
        if let detail { w.write("detail", detail) }
        writeContent(into: &w)
        // Only its count: the texts are read page by page (`GET …/items/{item}/comments`).
        if comments > 0 { w.write("comments", comments) }
        w.endObject()
    }

    /// Writes `description`, `tags`, `assignees`, `due` and `checklist`, each only when set.
    func writeContent(into w: inout JSONWriter) {
        if let description { w.write("description", description) }
        if !tags.isEmpty {
            w.beginArray("tags")
            for tag in tags { w.write(nil, tag.rawValue) }
            w.endArray()
        }
        if !assignees.isEmpty {
            w.beginArray("assignees")
            for person in assignees { person.encode(into: &w) }
            w.endArray()
        }
        if let due { w.write("due", due) }
        if !checklist.isEmpty {
            w.beginArray("checklist")
            for check in checklist { check.encode(into: &w) }
            w.endArray()
        }
    }

    /// Writes the content as an add request carries it: as `writeContent`, the checks without ids.
    func writeRequestContent(into w: inout JSONWriter) {
        var rest = self
        rest.checklist = []
        rest.writeContent(into: &w)
        if !checklist.isEmpty {
            w.beginArray("checklist")
            for check in checklist {
                w.beginObject()
                w.write("text", check.text)
                w.write("done", check.done)
                w.endObject()
            }
            w.endArray()
        }
    }

    /// Reads `description`, `tags`, `assignees`, `due` and `checklist` when present (their bounds
    /// are checked by `Board.validate`, or by the op that carries the item).
    mutating func readContent(from json: JSON, path: String) throws(JSON.DecodingError) {
        if json.hasValue("description") {
            description = try json.string("description", named: "\(path).description")
        }
        if json.hasValue("tags") {
            tags = try json.array("tags", named: "\(path).tags").enumerated().map {
                (i, value) throws(JSON.DecodingError) in try value.id(named: "\(path).tags[\(i)]")
            }
        }
        if json.hasValue("assignees") {
            assignees = try json.array("assignees", named: "\(path).assignees").enumerated().map {
                (i, value) throws(JSON.DecodingError) in try Assignee(json: value, path: "\(path).assignees[\(i)]")
            }
        }
        if json.hasValue("due") { due = try json.dueDate("due", named: "\(path).due") }
        if json.hasValue("checklist") {
            checklist = try json.array("checklist", named: "\(path).checklist").enumerated().map {
                (i, value) throws(JSON.DecodingError) in
                let at = "\(path).checklist[\(i)]"
                return Check(
                    id: try value.id("id", named: "\(at).id"), text: try value.string("text", named: "\(at).text"),
                    done: try value.bool("done", named: "\(at).done"))
            }
        }
    }
}

extension Tag {
    /// Writes the tag as `{id, name, color}` (the id left out when `withID` is false: a request).
    func encode(into w: inout JSONWriter, key: String? = nil, withID: Bool = true) {
        w.beginObject(key)
        if withID { w.write("id", id.rawValue) }
        w.write("name", name)
        w.write("color", color)
        w.endObject()
    }

    /// Reads `{id, name, color}`.
    init(json: JSON, path: String) throws(JSON.DecodingError) {
        self.init(
            id: try json.id("id", named: "\(path).id"), name: try json.string("name", named: "\(path).name"),
            color: try json.string("color", named: "\(path).color"))
    }
}

extension Assignee {
    /// Writes `{member, name}`.
    func encode(into w: inout JSONWriter) {
        w.beginObject()
        w.write("member", member.rawValue)
        w.write("name", name)
        w.endObject()
    }

    /// Reads `{member, name}`, the name a display name (`Text.displayName` leaves it unchanged).
    init(json: JSON, path: String) throws(JSON.DecodingError) {
        let member: MemberID = try json.id("member", named: "\(path).member")
        let name = try json.read("name", named: "\(path).name", mustBe: "a name of 1–64 characters (at most 256 bytes)")
        {
            $0.stringValue.flatMap { Assignee.isValidName($0) ? $0 : nil }
        }
        self.init(member: member, name: name)
    }
}

extension Check {
    /// Writes `{id, text, done}`.
    func encode(into w: inout JSONWriter, key: String? = nil) {
        w.beginObject(key)
        w.write("id", id.rawValue)
        w.write("text", text)
        w.write("done", done)
        w.endObject()
    }
}

extension JSON {
    /// A due date: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MMZ`, a day that exists.
    func dueDate(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> String {
        try read(key, named: name, mustBe: "a date YYYY-MM-DD or YYYY-MM-DDTHH:MMZ (a real calendar date, UTC)") {
            $0.stringValue.flatMap { DueDate.isValid($0) ? $0 : nil }
        }
    }
}
