// The one JSON form of ops: a client's op, a broadcast, an archived op and a stored op row all
// carry an op's own members the same way, and are read and written only here.

extension Op {
    /// Writes the op's own members as a broadcast carries them (`a`, `b` / `item`, `zone`,
    /// `before` / …); with `assigned` false, as a client sends them: an add's item and an
    /// addZone's zone without their ids.
    func writeFields(into w: inout JSONWriter, assigned: Bool = true) {
        switch self {
        case .swap(let a, let b):
            w.write("a", a.rawValue)
            w.write("b", b.rawValue)
        case .move(let item, let zone, let before):
            w.write("item", item.rawValue)
            w.write("zone", zone.rawValue)
            w.write("before", before?.rawValue)
        case .toggle(let item, let on):
            w.write("item", item.rawValue)
            w.write("on", on)
        case .add(let zone, let before, let item):
            w.write("zone", zone.rawValue)
            w.write("before", before?.rawValue)
            w.beginObject("item")
            if assigned { w.write("id", item.id.rawValue) }
            w.write("label", item.label)
            w.write("color", item.color)
            if let detail = item.detail { w.write("detail", detail) }
            if assigned { item.writeContent(into: &w) } else { item.writeRequestContent(into: &w) }
            // A request names `on` only to add an item that is on (the undo of a remove).
            if assigned || item.on { w.write("on", item.on) }
            w.endObject()
        case .edit(let item, let changes):
            w.write("item", item.rawValue)
            if let label = changes.label { w.write("label", label) }
            if let color = changes.color { w.write("color", color) }
            if let detail = changes.detail { w.write("detail", detail) }
            if let description = changes.description { w.write("description", description) }
            if let due = changes.due { w.write("due", due) }
        case .tag, .assign, .addTag, .editTag, .removeTag, .addCheck, .editCheck, .removeCheck:
            writeContentFields(into: &w, assigned: assigned)
        case .comment, .editComment, .removeComment:
            writeCommentFields(into: &w, assigned: assigned)
        case .moveMany, .archive, .unarchive:
            writeBulkFields(into: &w)
        case .remove(let item):
            w.write("item", item.rawValue)
        case .addZone(let before, let zone):
            w.write("before", before?.rawValue)
            w.beginObject("zone")
            if assigned { w.write("id", zone.id.rawValue) }
            w.write("title", zone.title)
            if let layout = zone.layout { w.write("layout", layout.rawValue) }
            if let columns = zone.columns { w.write("columns", columns) }
            if zone.handle { w.write("handle", true) }
            if let axis = zone.axis { w.write("axis", axis.rawValue) }
            w.endObject()
        case .editZone(let zone, let changes):
            w.write("zone", zone.rawValue)
            if let title = changes.title { w.write("title", title) }
            if let layout = changes.layout { w.write("layout", layout.rawValue) }
            if let columns = changes.columns { w.write("columns", columns) }
        case .removeZone(let zone):
            w.write("zone", zone.rawValue)
        case .retitle(let title):
            w.write("title", title)
        case .restore(let to, let board):
            w.write("to", to)
            if let board { board.encode(into: &w, key: "board") }
        }
    }

