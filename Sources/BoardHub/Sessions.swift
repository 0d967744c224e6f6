internal import BoardAuth
internal import BoardCore

/// The session rules, as a sub-machine that owns its state: every open WebSocket connection's
/// `Session` by its id, with its phase (`Session.Phase`: awaiting `hello`, joining, joined,
/// forwarded, closing) and its own limits (message and op rates, strikes, what it may send before
/// `welcome`); the connections that must say `hello` in time; and the numbering of users.
///
/// Its inputs are methods, one per thing that happens to a session; its decisions come back as
/// values: `Action`s the hub carries out in order, or, for a message, a `Received` that says what
/// is left for the hub to do. Hub+Sessions.swift routes the events here and carries the decisions
/// out on the parts that own what they touch (the boards and their rooms, the cluster's waits,
/// access, the addresses). No other part writes a session: the methods here are the only way a
/// session's phase, role, token or buckets change. Tested alone in `SessionsTests`.
///
/// The per-op path stays cheap: a message from a joined session comes back as `Received.board`,
/// with no array, closure or copy of a board made on the way (`Action`s are only for the rarer
/// inputs: refusals, rate limits, timeouts).
///
/// Iterating `ids` goes through the sessions in no particular order (sort for anything a client
/// sees). Confined to the service thread (with the hub).
final class Sessions {
    private let config: Hub.Config
    private let helloTimeout: Instant.Span
    private var table: [ConnectionID: Session] = [:]
    /// When each connection that has not sent `hello` yet opened, to close it if it sends none in
    /// time. It holds only those: a connection leaves it with its `hello`, and its storage goes
    /// when it empties, so a server of idle joined connections keeps none of it.
    private var awaitingHello: [ConnectionID: Instant] = [:]
    private var lastUser: UInt64 = 0

    /// No sessions, under `config`'s limits.
    init(config: Hub.Config) {
        self.config = config
        helloTimeout = Instant.Span(config.helloTimeout)
    }

