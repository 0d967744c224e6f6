/// A message from a client, validated.
package enum ClientMessage: Equatable, Sendable {
    /// Join a board; must be first.
    case hello(board: BoardID, name: String, since: Seq?, token: String?, member: MemberID? = nil)
    /// An op: a swap, move, toggle, add, edit, remove, addZone, editZone, removeZone, retitle or restore.
    case op(OpRequest)
    /// Lift an item, or a group of them (issue 36: `with` the others, after the lead `item`).
    case dragStart(item: ItemID, with: [ItemID] = [])
    /// The held item is over `over` (nil: empty space) in `zone`; `mode` says what a drop there would do.
    case hover(item: ItemID, over: ItemID?, zone: ZoneID?, mode: DragMode?, t: Double? = nil)
    /// Release the held item, committing `action` if given.
    case drop(item: ItemID, action: OpRequest?)
    /// A keep-alive; answered with `pong`.
    case ping
    /// A fresh token for the session's board (or `*`), before the current one expires; answered
    /// with `auth` (its role and expiry), or `error unauthorized` when it is not valid.
    case auth(token: String)
}

/// A client mistake that is answered with an `error` message (the connection stays open).
package struct ProtocolError: Error, Equatable, Sendable {
    /// The wire code.
    package enum Code: String, Sendable, CaseIterable {
        /// Not a JSON text.
        case badJSON = "bad_json"
        /// JSON, but not a valid message.
        case badMessage = "bad_message"
        /// A `type` the server does not know.
        case unknownType = "unknown_type"
        /// Something other than `hello` before joining.
        case notJoined = "not_joined"
        /// A second `hello` on one connection.
        case alreadyJoined = "already_joined"
        /// `hello` for a board that does not exist when boards are not created on demand.
        case unknownBoard = "unknown_board"
        /// The server cannot serve the request right now (the store failed, or it is full).
        case unavailable
        /// Over a rate or count limit; the message was not acted on.
        case rateLimited = "rate_limited"
        /// The board has as many users as it may.
        case boardFull = "board_full"
        /// `hello` or `auth` without a valid token for the board, or a session's token expired,
        /// when the server requires tokens.
        case unauthorized
    }

    /// The wire code.
    package var code: Code
    /// A human explanation.
    package var message: String
    /// The op id of the offending message, when it had a readable one.
    package var opID: String?

    /// An error.
    package init(_ code: Code, _ message: String, opID: String? = nil) {
        self.code = code
        self.message = message
        self.opID = opID
    }
}

extension ClientMessage {