    /// The op's own members as one JSON object: what the store keeps next to the op's type.
    /// `member` (its author's, issue 32) rides along in the same object, so that stores made
    /// before it need no new column; no op has a member of that name.
    package func encodedFields(member: MemberID? = nil) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        writeFields(into: &w)
        if let member { w.write("member", member.rawValue) }
        w.endObject()
        return w.bytes
    }

    /// Reads the op of wire type `type` (one of `Op.kinds`) from its members in the object
    /// `fields`. With `assigned` false (a client's request) an add's item and an addZone's zone
    /// carry no id and get `unassigned`; otherwise (a broadcast, an archive, a stored row) their
    /// ids are read. Every text is checked against `BoardLimits`.
    package init(type: String, fields: JSON, assigned: Bool = true) throws(JSON.DecodingError) {
        guard let kind = Kind(named: type) else {
            throw JSON.DecodingError("\"type\" must be one of \(Op.kinds.map { "\"\($0)\"" }.joined(separator: ", "))")
        }
        try self.init(kind: kind, fields: fields, assigned: assigned)
    }

    /// Reads an op of `kind` from its members in the object `fields`, as `init(type:fields:assigned:)`.
    package init(kind: Kind, fields: JSON, assigned: Bool = true) throws(JSON.DecodingError) {
        switch kind {
        case .swap:
            self = .swap(a: try fields.id("a"), b: try fields.id("b"))
        case .move:
            let before = try Self.anchor(in: fields)
            self = .move(item: try fields.id("item"), zone: try fields.id("zone"), before: before)
        case .toggle:
            let on = try fields.bool("on")
            self = .toggle(item: try fields.id("item"), on: on)
        case .add:
            let zone: ZoneID = try fields.id("zone")
            let before = try Self.anchor(in: fields)
            guard let object = fields["item"], case .object = object else {
                throw JSON.DecodingError("\"item\" must be an object {label, color?, detail?, on?}")
            }
            let id: ItemID = assigned ? try object.id("id", named: "\"item.id\"") : .unassigned
            let label = try Self.text(
                "label", in: object, named: "\"item.label\"", limit: BoardLimits.label, input: !assigned)
            var color = BoardLimits.defaultColor
            if object.hasValue("color") { color = try Self.color("color", in: object, named: "\"item.color\"") }
            var detail: String?
            if object.hasValue("detail") {
                detail = try Self.text(
                    "detail", in: object, named: "\"item.detail\"", limit: BoardLimits.detail, input: !assigned)
            }
            // Optional, false when left out: an item comes back on when the undo of its remove
            // adds it again.
            let on = object.hasValue("on") ? try object.bool("on", named: "\"item.on\"") : false
            var item = Item(id: id, label: label, color: color, on: on, detail: detail)
            // A committed add carries what the card held when it was added, read so that a store's
            // row and an archive keep it; a request may carry it too (the undo of a remove brings
            // the card back whole), checked as the ops that change it check it, its checks' ids
            // left to the server.
            if assigned {
                try item.readContent(from: object, path: "item")
            } else {
                try Self.readRequestContent(into: &item, from: object)
            }
            self = .add(zone: zone, before: before, item: item)
        case .edit:
            let item: ItemID = try fields.id("item")
            var changes = ItemEdit()
            changes.label = try Self.edited("label", in: fields, limit: BoardLimits.label, input: !assigned)
            changes.color = try Self.editedColor("color", in: fields)
            if fields["detail"] != nil {
                changes.detail = .some(
                    fields.hasValue("detail")
                        ? try Self.text("detail", in: fields, limit: BoardLimits.detail, input: !assigned) : nil)
            }
            if fields["description"] != nil {
                changes.description = .some(
                    fields.hasValue("description")
                        ? try Self.text("description", in: fields, limit: BoardLimits.description, input: !assigned)
                        : nil)
            }
            if fields["due"] != nil {
                changes.due = .some(fields.hasValue("due") ? try fields.dueDate("due") : nil)
            }
            guard !changes.isEmpty else {
                throw JSON.DecodingError(
                    "an edit needs at least one of \"label\", \"color\", \"detail\", \"description\", \"due\"")
            }
            self = .edit(item: item, changes: changes)
        case .remove:
            self = .remove(item: try fields.id("item"))
        case .addZone:
            guard fields["before"] != nil else {
                throw JSON.DecodingError("\"before\" is required (a zone id, or null for last)")
            }
            let before: ZoneID? = try fields.hasValue("before") ? fields.id("before") : nil
            guard let object = fields["zone"], case .object = object else {
                throw JSON.DecodingError("\"zone\" must be an object {title, layout?, columns?, handle?, axis?}")
            }
            let id: ZoneID = assigned ? try object.id("id", named: "\"zone.id\"") : .unassigned
            let title = try Self.text(
                "title", in: object, named: "\"zone.title\"", limit: BoardLimits.zoneTitle, input: !assigned)
            var zone = Zone(id: id, items: [], title: title, layout: .list)
            try zone.readPresentation(from: object, path: "zone")
            zone.title = title
            if let columns = zone.columns {
                guard zone.layout == .grid else {
                    throw JSON.DecodingError("\"zone.columns\" is only for a zone whose layout is \"grid\"")
                }
                guard (1...BoardLimits.columns).contains(columns) else {
                    throw JSON.DecodingError("\"zone.columns\" must be 1–\(BoardLimits.columns)")
                }
            }
            self = .addZone(before: before, zone: zone)
        case .editZone:
            let zone: ZoneID = try fields.id("zone")
            var changes = ZoneEdit()
            changes.title = try Self.edited("title", in: fields, limit: BoardLimits.zoneTitle, input: !assigned)
            if fields["layout"] != nil {
                changes.layout = try fields.read("layout", named: nil, mustBe: "\"grid\", \"row\" or \"list\"") {
                    $0.stringValue.flatMap(Zone.Layout.init)
                }
            }
            if fields["columns"] != nil {
                let columns = try fields.read("columns", named: nil, mustBe: "an integer 1–\(BoardLimits.columns)") {
                    $0.intValue.flatMap { (1...BoardLimits.columns).contains($0) ? $0 : nil }
                }
                if let layout = changes.layout, layout != .grid {
                    throw JSON.DecodingError("\"columns\" is only for a zone whose layout is \"grid\"")
                }
                changes.columns = columns
            }
            guard !changes.isEmpty else {
                throw JSON.DecodingError("an editZone needs at least one of \"title\", \"layout\", \"columns\"")
            }
            self = .editZone(zone: zone, changes: changes)
        case .removeZone:
            self = .removeZone(zone: try fields.id("zone"))
        case .retitle:
            self = .retitle(title: try Self.text("title", in: fields, limit: BoardLimits.title, input: !assigned))
        case .restore:
            let to = try fields.seq("to")
            // A client names only the seq; the board comes from the store (and what a client
            // might send as `board` is ignored).
            guard assigned else {
                self = .restore(to: to, board: nil)
                return
            }
            guard let board = fields["board"] else { throw JSON.DecodingError("\"board\" is required") }
            self = .restore(to: to, board: try Board(json: board, path: "board"))
        case .tag, .assign, .addTag, .editTag, .removeTag, .addCheck, .editCheck, .removeCheck:
            self = try Self(contentType: kind, fields: fields, assigned: assigned)
        case .comment, .editComment, .removeComment:
            self = try Self(commentType: kind, fields: fields, assigned: assigned)
        case .moveMany, .archive, .unarchive:
            self = try Self(bulkType: kind, fields: fields)
        }
    }

    /// A text member within `limit`.
    static func text(
        _ key: String, in object: JSON, named name: String? = nil, limit: TextLimit, input: Bool
    ) throws(JSON.DecodingError) -> String {
        // A client's text must show something (`TextLimit.accepts`); one already committed (a
        // broadcast, a stored row) is read as it was accepted then.
        if input {
            return try object.read(key, named: name, mustBe: "a string of \(limit.inputRule)") {
                $0.stringValue.flatMap { limit.accepts($0) ? $0 : nil }
            }
        }
        return try object.read(key, named: name, mustBe: "a string of \(limit.rule)") {
            $0.stringValue.flatMap { limit.allows($0) ? $0 : nil }
        }
    }

    /// `text` for a member of an edit: nil when the member is absent (the edit leaves it as it is).
    static func edited(_ key: String, in object: JSON, limit: TextLimit, input: Bool) throws(JSON.DecodingError)
        -> String?
    {
        object[key] == nil ? nil : try text(key, in: object, limit: limit, input: input)
    }

    /// `color` for a member of an edit: nil when the member is absent.
    static func editedColor(_ key: String, in object: JSON) throws(JSON.DecodingError) -> String? {
        object[key] == nil ? nil : try color(key, in: object)
    }

    /// A color member: the conservative CSS syntax `Board.isValidColor` allows.
    static func color(_ key: String, in object: JSON, named name: String? = nil) throws(JSON.DecodingError)
        -> String
    {
        try object.read(key, named: name, mustBe: "a CSS color of 1–64 characters [A-Za-z0-9#(),.% -]") {
            $0.stringValue.flatMap { Board.isValidColor($0) ? $0 : nil }
        }
    }

    /// Reads the op a drop's `action` asks for (`mode` is its `type`): a swap of the dragged `item`
    /// `with` another, or a move of it to `zone` `before` an anchor.
    package init(dropping item: ItemID, as mode: DragMode, action: JSON) throws(JSON.DecodingError) {
        switch mode {
        case .swap:
            self = .swap(a: item, b: try action.id("with"))
        case .move:
            let before = try Self.anchor(in: action)
            self = .move(item: item, zone: try action.id("zone"), before: before)
        }
    }

    /// A move's `before`: required, an item id or null (append).
    private static func anchor(in object: JSON) throws(JSON.DecodingError) -> ItemID? {
        guard object["before"] != nil else {
            throw JSON.DecodingError("\"before\" is required (an item id, or null to append)")
        }
        return try object.hasValue("before") ? object.id("before") : nil
    }
}