    /// The session of a connection, if it is open.
    subscript(id: ConnectionID) -> Session? { table[id] }

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }
    /// The open connections, in no particular order.
    var ids: Dictionary<ConnectionID, Session>.Keys { table.keys }

    // MARK: Opening and closing

    /// A connection opened: its session, awaiting `hello` (its deadline starts with `awaitHello`).
    func open(_ id: ConnectionID, peer: String, relayed: Bool, now: Instant, stalled: Int64) -> Session {
        let session = Session(id: id, peer: peer, relayed: relayed, config: config, now: now, stalled: stalled)
        table[id] = session
        return session
    }

    /// The connection was let in (`Hub.admit`): it must say `hello` within `helloTimeout` of `since`.
    func awaitHello(_ id: ConnectionID, since: Instant) { awaitingHello[id] = since }

    /// The session counts against its address's connections (released when it closes).
    func markCounted(_ session: Session) { session.counted = true }

    /// The server closes the connection: it is deaf from now on. The phase it was in (the hub
    /// takes a joined one off its board); nil when it is gone or closing already.
    func close(_ id: ConnectionID) -> Session.Phase? {
        guard let session = table[id] else { return nil }
        let phase = session.phase
        if case .closing = phase { return nil }
        session.phase = .closing
        return phase
    }

    /// The connection closed: its session (in the phase it was in), if it was open.
    func remove(_ id: ConnectionID) -> Session? {
        stopAwaitingHello(id)
        return table.removeValue(forKey: id)
    }

    private func stopAwaitingHello(_ id: ConnectionID) {
        guard awaitingHello.removeValue(forKey: id) != nil, awaitingHello.isEmpty else { return }
        awaitingHello = [:]  // Drops the storage a burst of connections grew.
    }

    /// The connections that opened `helloTimeout` or more before `now` and have not said `hello`,
    /// in connection order, are refused with 4408; they no longer wait.
    func expireHellos(now: Instant) -> [Action] {
        guard !awaitingHello.isEmpty else { return [] }
        let late = awaitingHello.filter { now >= $0.value + helloTimeout }.keys.sorted()
        var actions: [Action] = []
        for id in late {
            stopAwaitingHello(id)
            guard let session = table[id], case .awaitingHello = session.phase else { continue }
            actions.append(.limitHit(.helloTimeout))
            actions.append(.log(.debug, "\(id) from \(session.peer) sent no hello in time"))
            actions.append(
                .refuse(
                    id, ProtocolError(.notJoined, "no hello within \(helloTimeout.milliseconds / 1000) s"),
                    code: 4408, reason: "no hello"))
        }
        return actions
    }

    // MARK: Messages

    /// A message (or what failed to parse) on connection `id`: rate limits first, then what its
    /// phase makes of it.
    func received(
        _ parsed: Result<ClientMessage, ProtocolError>, on id: ConnectionID, now: Instant, stalled: Int64
    ) -> Received {
        guard let session = table[id] else { return .ignored }
        switch session.phase {
        case .closing, .forwarded: return .ignored  // A forwarded connection's messages go to its owner.
        default: break
        }
        if let refused = overRate(session, parsed, now: now, stalled: stalled) { return .act(refused) }
        let message: ClientMessage
        switch parsed {
        case .success(let m): message = m
        case .failure(let error): return .malformed(error)
        }
        if case .ping = message { return .answer(.pong) }
        switch session.phase {
        case .closing, .forwarded: return .ignored
        case .joined(let board, let user):
            switch message {
            case .hello: return .answer(Self.alreadyJoined(board))
            case .auth(let token): return .auth(session, token: token, board: board)
            default: return .board(session, message, board: board, user: user)
            }
        case .awaitingHello:
            guard case .hello(let board, let name, let since, let token, let member) = message else {
                return .answer(.error(ProtocolError(.notJoined, "send hello first")))
            }
            stopAwaitingHello(id)
            let hello = Hello(board: board, name: name, since: since, token: token, member: member, message: message)
            return .hello(session, hello)
        case .joining(var join):
            switch message {
            case .hello: return .answer(Self.alreadyJoined(join.board))
            case .auth(let token): return .auth(session, token: token, board: join.board)
            default: break
            }
            guard join.queued.count < config.maxMessagesWhileJoining else {
                return .act([
                    .limitHit(.joiningQueue),
                    .log(
                        .warning, "\(id) from \(session.peer) sent too much before its board loaded; closing with 1008"),
                    .close(id, code: 1008, reason: "too many messages before welcome", flush: false),
                ])
            }
            session.phase = .awaitingHello  // Drop the phase's copy of the queue before appending.
            join.queued.append(message)
            session.phase = .joining(join)
            return .queued
        }
    }

    private static func alreadyJoined(_ board: BoardID) -> ServerMessage {
        .error(ProtocolError(.alreadyJoined, "this connection already joined board \(board)"))
    }

    /// Takes a token for `message` from the session's buckets: nil when it may be handled (no
    /// array is made then). Otherwise the message is refused with `rate_limited`, and a connection
    /// that keeps going past its limits (out of strikes) is closed with 1008.
    private func overRate(
        _ session: Session, _ message: Result<ClientMessage, ProtocolError>, now: Instant, stalled: Int64
    ) -> [Action]? {
        var opID: OpID?
        switch message {
        case .success(.op(let request)): opID = request.opID
        case .success(.drop(_, let action?)): opID = action.opID
        default: break
        }
        let allowed =
            opID != nil
            ? session.ops.take(config.opRate, now: now, stalled: stalled)
            : session.messages.take(config.messageRate, now: now, stalled: stalled)
        if allowed { return nil }
        var actions: [Action] = [.rateLimited(opID != nil ? .op : .message)]
        if !session.strikes.take(config.strikeRate, now: now, stalled: stalled) {
            actions.append(.limitHit(.rateStrikes))
            actions.append(
                .log(
                    .warning, "\(session.id) from \(session.peer) keeps going over its rate limits; closing with 1008"))
            actions.append(.close(session.id, code: 1008, reason: "rate limit exceeded", flush: false))
            return actions
        }
        let what = opID != nil ? "ops" : "messages"
        if !session.rateLimitLogged {
            session.rateLimitLogged = true
            actions.append(
                .log(.warning, "\(session.id) from \(session.peer) sends \(what) faster than its limit; refusing them"))
        }
        actions.append(
            .send(session.id, .error(ProtocolError(.rateLimited, "too many \(what); slow down", opID: opID?.rawValue))))
        return actions
    }

    /// Charges the session's op rate `amount` ops more (a restore, by its size: Hub+History.swift).
    func charge(_ session: Session, ops amount: Double, now: Instant, stalled: Int64) {
        session.ops.charge(amount, config.opRate, now: now, stalled: stalled)
    }

    // MARK: Joining

    /// Its `hello` passed with `claims` (its token's, or a trusted proxy's): the session takes
    /// their role and, with access control, their expiry and token id. The join it asks for.
    func signIn(_ session: Session, _ hello: Hello, claims: Claims) -> Session.Join {
        session.role = claims.role
        if config.auth != nil {
            session.token =
                claims.viaProxy
                ? SessionToken(expires: claims.expires, id: nil, proxy: session.token?.proxy)
                : SessionToken(expires: claims.expires, id: hello.token.map(TokenAuthority.revocationID(of:)))
        }
        // With tokens on, a client cannot claim a member its token does not name.
        let joinAs = claims.member ?? (config.auth == nil ? hello.member : nil)
        return Session.Join(
            board: hello.board, name: claims.name ?? hello.name, member: joinAs, since: hello.since,
            hello: hello.message)
    }

    /// The session waits for its board (loading, or claimed in a cluster).
    func beginJoin(_ session: Session, _ join: Session.Join) { session.phase = .joining(join) }

    /// A joining session's board is in memory with `boardUsers` users on it: it joins as a new
    /// user, unless that is `maxUsersPerBoard` already (refused with `board_full` and 4409).
    func seat(_ session: Session, boardUsers: Int) -> Seating {
        guard case .joining(let join) = session.phase else { return .notJoining }
        if config.maxUsersPerBoard > 0 && boardUsers >= config.maxUsersPerBoard {
            return .refused([
                .limitHit(.usersPerBoard),
                .log(.warning, "\(session.id) from \(session.peer) asked for board \(join.board), which is full"),
                .refuse(
                    session.id, ProtocolError(.boardFull, "board \(join.board) has \(boardUsers) users, its most"),
                    code: 4409, reason: "board full"),
            ])
        }
        let user = makeUser(name: join.name, member: join.member)
        session.phase = .joined(join.board, user.id)
        return .joined(user, join)
    }

    /// The session of `id` and its join, while it waits for its board here.
    func joining(_ id: ConnectionID) -> (session: Session, join: Session.Join)? {
        guard let session = table[id], case .joining(let join) = session.phase else { return nil }
        return (session, join)
    }

    /// A new user, numbered after the last, with its number's color.
    func makeUser(name: String, member: MemberID? = nil) -> User {
        lastUser += 1
        return User(
            id: UserID(number: lastUser), name: name, color: User.color(forUserNumber: lastUser), member: member)
    }

    // MARK: Forwarding (in a cluster: Hub+Cluster.swift has the rules)

    /// The joining session goes to its board's owner, node `node`: the transport relays it from now on.
    func forward(_ session: Session, to node: String) {
        guard case .joining(let join) = session.phase else { return }
        session.phase = .forwarded(join, node: node)
    }

    /// The session of `id`, its join and the node it is forwarded to, while it is forwarded.
    func forwarded(_ id: ConnectionID) -> (session: Session, join: Session.Join, node: String)? {
        guard let session = table[id], case .forwarded(let join, let node) = session.phase else { return nil }
        return (session, join, node)
    }

    /// A forwarded session whose forward never got through waits for its board here again, with `join`.
    func rejoin(_ session: Session, _ join: Session.Join) {
        guard case .forwarded = session.phase else { return }
        session.phase = .awaitingHello  // Drop the phase's copy of the join before changing it.
        session.phase = .joining(join)
    }

    /// The sessions forwarded to nodes not in `alive`, in connection order.
    func forwards(toNodesNotIn alive: Set<String>) -> [(id: ConnectionID, board: BoardID, node: String)] {
        var gone: [(id: ConnectionID, board: BoardID, node: String)] = []
        for (id, session) in table {
            guard case .forwarded(let join, let node) = session.phase, !alive.contains(node) else { continue }
            gone.append((id, join.board, node))
        }
        return gone.sorted { $0.id < $1.id }
    }

    /// The session of `id` and the board it waits for an answer about (joining, or forwarded).
    func waiting(_ id: ConnectionID) -> (session: Session, board: BoardID)? {
        guard let session = table[id] else { return nil }
        switch session.phase {
        case .joining(let join), .forwarded(let join, _): return (session, join.board)
        default: return nil
        }
    }

    // MARK: Tokens and roles (the rules are Access's: Hub+Tokens.swift, Hub+Grants.swift, Hub+Proxy.swift)

    /// At the upgrade: what a trusted proxy's headers said, kept until `hello`.
    func keepProxy(_ decision: ProxyAuth.Decision, for session: Session) {
        session.token = SessionToken(expires: .max, id: nil, proxy: decision)
    }

    /// `auth` gave the session a new token (`raw`, whose revocation id is `id`) and `role`; a
    /// joining session's `hello` carries the new token from now on (a forward sends it on).
    func adopt(_ session: Session, role: Role, expires: Int64, token raw: String, id: String) {
        session.role = role
        session.token = SessionToken(expires: expires, id: id)
        if case .joining(var join) = session.phase,
            case .hello(let board, let name, let since, _, let member) = join.hello
        {
            session.phase = .awaitingHello  // Drop the phase's copy of the join before changing it.
            join.hello = .hello(board: board, name: name, since: since, token: raw, member: member)
            session.phase = .joining(join)
        }
    }

    /// The session takes `role`; the role it had.
    func assign(_ role: Role, to session: Session) -> Role {
        let before = session.role
        session.role = role
        return before
    }

    /// The sessions of `member`, signed in by a trusted proxy, on `board`: those joining or on it
    /// whose role is not `role`, and those forwarded to its owner, each in connection order.
    func proxySessions(of member: MemberID, on board: BoardID, notAs role: Role)
        -> (changed: [Session], relayed: [ConnectionID])
    {
        var changed: [Session] = []
        var relayed: [ConnectionID] = []
        for (id, session) in table {
            guard case .user(let user)? = session.token?.proxy, user.member == member else { continue }
            switch session.phase {
            case .joined(let id, _) where id == board && session.role != role: changed.append(session)
            case .joining(let join) where join.board == board && session.role != role: changed.append(session)
            // Relayed to the board's owner under a token with the old role: it joins again.
            case .forwarded(let join, _) where join.board == board: relayed.append(id)
            default: continue
            }
        }
        return (changed.sorted { $0.id < $1.id }, relayed.sorted())
    }

    /// The sessions joining or on a board whose token `ends` says no longer holds, in connection
    /// order. Forwarded sessions are their owner's; one awaiting `hello` or closing has none.
    func ending(_ ends: (SessionToken?) -> Bool) -> [ConnectionID] {
        var ended: [ConnectionID] = []
        for (id, session) in table where ends(session.token) {
            switch session.phase {
            case .joining, .joined: ended.append(id)
            case .awaitingHello, .forwarded, .closing: break
            }
        }
        return ended.sorted()
    }
}

