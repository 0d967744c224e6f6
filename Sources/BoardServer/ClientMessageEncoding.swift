internal import BoardCore

// A stand-in until BoardCore has the one `ClientMessage` encoder (the hub's cluster work adds it):
// forwarding sends the messages the hub hands over (`Action.forward`) to the owner as the client
// would have, so they must parse back to the same messages there. Tests/BoardServerTests checks
// the round trip for every message type.

extension ClientMessage {
    /// The message as a client sends it: JSON text that `ClientMessage.parse` reads back as `self`.
    func forwardedJSON() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        switch self {
        case .hello(let board, let name, let since, let token):
            w.write("type", "hello")
            w.write("board", board.rawValue)
            w.write("name", name)
            if let since { w.write("since", since) }
            if let token { w.write("token", token) }
        case .op(let request):
            w.write("type", request.op.kind)
            w.write("op", request.opID.rawValue)
            w.write("base", request.base)
            switch request.op {
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
        case .dragStart(let item):
            w.write("type", "dragStart")
            w.write("item", item.rawValue)
        case .hover(let item, let over, let zone, let mode, let t):
            w.write("type", "hover")
            w.write("item", item.rawValue)
            w.write("over", over?.rawValue)
            if let zone { w.write("zone", zone.rawValue) }
            if let mode { w.write("mode", mode.rawValue) }
            if let t { w.write("t", json: .number(t)) }
        case .drop(let item, let action):
            w.write("type", "drop")
            w.write("item", item.rawValue)
            // A drop's action is a swap with the dropped item or a move of it (that is all
            // `parse` makes); anything else has no drop form and goes as a plain drop.
            if let action {
                switch action.op {
                case .swap(_, let other):
                    w.write("op", action.opID.rawValue)
                    w.write("base", action.base)
                    w.beginObject("action")
                    w.write("type", "swap")
                    w.write("with", other.rawValue)
                    w.endObject()
                case .move(_, let zone, let before):
                    w.write("op", action.opID.rawValue)
                    w.write("base", action.base)
                    w.beginObject("action")
                    w.write("type", "move")
                    w.write("zone", zone.rawValue)
                    w.write("before", before?.rawValue)
                    w.endObject()
                case .toggle:
                    break
                }
            }
        case .ping:
            w.write("type", "ping")
        }
        w.endObject()
        return w.bytes
    }
}
