/// A message from a client, validated.
public enum ClientMessage: Equatable, Sendable {
    /// Join a board; must be first.
    case hello(board: BoardID, name: String, since: Seq?)
    /// A swap, move or toggle.
    case op(OpRequest)
    /// Lift an item.
    case dragStart(item: ItemID)
    /// The held item is over `over` (nil: empty space) in `zone`; `mode` says what a drop there would do.
    case hover(item: ItemID, over: ItemID?, zone: ZoneID?, mode: DragMode?)
    /// Release the held item, committing `action` if given.
    case drop(item: ItemID, action: OpRequest?)
    /// A keep-alive; answered with `pong`.
    case ping
}

/// A client mistake that is answered with an `error` message (the connection stays open).
public struct ProtocolError: Error, Equatable, Sendable {
    /// The wire code.
    public enum Code: String, Sendable {
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
        /// The server cannot serve the request right now (the store failed).
        case unavailable
    }

    /// The wire code.
    public var code: Code
    /// A human explanation.
    public var message: String
    /// The op id of the offending message, when it had a readable one.
    public var opID: String?

    /// An error.
    public init(_ code: Code, _ message: String, opID: String? = nil) {
        self.code = code
        self.message = message
        self.opID = opID
    }
}

extension ClientMessage {
    /// The longest display name accepted in `hello`, in characters.
    public static let maximumNameLength = 64

    /// Parses and validates one client frame.
    public static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> Result<ClientMessage, ProtocolError> {
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
        let fields = Fields(json: json, opID: json["op"]?.stringValue)
        switch type {
        case "hello":
            let board = try fields.boardID("board")
            guard let rawName = json["name"]?.stringValue else { throw fields.bad("\"name\" must be a string") }
            let name = rawName.trimmingWhitespace()
            guard (1...maximumNameLength).contains(name.count) else {
                throw fields.bad("\"name\" must be 1–\(maximumNameLength) characters")
            }
            let since = try fields.optionalSeq("since")
            return .hello(board: board, name: name, since: since)
        case "swap", "move", "toggle":
            return .op(try fields.opRequest(type: type, subject: nil))
        case "dragStart":
            return .dragStart(item: try fields.itemID("item"))
        case "hover":
            let item = try fields.itemID("item")
            let over = try fields.optionalItemID("over")
            let zone = try fields.optionalZoneID("zone")
            var mode: DragMode?
            if let raw = json["mode"], !raw.isNull {
                guard let parsed = raw.stringValue.flatMap(DragMode.init(rawValue:)) else {
                    throw fields.bad("\"mode\" must be \"swap\" or \"move\"")
                }
                mode = parsed
            }
            return .hover(item: item, over: over, zone: zone, mode: mode)
        case "drop":
            let item = try fields.itemID("item")
            guard let action = json["action"], !action.isNull else { return .drop(item: item, action: nil) }
            guard case .object = action, let actionType = action["type"]?.stringValue else {
                throw fields.bad("\"action\" must be an object with a string \"type\"")
            }
            guard actionType == "swap" || actionType == "move" else {
                throw fields.bad("\"action.type\" must be \"swap\" or \"move\"")
            }
            return .drop(item: item, action: try fields.opRequest(type: actionType, subject: item, action: action))
        case "ping":
            return .ping
        default:
            throw ProtocolError(.unknownType, "unknown message type \"\(type.prefix(64))\"", opID: fields.opID)
        }
    }

    /// Field readers that turn each mistake into a precise `bad_message`.
    private struct Fields {
        let json: JSON
        let opID: String?

        func bad(_ message: String) -> ProtocolError { ProtocolError(.badMessage, message, opID: opID) }

        func boardID(_ key: String) throws(ProtocolError) -> BoardID {
            guard let s = json[key]?.stringValue, let id = BoardID(s) else {
                throw bad("\"\(key)\" must be an id of 1–64 characters [A-Za-z0-9_-]")
            }
            return id
        }

        func itemID(_ key: String, in object: JSON? = nil) throws(ProtocolError) -> ItemID {
            guard let s = (object ?? json)[key]?.stringValue, let id = ItemID(s) else {
                throw bad("\"\(key)\" must be an item id of 1–64 characters [A-Za-z0-9_-]")
            }
            return id
        }

        func optionalItemID(_ key: String, in object: JSON? = nil) throws(ProtocolError) -> ItemID? {
            guard let value = (object ?? json)[key], !value.isNull else { return nil }
            return try itemID(key, in: object)
        }

        func zoneID(_ key: String, in object: JSON? = nil) throws(ProtocolError) -> ZoneID {
            guard let s = (object ?? json)[key]?.stringValue, let id = ZoneID(s) else {
                throw bad("\"\(key)\" must be a zone id of 1–64 characters [A-Za-z0-9_-]")
            }
            return id
        }

        func optionalZoneID(_ key: String) throws(ProtocolError) -> ZoneID? {
            guard let value = json[key], !value.isNull else { return nil }
            return try zoneID(key)
        }

        func optionalSeq(_ key: String) throws(ProtocolError) -> Seq? {
            guard let value = json[key], !value.isNull else { return nil }
            guard let n = value.intValue, n >= 0 else { throw bad("\"\(key)\" must be a non-negative integer") }
            return n
        }

        /// An op: top-level fields for `swap`/`move`/`toggle`, or a drop's `action` with `subject` as the dragged item.
        func opRequest(type: String, subject: ItemID?, action: JSON? = nil) throws(ProtocolError) -> OpRequest {
            guard let raw = json["op"]?.stringValue, let opID = OpID(raw) else {
                throw bad("\"op\" must be a string of 1–128 characters")
            }
            guard let base = json["base"]?.intValue, base >= 0 else {
                throw bad("\"base\" must be a non-negative integer")
            }
            let op: Op
            switch type {
            case "swap":
                if let subject {
                    op = .swap(a: subject, b: try itemID("with", in: action))
                } else {
                    op = .swap(a: try itemID("a"), b: try itemID("b"))
                }
            case "move":
                let source = action ?? json
                guard let beforeValue = source["before"] else {
                    throw bad("\"before\" is required (an item id, or null to append)")
                }
                var before: ItemID? = nil
                if !beforeValue.isNull { before = try itemID("before", in: source) }
                let moved: ItemID
                if let subject { moved = subject } else { moved = try itemID("item") }
                op = .move(item: moved, zone: try zoneID("zone", in: source), before: before)
            default:
                guard let on = json["on"]?.boolValue else { throw bad("\"on\" must be a boolean") }
                op = .toggle(item: try itemID("item"), on: on)
            }
            return OpRequest(opID: opID, base: base, op: op)
        }
    }
}

extension String {
    func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