/// One WebSocket connection as the hub sees it. Every idle connection on the server has one,
/// so what only a joining or forwarded connection needs is kept out of line (`Join`). Only
/// `Sessions` changes it (its setters are this file's).
final class Session {
    enum Phase {
        /// Connected; `hello` not yet seen.
        case awaitingHello
        /// `hello` seen; the board is being loaded. Messages that arrive meanwhile wait in order.
        indirect case joining(Join)
        /// On a board as a user.
        case joined(BoardID, UserID)
        /// In a cluster: relayed to the board's owner, node `node`, by the transport; the hub
        /// sees no more of its messages. The `Join` (the `hello` and what followed it) is kept
        /// for a retry when the owner never answers.
        indirect case forwarded(Join, node: String)
        /// The server decided to close it; nothing it sends matters any more.
        case closing
    }

    /// A connection on its way to a board.
    struct Join {
        var board: BoardID
        /// The name it joins with (its token's, or its `hello`'s).
        var name: String
        /// The member it joins as: its token's `sub`; else, without access control, its
        /// `hello`'s `member`; else nil (its user id stands for one).
        var member: MemberID? = nil
        var since: Seq?
        /// Its `hello` as it arrived (a forward sends it on to the board's owner).
        var hello: ClientMessage
        /// What it sent after `hello`, not handled yet.
        var queued: [ClientMessage] = []
    }

