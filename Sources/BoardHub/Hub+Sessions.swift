internal import BoardAuth
internal import BoardCore

/// One WebSocket connection as the hub sees it. Every idle connection on the server has one,
/// so what only a joining or forwarded connection needs is kept out of line (`Join`).
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
        /// `hello`'s `member`; else nil (its user id stands for one). With tokens on, a client
        /// cannot claim a member its token does not name.
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
    var phase: Phase = .awaitingHello
    /// Whether this connection counts against its address's connections.
    var counted = false
    /// Whether the log has said that it goes over its rate limits (it says so once).
    var rateLimitLogged = false
    /// What its token allows (everything without access control).
    var role = Role.admin
    /// Its token, with access control (nil without: nothing expires or is revoked). Out of line,
    /// so that a session without one is 16 bytes smaller: every idle connection has a session.
    var token: SessionToken?
    /// Rate limits (`Hub.Config` has the rates; a bucket whose rate is nil is never asked).
    var ops: TokenBucket
    var messages: TokenBucket
    var strikes: TokenBucket

    init(id: ConnectionID, peer: String, relayed: Bool = false, config: Hub.Config, now: Instant, stalled: Int64) {
        self.id = id
        self.peer = peer
        self.relayed = relayed
        ops = TokenBucket(config.opRate, now: now, stalled: stalled)
        messages = TokenBucket(config.messageRate, now: now, stalled: stalled)
        strikes = TokenBucket(config.strikeRate, now: now, stalled: stalled)
    }
}

/// What a session keeps of its token, with access control.
final class SessionToken {
    /// When it expires, in seconds since 1970 (Hub+Tokens.swift).
    var expires: Int64
    /// Its id, for revocations (Hub+Revocations.swift); nil for a session let in without one.
    var id: String?
    /// Before `hello`: what a trusted proxy's headers said at the upgrade; after: the member a
    /// trusted proxy signed in, whose grants set the session's role (Hub+Proxy.swift).
    var proxy: ProxyAuth.Decision?

    init(expires: Int64, id: String?, proxy: ProxyAuth.Decision? = nil) {
        self.expires = expires
        self.id = id
        self.proxy = proxy
    }
}

/// The session rules: phases, hello, joining and leaving a board.
extension Hub {
    func opened(_ id: ConnectionID, peer: String, relayed: Bool = false, proxy: ProxyHeaders? = nil) {
        let session = Session(id: id, peer: peer, relayed: relayed, config: config, now: now, stalled: stalled)
        sessions.add(session)
        if let proxy { proxyOpened(session, proxy) }
        log(.info, "\(id) opened from \(peer)")
        if stopping { return closeSession(id, code: 1001, reason: "server shutting down", flush: false) }
        guard admit(session) else { return }
        sessions.awaitHello(id, since: now)
    }

    func closed(_ id: ConnectionID) {
        guard let session = sessions.remove(id) else { return }
        cluster.ended(id)
        log(.debug, "\(id) closed")
        release(session)
        leaveBoard(session)
        if case .stopping = turn.lifecycle, sessions.isEmpty { stop() }
    }

    /// Closes a connection as the protocol says; it is deaf from now on.
    func closeSession(_ id: ConnectionID, code: UInt16, reason: String, flush: Bool) {
        guard let session = sessions[id] else { return }
        if case .closing = session.phase { return }
        leaveBoard(session)
        cluster.ended(id)
        session.phase = .closing
        emit(.close(id, code: code, reason: reason, flush: flush))
    }

    /// Takes a joined session off its board (when the board still counts it as on it).
    private func leaveBoard(_ session: Session) {
        guard case .joined(let boardID, let user) = session.phase, let host = boards[boardID],
            host.remove(user, on: session.id)
        else { return }
        perform(host.room.leave(user, now: now), on: host)
        evictIfIdle(host)
    }

