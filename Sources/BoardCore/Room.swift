internal import Basics

/// One shared board and the people on it: the state machine the server drives.
///
/// The room applies ops at once (so the next op is checked against the newest board), but
/// publishes them only once the store says they are durable: `markDurable(upTo:)` releases the
/// broadcasts, and every reply that mentions a seq waits for that seq to be visible. Ephemeral
/// messages (drags, hovers, joins) never wait. Time and user ids are passed in; the room does no I/O.
package struct Room: Sendable {
    /// What the server must do.
    package enum Effect: Equatable, Sendable {
        /// Send to one user.
        case send(UserID, ServerMessage)
        /// Send to everyone on the board, optionally leaving one user out.
        case broadcast(ServerMessage, except: UserID?)
        /// Make a committed op durable, then call `markDurable(upTo:)`.
        case persist(CommittedOp)
        /// Read the board as of the restore's `to` from the store (off the service thread), then
        /// hand the request back with it to `handle` (or, when it cannot be had, to
        /// `refuseRestore`). The restore is checked again then: the board may have changed.
        case readBoard(OpRequest, from: UserID)
    }

    /// A drag in progress.
    package struct Hold: Equatable, Sendable {
        /// The holder.
        package var by: UserID
        /// When the holder last showed activity, for expiry.
        package var lastActive: Instant
        /// When the hold began: however active, a hold ends `holdLifetime` after it.
        package var since: Instant
        /// The holder's client address, when the server said it (for the per-address rules).
        package var address: String? = nil
    }

    private enum Gated: Sendable {
        case op(CommittedOp)
        case message(requires: Seq, to: UserID, ServerMessage)
    }

    /// The board id.
    package var id: BoardID { published.id }
    /// The sequencer: the newest board, including ops not yet durable.
    package private(set) var sequencer: Sequencer
    /// The board as everyone has been told it is.
    package private(set) var published: Board {
        didSet { publishedText = nil }
    }
    /// The text of `published`, once a join (or a measure of its size) has needed it: encoded
    /// once per published seq and shared by the welcome of every joiner at that seq.
    private var publishedText: BoardJSON?
    /// The seq of `published`: the last op that is durable and broadcast.
    package private(set) var visibleSeq: Seq
    /// The users on the board, in join order.
    package private(set) var users: [User] = []
    /// Items held by drags.
    package internal(set) var holds: [ItemID: Hold] = [:]
    /// How long a hold lives without hover or drop, in milliseconds.
    package var holdTimeout: Int64
    /// How long a hold lives at most, however busy its holder, in milliseconds: without it a few
    /// hovering connections could hold every tile of a board for ever.
    package var holdLifetime: Int64 {
        didSet { turns.forgetAfter = holdLifetime }
    }
    /// Whose turn it is on items whose holds ended: expired holders wait, those refused go first.
    package internal(set) var turns: HoldTurns
    /// The most items the connections of one client address may hold at once (0: no limit).
    package var maxHoldsPerAddress = 8

    /// A board with more users than this is large: its welcomes list at most this many users
    /// (holders first) plus `userCount`, and joins and leaves are folded into a `presence`
    /// count at most once a second, instead of going to everyone (O(N²) for a room filling up).
    package var presenceLimit = 50
    private var presenceChanged = false
    private var lastPresence: Instant?

    var holding: [UserID: ItemID] = [:]
    /// The other items of each group a user holds (issue 36), after its lead in `holding`.
    var groups: [UserID: [ItemID]] = [:]
    /// The names of the users who committed ops, kept with their ops: filled at a user's first
    /// op (from `users`), so that the many who only watch or drag cost nothing here.
    private var names: [UserID: (name: String, member: MemberID)] = [:]
    /// How many items each address holds (one entry per address that holds one).
    var holdsByAddress: [String: Int] = [:]
    /// Ops and replies waiting for the disk, in the order they go out.
    private var gated = FIFO<Gated>()

    /// What a room is told at start (the server's flags). Its durations become the room's
    /// milliseconds when the room is made.
    package struct Settings: Equatable, Sendable {
        /// Committed ops kept, for conflicts, dedup and `since` resumes.
        package var historyLimit = 10_000
        /// See `Room.holdTimeout`.
        package var holdTimeout: Duration = .seconds(30)
        /// See `Room.holdLifetime`.
        package var holdLifetime: Duration = .seconds(120)
        /// How long a holder whose hold expired may not take that item again, and
        /// how long the first one waiting for an item has to take it (see `HoldTurns`).
        package var holdCooldown: Duration = .seconds(10)
        /// See `Room.maxHoldsPerAddress`.
        package var maxHoldsPerAddress = 8
        /// See `Room.presenceLimit`.
        package var presenceLimit = 50
        /// The most bytes a board's snapshot may take (`Sequencer.maxBoardBytes`, `--max-board-bytes`).
        package var maxBoardBytes = BoardLimits.defaultMaxBoardBytes
        /// The defaults.
        package init() {}
    }

    /// A room for `board` at `seq` (both durable) with `settings`, seeded with the most recent ops.
    package init(board: Board, seq: Seq = 0, recent: [CommittedOp] = [], settings: Settings) {
        self.init(
            board: board, seq: seq, recent: recent, historyLimit: settings.historyLimit,
            holdTimeout: Instant.Span(settings.holdTimeout).milliseconds,
            holdLifetime: Instant.Span(settings.holdLifetime).milliseconds,
            holdCooldown: Instant.Span(settings.holdCooldown).milliseconds)
        presenceLimit = settings.presenceLimit
        maxHoldsPerAddress = settings.maxHoldsPerAddress
        sequencer.maxBoardBytes = settings.maxBoardBytes
    }

    /// A room for `board` at `seq` (both durable), seeded with the most recent committed ops.
    package init(
        board: Board, seq: Seq = 0, recent: [CommittedOp] = [], historyLimit: Int = 1000, holdTimeout: Int64 = 30_000,
        holdLifetime: Int64 = 120_000, holdCooldown: Int64 = 10_000
    ) {
        sequencer = Sequencer(board: board, seq: seq, recent: recent, historyLimit: historyLimit)
        published = board
        visibleSeq = seq
        self.holdTimeout = holdTimeout
        self.holdLifetime = holdLifetime
        // An ask is remembered as long as the hold it waits for may last.
        turns = HoldTurns(cooldown: holdCooldown, forgetAfter: holdLifetime)
    }

    /// True when nobody is on the board and nothing waits for the disk.
    package var isIdle: Bool { users.isEmpty && gated.isEmpty }

    /// The committed ops after `since` that have been published, or nil if some were forgotten.
    package func publishedOps(after since: Seq) -> [CommittedOp]? {
        guard since <= visibleSeq, let ops = sequencer.ops(after: since) else { return nil }
        return ops.prefix { $0.seq <= visibleSeq }.map { $0 }
    }

    // MARK: Membership

    /// `user` joined; `since` is the seq the client already has, if resuming.
    ///
    /// A resume (`ops`) is sent only when it takes no more bytes than the board snapshot it
    /// replaces: ten thousand ops with long op ids can be megabytes against a few kilobytes of board.
    package mutating func join(_ user: User, since: Seq?) -> [Effect] {
        users.append(user)
        var state = ServerMessage.Welcome.State.board(published)
        var text: BoardJSON? = nil
        if let since, let ops = publishedOps(after: since), Self.encodedSize(of: ops, atMost: boardBytes()) != nil {
            state = .ops(ops)
        } else {
            text = publishedJSON()
        }
        let drags = holds.map { (item: $0.key, by: $0.value.by) }.sorted { $0.item.rawValue < $1.item.rawValue }
        guard isLarge else {
            let welcome = ServerMessage.Welcome(
                you: user.id, seq: visibleSeq, drags: drags, users: users, state: state, boardJSON: text)
            return [.send(user.id, .welcome(welcome)), .broadcast(.join(user), except: user.id)]
        }
        presenceChanged = true
        let welcome = ServerMessage.Welcome(
            you: user.id, seq: visibleSeq, drags: drags, users: listedUsers(including: user), state: state,
            userCount: users.count, boardJSON: text)
        return [.send(user.id, .welcome(welcome))]
    }

    /// The bytes of `published` as a welcome carries it, measured once per published seq.
    package mutating func boardBytes() -> Int { publishedJSON().bytes.count }

    /// The text of `published`, encoded once per published seq (dropped by the next op, and with
    /// the room when the board leaves memory).
    package mutating func publishedJSON() -> BoardJSON {
        if let publishedText { return publishedText }
        let text = BoardJSON(published)
        publishedText = text
        return text
    }

    /// The bytes of `ops` as a welcome's `ops` array, or nil as soon as they pass `limit` (so
    /// measuring costs no more than writing the board would).
    private static func encodedSize(of ops: [CommittedOp], atMost limit: Int) -> Int? {
        var total = 2 + max(ops.count - 1, 0)  // The brackets and the commas.
        for op in ops {
            guard total <= limit else { return nil }
            var w = JSONWriter()
            op.encode(into: &w)
            total += w.bytes.count
        }
        return total <= limit ? total : nil
    }

    /// `user`'s connection closed at `now`: its hold ends with `reason: left`, then everyone hears
    /// `leave` (on a large board, the next `presence` counts it instead).
    package mutating func leave(_ userID: UserID, now: Instant) -> [Effect] {
        guard let index = users.firstIndex(where: { $0.id == userID }) else { return [] }
        let wasLarge = isLarge
        let user = users.remove(at: index)
        var effects: [Effect] = []
        let released = release(userID, now: now, expired: false)
        turns.left(userID)
        names[userID] = nil
        if let item = released {
            effects.append(.broadcast(.drop(item: item, by: userID, at: visibleSeq, reason: .left), except: nil))
        }
        if wasLarge {
            presenceChanged = true
        } else {
            effects.append(.broadcast(.leave(user), except: nil))
        }
        return effects
    }

    /// True when the board has more users than `presenceLimit`.
    package var isLarge: Bool { users.count > presenceLimit }

    /// The users a large board's welcome lists: holders first, then the earliest joiners, and
    /// the joiner itself, `presenceLimit` in all.
    ///
    /// Every join on a board of thousands calls this, so it neither copies `users` nor walks
    /// further than it must: the holders' scan stops at the last holder, the rest at the limit.
    private func listedUsers(including joiner: User) -> [User] {
        let holders = Set(holds.values.map(\.by))
        var listed: [User] = []
        listed.reserveCapacity(min(presenceLimit, users.count + 1))
        if !holders.isEmpty {
            for user in users where holders.contains(user.id) {
                listed.append(user)
                if listed.count == holders.count { break }
            }
        }
        var seen = holders
        if listed.count < presenceLimit, seen.insert(joiner.id).inserted { listed.append(joiner) }
        for user in users {
            guard listed.count < presenceLimit else { break }
            if seen.insert(user.id).inserted { listed.append(user) }
        }
        return listed
    }

    /// The `presence` update a large board owes its users, at most once a second: the count, and
    /// the whole list again once the board is small (so clients can go back to naming everyone).
    package mutating func presence(now: Instant) -> [Effect] {
        guard presenceChanged, lastPresence.map({ now - $0 >= 1000 }) ?? true else { return [] }
        presenceChanged = false
        lastPresence = now
        return [.broadcast(.presence(userCount: users.count, users: isLarge ? nil : users), except: nil)]
    }

    // MARK: Messages

    /// Handles a message from a joined user at monotonic time `now`; ops it commits record `wall`.
    /// `address` is the user's client address (nil: unknown; the per-address hold rules then see
    /// only the user). It is passed with each message rather than kept per user: only holders
    /// need it kept, in their `Hold`, and every idle user on a board would pay for a table of them.
    /// `admin`: the user may remove anyone's comment.
    package mutating func handle(
        _ message: ClientMessage, from user: UserID, address: String? = nil, admin: Bool = false, now: Instant,
        wall: UnixTime
    ) -> [Effect] {
        let claimant = HoldTurns.Claimant(user: user, address: address)
        switch message {
        case .hello, .ping, .auth:
            return []  // The server answers these; they never reach a room.
        case .op(let request):
            return submit(request, from: claimant, admin: admin, now: now, wall: wall)
        case .dragStart(let item, let group):
            return dragStart(item, with: group, by: claimant, now: now)
        case .hover(let item, let over, let zone, let mode, let t):
            return hover(item, over: over, zone: zone, mode: mode, t: t, by: user, now: now)
        case .drop(let item, let action):
            return drop(item, action: action, by: claimant, now: now, wall: wall)
        }
    }

    /// An op from someone who is not on the board (`POST /api/boards/{id}/ops`), sent as `user`:
    /// the same rules as a joined user's op, but a refusal for a hold puts it in no line for the
    /// item (it will never drag it, so it must not take a turn from those who would).
    /// `name` is kept with the op (the user is in no list the room could find it in).
    package mutating func submitDetached(
        _ request: OpRequest, as user: UserID, name: String? = nil, member: MemberID? = nil, admin: Bool = false,
        now: Instant, wall: UnixTime
    ) -> [Effect] {
        submit(
            request, from: HoldTurns.Claimant(user: user, address: nil), name: name, member: member, admin: admin,
            now: now, wall: wall, waitsTurn: false)
    }

    /// The store made every op up to `seq` durable: publish them and whatever waited for them.
    package mutating func markDurable(upTo seq: Seq) -> [Effect] {
        var effects: [Effect] = []
        while let next = gated.first {
            switch next {
            case .op(let op):
                guard op.seq <= seq else { return effects }
                published.apply(op.op)
                visibleSeq = op.seq
                effects.append(.broadcast(.committed(op), except: nil))
            case .message(let requires, let to, let message):
                guard requires <= visibleSeq else { return effects }
                effects.append(.send(to, message))
            }
            _ = gated.popFirst()
        }
        return effects
    }

    /// A reply that mentions `seq` goes out once `seq` is visible, after the ops before it.
    private mutating func reply(_ message: ServerMessage, to user: UserID, requires seq: Seq) -> [Effect] {
        if seq <= visibleSeq && gated.isEmpty { return [.send(user, message)] }
        gated.append(.message(requires: seq, to: user, message))
        return []
    }

    /// `user`'s name and member, looked up in `users` once per user and then kept in `names`.
    private mutating func author(_ user: UserID) -> (name: String, member: MemberID)? {
        if let author = names[user] { return author }
        guard let found = users.first(where: { $0.id == user }) else { return nil }
        names[user] = (found.name, found.member)
        return (found.name, found.member)
    }

    mutating func submit(
        _ request: OpRequest, from claimant: HoldTurns.Claimant, name: String? = nil, member: MemberID? = nil,
        admin: Bool = false, now: Instant, wall: UnixTime, waitsTurn: Bool = true
    ) -> [Effect] {
        let user = claimant.user
        let holds = self.holds
        let author = name == nil ? self.author(user) : nil
        switch sequencer.submit(
            request, by: user, name: name ?? author?.name, member: member ?? author?.member, admin: admin,
            time: wall, holder: { holds[$0]?.by })
        {
        case .committed(let op):
            gated.append(.op(op))
            var effects: [Effect] = [.persist(op)]
            // Only the remover can hold a removed (or archived) item (another's hold refuses the remove): the
            // hold ends with it. A restore is refused while anyone else holds an item; the
            // restorer's own hold ends with it (its item may be gone, or elsewhere).
            var ends = false
            switch op.op {
            case .remove(let item): ends = holds[item]?.by == user
            case .archive(let items): ends = items.contains { holds[$0]?.by == user }
            case .restore: ends = true
            default: break
            }
            if ends, let item = release(user, now: now, expired: false) {
                effects.append(.broadcast(.drop(item: item, by: user, at: visibleSeq, reason: nil), except: nil))
            }
            return effects
        case .needsBoard(let to):
            // The published board is the board as of its seq: no need to ask the store.
            if to == visibleSeq {
                var request = request
                request.op = .restore(to: to, board: published)
                return submit(
                    request, from: claimant, name: name, member: member, admin: admin, now: now, wall: wall,
                    waitsTurn: waitsTurn)
            }
            return [.readBoard(request, from: user)]
        case .duplicate(let seq):
            return reply(.ack(request.opID, seq: seq), to: user, requires: seq)
        case .rejected(let rejection):
            if rejection.reason == .held && waitsTurn {
                // An op refused for a hold (a toggle on a paint board) waits in line like a dragStart.
                for item in request.op.involvedItems {
                    guard let holder = holds[item]?.by, holder != user else { continue }
                    turns.refusedWhileHeld(item, claimant, now: now)
                }
            }
            return reply(.reject(rejection, seq: sequencer.seq), to: user, requires: sequencer.seq)
        }
    }

    /// A restore whose board could not be read: the store no longer keeps `to` (`compacted`) or
    /// does not have it (`invalid`). Sent once the board's seq is visible, like every reject.
    package mutating func refuseRestore(_ request: OpRequest, reason: RejectReason, from user: UserID) -> [Effect] {
        reply(.reject(Rejection(reason, opID: request.opID), seq: sequencer.seq), to: user, requires: sequencer.seq)
    }
}