    let id: ConnectionID
    let peer: String
    /// Another node forwarded it here (`Event.opened`): it is never forwarded on (Hub+Cluster.swift).
    let relayed: Bool
    /// Read and changed by `Sessions` alone; others ask `seat`, or `Sessions` (`joining`, `forwarded`, `waiting`).
    fileprivate var phase: Phase = .awaitingHello
    /// Whether this connection counts against its address's connections.
    fileprivate(set) var counted = false
    /// Whether the log has said that it goes over its rate limits (it says so once).
    fileprivate var rateLimitLogged = false
    /// What its token allows (everything without access control).
    fileprivate(set) var role = Role.admin
    /// Its token, with access control (nil without: nothing expires or is revoked). Out of line,
    /// so that a session without one is 16 bytes smaller: every idle connection has a session.
    fileprivate(set) var token: SessionToken?
    /// Rate limits (`Hub.Config` has the rates; a bucket whose rate is nil is never asked).
    fileprivate var ops: TokenBucket
    fileprivate var messages: TokenBucket
    fileprivate var strikes: TokenBucket

    fileprivate init(
        id: ConnectionID, peer: String, relayed: Bool, config: Hub.Config, now: Instant, stalled: Int64
    ) {
        self.id = id
        self.peer = peer
        self.relayed = relayed
        ops = TokenBucket(config.opRate, now: now, stalled: stalled)
        messages = TokenBucket(config.messageRate, now: now, stalled: stalled)
        strikes = TokenBucket(config.strikeRate, now: now, stalled: stalled)
    }

    /// The board it is on and its user there, once joined.
    var seat: (board: BoardID, user: UserID)? { phase.seat }
}

extension Session.Phase {
    /// The board and user of a joined session.
    var seat: (board: BoardID, user: UserID)? {
        guard case .joined(let board, let user) = self else { return nil }
        return (board, user)
    }
}