    /// Sends a final error, then closes with `code` once it is out.
    func refuse(_ id: ConnectionID, _ error: ProtocolError, code: UInt16, reason: String) {
        send(.error(error), to: id)
        closeSession(id, code: code, reason: reason, flush: true)
    }

    func received(_ parsed: Result<ClientMessage, ProtocolError>, on id: ConnectionID) {
        guard let session = sessions[id] else { return }
        switch session.phase {
        case .closing, .forwarded: return  // A forwarded connection's messages go to its owner.
        default: break
        }
        guard withinRate(session, parsed) else { return }
        let message: ClientMessage
        switch parsed {
        case .success(let m): message = m
        case .failure(let error):
            log(.debug, "\(id): \(error.code.rawValue): \(error.message)")
            if case .closing = session.phase { return }
            send(.error(error), to: id)
            return
        }
        if case .ping = message {
            if case .closing = session.phase { return }
            send(.pong, to: id)
            return
        }
        if case .auth(let token) = message { return refresh(session, token: token) }
        switch session.phase {
        case .closing, .forwarded:
            return
        case .awaitingHello:
            guard case .hello(let board, let name, let since, let token, let member) = message else {
                send(.error(ProtocolError(.notJoined, "send hello first")), to: id)
                return
            }
            sessions.stopAwaitingHello(id)
            guard let claims = authorize(session, token: token, board: board) else { return }
            session.role = claims.role
            if config.auth != nil {
                session.token =
                    claims.viaProxy
                    ? SessionToken(expires: claims.expires, id: nil, proxy: session.token?.proxy)
                    : SessionToken(expires: claims.expires, id: token.map(TokenAuthority.revocationID(of:)))
            }
            let joinAs = claims.member ?? (config.auth == nil ? member : nil)
            hello(
                session,
                Session.Join(board: board, name: claims.name ?? name, member: joinAs, since: since, hello: message))
        case .joining(var join):
            if case .hello = message {
                send(
                    .error(ProtocolError(.alreadyJoined, "this connection already joined board \(join.board)")), to: id)
                return
            }
            guard join.queued.count < config.maxMessagesWhileJoining else {
                meters.limitHits.add(.joiningQueue)
                log(.warning, "\(id) from \(session.peer) sent too much before its board loaded; closing with 1008")
                closeSession(id, code: 1008, reason: "too many messages before welcome", flush: false)
                return
            }
            session.phase = .awaitingHello  // Drop the phase's copy of the queue before appending.
            join.queued.append(message)
            session.phase = .joining(join)
        case .joined(let boardID, let user):
            if case .hello = message {
                send(.error(ProtocolError(.alreadyJoined, "this connection already joined board \(boardID)")), to: id)
                return
            }
            // The board may have been deleted (and even recreated) while this connection closes.
            guard let host = boards[boardID], host.connection(of: user) == id else { return }
            guard permits(session, message, on: host) else { return }
            let message = withinStoreBacklog(message, on: host, to: id)
            perform(
                host.room.handle(
                    message, from: user, address: session.peer, admin: session.role >= .admin, now: now, wall: wall),
                on: host)
        }
    }

    /// `message`, or, when the board already has `maxUnstoredOps` ops waiting for the store (the
    /// store is failing: a full disk, a database away), what is left of it without a new op: an
    /// op is refused at once with `unavailable` (it was not applied; the client may send it again
    /// later with the same op id), and a drop with an action becomes a plain drop. So memory stays
    /// bounded however long the store fails, and nobody waits on an op that cannot be stored soon.
    private func withinStoreBacklog(_ message: ClientMessage, on host: BoardHost, to id: ConnectionID)
        -> ClientMessage
    {
        // Two stored fields read where they are (`let room = host.room` copied the whole room
        // for each message).
        guard config.maxUnstoredOps > 0,
            host.room.sequencer.seq - host.room.visibleSeq >= Seq(config.maxUnstoredOps)
        else { return message }
        let text =
            "the store is not keeping up (\(config.maxUnstoredOps) ops wait for it); not applied, send it again later"
        switch message {
        case .op(let request):
            meters.limitHits.add(.unstoredOps)
            send(.error(ProtocolError(.unavailable, text, opID: request.opID.rawValue)), to: id)
            return .ping  // A room ignores it.
        case .drop(let item, let action?):
            meters.limitHits.add(.unstoredOps)
            send(.error(ProtocolError(.unavailable, text, opID: action.opID.rawValue)), to: id)
            return .drop(item: item, action: nil)
        default:
            return message
        }
    }

