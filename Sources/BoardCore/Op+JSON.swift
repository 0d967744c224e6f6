// The one JSON form of ops: a client's op, a broadcast, an archived op and a stored op row all
// carry an op's own members the same way, and are read and written only here.

extension Op {
    /// Writes the op's own members (`a`, `b` / `item`, `zone`, `before` / `item`, `on`) as a broadcast carries them.
    func writeFields(into w: inout JSONWriter) {
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
        }
    }

    /// The op's own members as one JSON object: what the store keeps next to the op's type.
    package func encodedFields() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        writeFields(into: &w)
        w.endObject()
        return w.bytes
    }

    /// Reads the op of wire type `type` (`swap`, `move`, `toggle`) from its members in the object `fields`.
    package init(type: String, fields: JSON) throws(JSON.DecodingError) {
        switch type {
        case "swap":
            self = .swap(a: try fields.itemID("a"), b: try fields.itemID("b"))
        case "move":
            let before = try Self.anchor(in: fields)
            self = .move(item: try fields.itemID("item"), zone: try fields.zoneID("zone"), before: before)
        case "toggle":
            let on = try fields.bool("on")
            self = .toggle(item: try fields.itemID("item"), on: on)
        default:
            throw JSON.DecodingError("\"type\" must be \"swap\", \"move\" or \"toggle\"")
        }
    }

    /// Reads the op a drop's `action` asks for (`mode` is its `type`): a swap of the dragged `item`
    /// `with` another, or a move of it to `zone` `before` an anchor.
    package init(dropping item: ItemID, as mode: DragMode, action: JSON) throws(JSON.DecodingError) {
        switch mode {
        case .swap:
            self = .swap(a: item, b: try action.itemID("with"))
        case .move:
            let before = try Self.anchor(in: action)
            self = .move(item: item, zone: try action.zoneID("zone"), before: before)
        }
    }

    /// A move's `before`: required, an item id or null (append).
    private static func anchor(in object: JSON) throws(JSON.DecodingError) -> ItemID? {
        guard object["before"] != nil else {
            throw JSON.DecodingError("\"before\" is required (an item id, or null to append)")
        }
        return try object.hasValue("before") ? object.itemID("before") : nil
    }
}

extension CommittedOp {
    /// Writes the op as one object, as it is broadcast: `type`, `op`, `by`, `seq` and its fields;
    /// then its `time` when `withTime` (archives; broadcasts leave it out).
    package func encode(into w: inout JSONWriter, withTime: Bool = false) {
        w.beginObject()
        w.write("type", op.kind)
        w.write("op", opID.rawValue)
        w.write("by", by.rawValue)
        w.write("seq", seq)
        op.writeFields(into: &w)
        if withTime { w.write("time", Int(time.milliseconds)) }
        w.endObject()
    }

    /// Reads a committed op from the object it was broadcast or archived as; `time`, which
    /// broadcasts leave out, is read when present and is 0 otherwise.
    package init(json: JSON) throws(JSON.DecodingError) {
        let op = try Op(type: try json.string("type"), fields: json)
        let opID = try json.opID("op")
        let by = try json.read("by", named: nil, mustBe: "a non-empty string") {
            $0.stringValue.flatMap { $0.isEmpty ? nil : $0 }
        }
        let seq = try json.read("seq", named: nil, mustBe: "a positive integer") {
            $0.intValue.flatMap { $0 >= 1 ? $0 : nil }
        }
        var time = UnixTime(milliseconds: 0)
        if json["time"] != nil { time = UnixTime(milliseconds: Int64(try json.int("time"))) }
        self.init(seq: seq, opID: opID, by: UserID(by), op: op, time: time)
    }
}
