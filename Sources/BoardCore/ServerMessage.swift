/// A message from the server. Each is encoded to JSON once, however many clients receive it.
/// A welcome and a drag start with its user are `indirect`, so that the broadcasts of ops and
/// hovers copy no more than a committed op (`HubLayoutTests`).
package enum ServerMessage: Equatable, Sendable {
    /// The reply to `hello`.
    indirect case welcome(Welcome)
    /// Someone joined the board.
    case join(User)
    /// Someone's connection closed.
    case leave(User)
    /// A committed op (the sender's copy is its acknowledgement).
    case committed(CommittedOp)
    /// A refused request, to the requester only.
    case reject(Rejection, seq: Seq)
    /// A resent op id that was committed before.
    case ack(OpID, seq: Seq)
    /// Someone lifted an item (`with`: the others of a group it leads, issue 36).
    indirect case dragStart(item: ItemID, by: UserID, at: Seq, user: User? = nil, with: [ItemID] = [])
    /// How many users a large board has (and, once it is small again, who they are).
    case presence(userCount: Int, users: [User]?)
    /// The held item moved over another item or zone.
    case hover(item: ItemID, over: ItemID?, zone: ZoneID?, mode: DragMode?, by: UserID, at: Seq, t: Double? = nil)
    /// A hold ended: released, dropped, or ended by `reason` (`left`, `expired`).
    case drop(item: ItemID, by: UserID, at: Seq, reason: DropReason?)
    /// A client mistake.
    case error(ProtocolError)
    /// The answer to `ping`.
    case pong
    /// The answer to an accepted `auth`: what the session may do from now on (`view`, `edit`,
    /// `admin`) and when its new token expires, in seconds since 1970 (nil: never).
    case auth(role: String, expires: Int64?)
    /// A new entry in the inbox of the session's member (Notice.swift), on whatever board it is.
    indirect case notice(Notice)

    /// The `welcome` payload.
    package struct Welcome: Equatable, Sendable {
        /// The joiner's user id.
        package var you: UserID
        /// The board seq the welcome describes.
        package var seq: Seq
        /// Items held right now, and by whom.
        package var drags: [(item: ItemID, by: UserID)]
        /// Everyone on the board, the joiner included; on a large board only the first of them,
        /// those holding tiles first (see `userCount`).
        package var users: [User]
        /// How many users the board has, when `users` does not list them all (a large board).
        package var userCount: Int?
        /// A snapshot, or the ops after `since` when resuming.
        package var state: State
        /// The text of `state`'s board, when the room has it encoded already (shared by every
        /// joiner at this seq); not part of what a welcome is, so not compared.
        package var boardJSON: BoardJSON?

        /// Snapshot or ops.
        package enum State: Equatable, Sendable {
            /// The whole board.
            case board(Board)
            /// The ops the client missed, in order.
            case ops([CommittedOp])
        }

        /// A welcome.
        package init(
            you: UserID, seq: Seq, drags: [(item: ItemID, by: UserID)], users: [User], state: State,
            userCount: Int? = nil, boardJSON: BoardJSON? = nil
        ) {
            self.boardJSON = boardJSON
            self.you = you
            self.seq = seq
            self.drags = drags
            self.users = users
            self.state = state
            self.userCount = userCount
        }

        /// Welcomes compare field by field.
        package static func == (a: Welcome, b: Welcome) -> Bool {
            a.you == b.you && a.seq == b.seq && a.users == b.users && a.state == b.state && a.userCount == b.userCount
                && a.drags.map(\.item) == b.drags.map(\.item) && a.drags.map(\.by) == b.drags.map(\.by)
        }
    }
}

/// Why a hold ended without its holder dropping it.
package enum DropReason: String, Equatable, Sendable {
    /// The holder's connection closed.
    case left
    /// The holder sent no hover or drop for the hold timeout.
    case expired
}