    private func hello(_ session: Session, _ join: Session.Join) {
        let board = join.board
        if isDeleting(board) {
            log(.warning, "\(session.id) asked for board \(board) while it is being deleted")
            refuse(
                session.id, ProtocolError(.unavailable, "board \(board) cannot be loaded right now"), code: 1011,
                reason: "board unavailable")
            return
        }
        session.phase = .joining(join)
        if config.cluster != nil { cluster.awaitAnswer(session.id, until: now + timers.joinDeadline) }
        seekBoard(for: session, board)
    }

    /// Puts a joining session on its board: at once when it is in memory, otherwise once the
    /// store has answered (or claimed it, in a cluster), unless memory holds all the boards it may.
    func seekBoard(for session: Session, _ board: BoardID) {
        if let host = boards[board] {
            join(session, host)
        } else if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            log(.warning, "\(session.id) asked for board \(board) with \(boards.count) boards in memory")
            refuse(
                session.id, ProtocolError(.unavailable, "the server is full; try again later"), code: 1013,
                reason: "server full")
        } else {
            defer_(.join(session.id), on: board)
        }
    }

    /// Puts a joining session on a loaded board, then handles what it sent meanwhile.
    func join(_ session: Session, _ host: BoardHost) {
        guard case .joining(let join) = session.phase else { return }
        let boardID = join.board
        if config.maxUsersPerBoard > 0 && host.members.count >= config.maxUsersPerBoard {
            meters.limitHits.add(.usersPerBoard)
            log(.warning, "\(session.id) from \(session.peer) asked for board \(boardID), which is full")
            return refuse(
                session.id, ProtocolError(.boardFull, "board \(boardID) has \(host.members.count) users, its most"),
                code: 4409, reason: "board full")
        }
        let user = sessions.makeUser(name: join.name, member: join.member)
        session.phase = .joined(boardID, user.id)
        cluster.answered(session.id)
        host.add(user.id, on: session.id)
        meters.joins.add()
        log(.info, "\(user.id) \"\(join.name)\" joined board \(boardID) from \(session.peer)")
        perform(host.room.join(user, since: join.since), on: host)
        for message in join.queued {
            guard case .joined = session.phase else { break }
            received(.success(message), on: session.id)
        }
    }

    /// A joining session whose board cannot be had.
    func failJoin(_ id: ConnectionID, _ answer: BoardAbsence) {
        guard let session = sessions[id], case .joining(let join) = session.phase else { return }
        let board = join.board
        switch answer {
        case .unknown:
            refuse(id, ProtocolError(.unknownBoard, "there is no board \(board)"), code: 4404, reason: "unknown board")
        case .unknownForViewer:
            refuse(
                id, ProtocolError(.unknownBoard, "there is no board \(board), and a view token cannot create one"),
                code: 4404, reason: "unknown board")
        case .deleted:
            closeSession(id, code: 4410, reason: "board deleted", flush: true)
        case .unavailable:
            refuse(
                id, ProtocolError(.unavailable, "board \(board) cannot be loaded right now"), code: 1011,
                reason: "board unavailable")
        }
    }
}

/// Why a joining session does not get its board.
enum BoardAbsence {
    /// No such board, and boards are not created on hello.
    case unknown
    /// No such board, and the session may only view: viewing never creates a board.
    case unknownForViewer
    /// The board was deleted before the session was on it.
    case deleted
    /// The store failed.
    case unavailable
}