extension CommittedOp {
    /// Writes the op as one object, as it is broadcast: `type`, `op`, `by`, `seq` and its fields;
    /// then its `time` and sender's `name` (when known) when `withTime` (archives; broadcasts
    /// leave them out).
    package func encode(into w: inout JSONWriter, withTime: Bool = false) {
        w.beginObject()
        w.write("type", op.kind)
        w.write("op", opID.rawValue)
        w.write("by", by.rawValue)
        if let member { w.write("member", member.rawValue) }
        w.write("seq", seq)
        op.writeFields(into: &w)
        if withTime {
            w.write("time", Int(time.milliseconds))
            if let name { w.write(Self.senderNameKey(of: op), name) }
        }
        w.endObject()
    }

    /// The member an archive keeps the sender's name in: `name`, but `byName` for an op that has
    /// a `name` of its own (`editTag`).
    private static func senderNameKey(of op: Op) -> String {
        if case .editTag = op { return "byName" }
        return "name"
    }

    /// Reads a committed op from the object it was broadcast or archived as; `time` and `name`,
    /// which broadcasts leave out, are read when present (0 and nil otherwise).
    package init(json: JSON) throws(JSON.DecodingError) {
        let op = try Op(type: try json.string("type"), fields: json)
        let opID: OpID = try json.id("op")
        let by = try json.read("by", named: nil, mustBe: "a non-empty string") {
            $0.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        }
        let seq = try json.read("seq", named: nil, mustBe: "a positive integer") {
            $0.intValue.flatMap { $0 >= 1 ? $0 : nil }
        }
        var time = UnixTime(milliseconds: 0)
        if json["time"] != nil { time = UnixTime(milliseconds: Int64(try json.int("time"))) }
        var name: String?
        let nameKey = Self.senderNameKey(of: op)
        if json.hasValue(nameKey) {
            name = try json.read(nameKey, named: nil, mustBe: "a name of 1–64 characters") {
                $0.stringValue.flatMap { (try? Text.displayName($0).get()) == $0 ? $0 : nil }
            }
        }
        let member: MemberID? = try json.hasValue("member") ? json.id("member") : nil
        self.init(seq: seq, opID: opID, by: UserID(by), op: op, time: time, name: name, member: member)
    }
}

extension CommittedOp {
    /// Writes the op as a line of a board's history: `{seq, by:{id, name}, time, op}`, `op` as it
    /// was broadcast but a restore without its board (a history lists changes; a preview reads
    /// the board with `?at=`), `name` null when not known.
    package func encodeHistoryEntry(into w: inout JSONWriter) {
        w.beginObject()
        w.write("seq", seq)
        w.beginObject("by")
        w.write("id", by.rawValue)
        w.write("name", name)
        if let member { w.write("member", member.rawValue) }
        w.endObject()
        w.write("time", Int(time.milliseconds))
        w.beginObject("op")
        w.write("type", op.kind)
        w.write("op", opID.rawValue)
        w.write("by", by.rawValue)
        if let member { w.write("member", member.rawValue) }
        w.write("seq", seq)
        if case .restore(let to, _) = op {
            w.write("to", to)
        } else {
            op.writeFields(into: &w)
        }
        w.endObject()
        w.endObject()
    }
}