    /// Parses and validates one client frame.
    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<ClientMessage, ProtocolError> {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            return .failure(ProtocolError(.badJSON, "invalid JSON at byte \(error.offset): \(error.reason)"))
        }
        do {
            return .success(try decode(json))
        } catch {
            return .failure(error)
        }
    }

    static func decode(_ json: JSON) throws(ProtocolError) -> ClientMessage {
        guard case .object = json else { throw ProtocolError(.badMessage, "a message must be a JSON object") }
        guard let type = json["type"]?.stringValue else {
            throw ProtocolError(.badMessage, "a message needs a string field \"type\"")
        }
        // The op id is echoed so the client can match the error to its op, but only within the
        // op-id byte bound: what the server says back about a frame must not grow with it.
        let opID = json["op"]?.stringValue.flatMap { $0.utf8.count <= Text.maximumOpIDBytes ? $0 : nil }
        let message: ClientMessage?
        do {
            message = try decode(type, members: json)
        } catch {
            throw ProtocolError(.badMessage, error.message, opID: opID)
        }
        guard let message else {
            let shown = String(String.UnicodeScalarView(type.unicodeScalars.prefix(64)))
            throw ProtocolError(.unknownType, "unknown message type \"\(shown)\"", opID: opID)
        }
        return message
    }

    /// The message of type `type` from the members of `json`, or nil when the type is unknown.
    private static func decode(_ type: String, members json: JSON) throws(JSON.DecodingError) -> ClientMessage? {
        if let kind = Op.Kind(named: type) {
            // Every op the same way, so each new one is parsed where the others are.
            let (opID, base) = try header(json)
            return .op(OpRequest(opID: opID, base: base, op: try Op(kind: kind, fields: json, assigned: false)))
        }
        switch type {
        case "hello":
            let board: BoardID = try json.id("board")
            let name: String
            switch Text.displayName(try json.string("name")) {
            case .success(let n): name = n
            case .failure(.control): throw JSON.DecodingError("\"name\" must not contain control characters")
            case .failure(.empty), .failure(.tooLong):
                throw JSON.DecodingError(
                    "\"name\" must be 1–\(Text.maximumNameScalars) characters (at most \(Text.maximumNameBytes) bytes)")
            }
            let since = try json.hasValue("since") ? json.seq("since") : nil
            let token = try json.hasValue("token") ? self.token(in: json) : nil
            let member: MemberID? = try json.hasValue("member") ? json.id("member") : nil
            return .hello(board: board, name: name, since: since, token: token, member: member)
        case "dragStart":
            // A group: `items` (1–200 distinct ids, the first one leads: hovers and drops name it).
            if json["items"] != nil {
                let values = try json.array("items")
                guard (1...Op.maximumBulkItems).contains(values.count) else {
                    throw JSON.DecodingError("\"items\" must name 1–\(Op.maximumBulkItems) items")
                }
                var items: [ItemID] = []
                for (i, value) in values.enumerated() { items.append(try value.id(named: "\"items[\(i)]\"")) }
                guard Set(items).count == items.count else {
                    throw JSON.DecodingError("\"items\" may name an item only once")
                }
                return .dragStart(item: items[0], with: Array(items.dropFirst()))
            }
            return .dragStart(item: try json.id("item"))
        case "hover":
            let item: ItemID = try json.id("item")
            let over: ItemID? = try json.hasValue("over") ? json.id("over") : nil
            let zone: ZoneID? = try json.hasValue("zone") ? json.id("zone") : nil
            let mode = try json.hasValue("mode") ? dragMode("mode", in: json) : nil
            // The sender's own timestamp, relayed as is (clients and benchmarks time hand to screen).
            let t = try json.hasValue("t") ? json.read("t", named: "\"t\"", mustBe: "a number") { $0.numberValue } : nil
            return .hover(item: item, over: over, zone: zone, mode: mode, t: t)
        case "drop":
            let item: ItemID = try json.id("item")
            guard let action = json["action"], !action.isNull else { return .drop(item: item, action: nil) }
            guard case .object = action, action["type"]?.stringValue != nil else {
                throw JSON.DecodingError("\"action\" must be an object with a string \"type\"")
            }
            let mode = try dragMode("type", in: action, named: "\"action.type\"")
            let (opID, base) = try header(json)
            return .drop(
                item: item,
                action: OpRequest(opID: opID, base: base, op: try Op(dropping: item, as: mode, action: action)))
        case "ping":
            return .ping
        case "auth":
            return .auth(token: try token(in: json))
        default:
            return nil
        }
    }

    /// The string `token` of a `hello` or `auth`, at most 2048 bytes (the longest token the
    /// server verifies).
    private static func token(in json: JSON) throws(JSON.DecodingError) -> String {
        try json.read("token", named: "\"token\"", mustBe: "a string of at most 2048 bytes") {
            $0.stringValue.flatMap { $0.utf8.count <= 2048 ? $0 : nil }
        }
    }

    /// A client op's `op` id and `base` seq, read before the op's own members.
    private static func header(_ json: JSON) throws(JSON.DecodingError) -> (OpID, Seq) {
        (try json.id("op"), try json.seq("base"))
    }

    /// A hover's `mode` or a drop action's `type`: `swap` or `move`.
    private static func dragMode(_ key: String, in json: JSON, named name: String? = nil) throws(JSON.DecodingError)
        -> DragMode
    {
        try json.read(key, named: name, mustBe: "\"swap\" or \"move\"") { $0.stringValue.flatMap(DragMode.init) }
    }
}

extension ClientMessage: JSONEncodable {
    /// Writes the message as one JSON object, as a client sends it: a JSON text that `parse`
    /// reads back as this message (`encoded()`).
    ///
    /// A node of a cluster forwards a connection's `hello` and what followed it to the board's
    /// owner in this form. A `drop` is written as `parse` makes one: its action swaps or moves the
    /// dropped item.
    package func encode(into w: inout JSONWriter) {
        w.beginObject()
        switch self {
        case .hello(let board, let name, let since, let token, let member):
            w.write("type", "hello")
            w.write("board", board.rawValue)
            w.write("name", name)
            if let since { w.write("since", since) }
            if let token { w.write("token", token) }
            if let member { w.write("member", member.rawValue) }
        case .op(let request):
            w.write("type", request.op.kind)
            w.write("op", request.opID.rawValue)
            w.write("base", request.base)
            request.op.writeFields(into: &w, assigned: false)
        case .dragStart(let item, let group):
            w.write("type", "dragStart")
            if group.isEmpty {
                w.write("item", item.rawValue)
            } else {
                w.beginArray("items")
                for id in [item] + group { w.write(nil, id.rawValue) }
                w.endArray()
            }
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
            if let action {
                w.write("op", action.opID.rawValue)
                w.write("base", action.base)
                w.beginObject("action")
                switch action.op {
                case .swap(_, let other):
                    w.write("type", DragMode.swap.rawValue)
                    w.write("with", other.rawValue)
                case .move(_, let zone, let before):
                    w.write("type", DragMode.move.rawValue)
                    w.write("zone", zone.rawValue)
                    w.write("before", before?.rawValue)
                default:
                    // Not a drop's action (`parse` never makes one): written so that it fails to parse.
                    w.write("type", action.op.kind)
                }
                w.endObject()
            }
        case .ping:
            w.write("type", "ping")
        case .auth(let token):
            w.write("type", "auth")
            w.write("token", token)
        }
        w.endObject()
    }
}
