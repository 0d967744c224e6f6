extension Op {
    /// Writes the op's own members (`a`, `b` / `item`, `zone`, `before` / `item`, `on`) as a broadcast carries them.
    public func writeFields(into w: inout JSONWriter) {
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

    /// The op of wire type `type` whose members are in the object `fields`; nil when they do not make an op.
    public init?(type: String, fields: JSON) {
        func item(_ key: String) -> ItemID? { fields[key]?.stringValue.flatMap(ItemID.init) }
        switch type {
        case "swap":
            guard let a = item("a"), let b = item("b") else { return nil }
            self = .swap(a: a, b: b)
        case "move":
            guard let moved = item("item"), let zone = fields["zone"]?.stringValue.flatMap(ZoneID.init),
                let beforeValue = fields["before"]
            else { return nil }
            var before: ItemID? = nil
            if !beforeValue.isNull {
                guard let anchor = item("before") else { return nil }
                before = anchor
            }
            self = .move(item: moved, zone: zone, before: before)
        case "toggle":
            guard let target = item("item"), let on = fields["on"]?.boolValue else { return nil }
            self = .toggle(item: target, on: on)
        default:
            return nil
        }
    }
}

extension CommittedOp {
    /// A committed op read back from the object it was broadcast as (`type`, `op`, `by`, `seq` and its
    /// fields); `time`, which broadcasts leave out, is read when present and is 0 otherwise.
    public init?(json: JSON) {
        guard let type = json["type"]?.stringValue, let op = Op(type: type, fields: json),
            let opID = json["op"]?.stringValue.flatMap(OpID.init),
            let by = json["by"]?.stringValue, !by.isEmpty,
            let seq = json["seq"]?.intValue, seq >= 1
        else { return nil }
        var time = UnixTime(milliseconds: 0)
        if let value = json["time"] {
            guard let t = value.intValue else { return nil }
            time = UnixTime(milliseconds: Int64(t))
        }
        self.init(seq: seq, opID: opID, by: UserID(by), op: op, time: time)
    }
}