extension ServerMessage: JSONEncodable {
    /// Writes the message as one JSON object (`encoded()`: as JSON text).
    package func encode(into w: inout JSONWriter) {
        // A committed op is written by its own encoder, which archives share.
        if case .committed(let op) = self { return op.encode(into: &w) }
        w.beginObject()
        switch self {
        case .welcome(let welcome):
            w.write("type", "welcome")
            w.write("you", welcome.you.rawValue)
            w.write("seq", welcome.seq)
            w.beginArray("drags")
            for d in welcome.drags {
                w.beginObject()
                w.write("item", d.item.rawValue)
                w.write("by", d.by.rawValue)
                w.endObject()
            }
            w.endArray()
            w.beginArray("users")
            for u in welcome.users { Self.write(u, key: nil, into: &w) }
            w.endArray()
            if let count = welcome.userCount { w.write("userCount", count) }
            switch welcome.state {
            case .board(let board):
                // The same bytes either way: the shared text is `board.encoded()`.
                if let json = welcome.boardJSON {
                    w.writeRaw("board", json.bytes)
                } else {
                    board.encode(into: &w, key: "board")
                }
            case .ops(let ops):
                w.beginArray("ops")
                for op in ops { op.encode(into: &w) }
                w.endArray()
            }
        case .join(let user):
            w.write("type", "join")
            Self.write(user, key: "user", into: &w)
        case .leave(let user):
            w.write("type", "leave")
            Self.write(user, key: "user", into: &w)
        case .committed:
            break  // Written above.
        case .reject(let r, let seq):
            w.write("type", "reject")
            w.write("op", r.opID?.rawValue)
            w.write("reason", r.reason.rawValue)
            w.write("seq", seq)
            if let by = r.by { w.write("by", by.rawValue) }
            if let item = r.item { w.write("item", item.rawValue) }
        case .ack(let opID, let seq):
            w.write("type", "ack")
            w.write("op", opID.rawValue)
            w.write("seq", seq)
        case .dragStart(let item, let by, let at, let user, let group):
            w.write("type", "dragStart")
            w.write("item", item.rawValue)
            if !group.isEmpty {
                w.beginArray("items")
                for id in [item] + group { w.write(nil, id.rawValue) }
                w.endArray()
            }
            w.write("by", by.rawValue)
            w.write("at", at)
            if let user { Self.write(user, key: "user", into: &w) }
        case .presence(let count, let users):
            w.write("type", "presence")
            w.write("userCount", count)
            if let users {
                w.beginArray("users")
                for u in users { Self.write(u, key: nil, into: &w) }
                w.endArray()
            }
        case .hover(let item, let over, let zone, let mode, let by, let at, let t):
            w.write("type", "hover")
            w.write("item", item.rawValue)
            w.write("over", over?.rawValue)
            w.write("zone", zone?.rawValue)
            if let mode { w.write("mode", mode.rawValue) }
            w.write("by", by.rawValue)
            w.write("at", at)
            if let t { w.write("t", json: .number(t)) }
        case .drop(let item, let by, let at, let reason):
            w.write("type", "drop")
            w.write("item", item.rawValue)
            w.write("by", by.rawValue)
            w.write("at", at)
            if let reason { w.write("reason", reason.rawValue) }
        case .error(let e):
            w.write("type", "error")
            w.write("code", e.code.rawValue)
            w.write("message", e.message)
            if let op = e.opID { w.write("op", op) }
        case .pong:
            w.write("type", "pong")
        case .auth(let role, let expires):
            w.write("type", "auth")
            w.write("role", role)
            if let expires { w.write("exp", Int(expires)) }
        case .notice(let notice):
            w.write("type", "notice")
            notice.writeFields(into: &w)
        }
        w.endObject()
    }

    static func write(_ user: User, key: String?, into w: inout JSONWriter) {
        w.beginObject(key)
        w.write("id", user.id.rawValue)
        w.write("name", user.name)
        w.write("color", user.color)
        w.write("member", user.member.rawValue)
        w.endObject()
    }
}
