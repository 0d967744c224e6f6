internal import BoardAuth
internal import BoardCore

/// Sessions, routed: the transport's session events go to `Sessions` (Sessions.swift, where the
/// rules are: phases, `hello`, what a joining session may send, rate limits, the `hello`
/// deadline, closing), and the hub carries its decisions out on the parts that own what they
/// touch: the boards and their rooms, the cluster's waits, access (tokens), the addresses.
extension Hub {
    func opened(_ id: ConnectionID, peer: String, relayed: Bool = false, proxy: ProxyHeaders? = nil) {
        let session = sessions.open(id, peer: peer, relayed: relayed, now: now, stalled: stalled)
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
        leaveBoard(id, from: session.seat)
        if case .stopping = turn.lifecycle, sessions.isEmpty { stop() }
    }

    /// Closes a connection as the protocol says; it is deaf from now on.
    func closeSession(_ id: ConnectionID, code: UInt16, reason: String, flush: Bool) {
        guard let phase = sessions.close(id) else { return }
        leaveBoard(id, from: phase.seat)
        cluster.ended(id)
        emit(.close(id, code: code, reason: reason, flush: flush))
    }

    /// Takes a session off the board it was on (`seat`), when the board still counts it as on it.
    private func leaveBoard(_ id: ConnectionID, from seat: (board: BoardID, user: UserID)?) {
        guard let (boardID, user) = seat, let host = boards[boardID], host.remove(user, on: id) else { return }
        perform(host.room.leave(user, now: now), on: host)
        evictIfIdle(host)
    }

    /// A session whose role fell below `edit` lets go of the item it holds, as if it had dropped
    /// it (a viewer holds nothing).
    func letGo(_ session: Session) {
        guard let (board, user) = session.seat, let host = boards[board], host.connection(of: user) == session.id,
            let held = host.room.holds.first(where: { $0.value.by == user })?.key
        else { return }
        perform(
            host.room.handle(.drop(item: held, action: nil), from: user, address: session.peer, now: now, wall: wall),
            on: host)
    }

    /// Sends a final error, then closes with `code` once it is out.
    func refuse(_ id: ConnectionID, _ error: ProtocolError, code: UInt16, reason: String) {
        send(.error(error), to: id)
        closeSession(id, code: code, reason: reason, flush: true)
    }

    /// A message on connection `id`: `Sessions` says what it comes to. A joined session's message
    /// for its board (the per-op path) comes back as `.board`, with nothing made on the way.
    func received(_ parsed: Result<ClientMessage, ProtocolError>, on id: ConnectionID) {
        switch sessions.received(parsed, on: id, now: now, stalled: stalled) {
        case .ignored, .queued: return
        case .answer(let message): send(message, to: id)
        case .malformed(let error):
            log(.debug, "\(id): \(error.code.rawValue): \(error.message)")
            send(.error(error), to: id)
        case .act(let actions): apply(actions)
        case .hello(let session, let hello):
            guard let claims = authorize(session, token: hello.token, board: hello.board) else { return }
            self.hello(session, sessions.signIn(session, hello, claims: claims))
        case .auth(let session, let token, let board): refresh(session, token: token, board: board)
        case .board(let session, let message, let boardID, let user):
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

    /// Closes the connections that have not said `hello` in time.
    func expireHellos() { apply(sessions.expireHellos(now: now)) }

    /// Carries out what `Sessions` decided, in order.
    private func apply(_ actions: [Sessions.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message): send(message, to: id)
            case .refuse(let id, let error, let code, let reason): refuse(id, error, code: code, reason: reason)
            case .close(let id, let code, let reason, let flush):
                closeSession(id, code: code, reason: reason, flush: flush)
            case .log(let level, let line): log(level, line)
            case .limitHit(let name): meters.limitHits.add(name)
            case .rateLimited(let kind): meters.rateLimited.add(kind)
            }
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
        sessions.beginJoin(session, join)
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

    /// Puts a joining session on a loaded board (unless it is full: `Sessions.seat`), then
    /// handles what it sent meanwhile.
    func join(_ session: Session, _ host: BoardHost) {
        switch sessions.seat(session, boardUsers: host.members.count) {
        case .notJoining: return
        case .refused(let actions): apply(actions)
        case .joined(let user, let join):
            cluster.answered(session.id)
            host.add(user.id, on: session.id)
            meters.joins.add()
            log(.info, "\(user.id) \"\(join.name)\" joined board \(join.board) from \(session.peer)")
            perform(host.room.join(user, since: join.since), on: host)
            for message in join.queued {
                guard session.seat != nil else { break }
                received(.success(message), on: session.id)
            }
        }
    }

    /// A joining session whose board cannot be had.
    func failJoin(_ id: ConnectionID, _ answer: BoardAbsence) { apply(sessions.failJoin(id, answer)) }
}
