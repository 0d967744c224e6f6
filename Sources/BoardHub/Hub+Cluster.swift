internal import Basics
internal import BoardCore
internal import BoardStore

/// The cluster, routed: claims go to the store, and the cluster's events (`.leases`,
/// `.forwardEnded`, `.forwardAnswered`, `.released`, `.forwardedAnswer`, the tick) go to `Cluster`
/// (Cluster/Cluster.swift, where the rules are: leases, releases, forwards and their retries, late
/// joins, relayed REST requests); the hub carries out its decisions on the parts that own what they
/// touch (the sessions, the board directory, the store's reads).
extension Hub {
    /// Asks the store for the board's lease (and the board, when this node gets it).
    func claim(_ board: BoardID, force: Bool) {
        let sent = now
        read(
            .claim(
                board, config.room, force: force,
                Reply { $0.decided(board, $1.map(BoardFound.init), claim: (sent, force)) }))
    }

    /// The board left memory: the writer forgets it once the writes queued before now are done,
    /// and in a cluster gives its lease up then; the board is not claimed again before `released`.
    func releaseLease(_ board: BoardID) {
        guard config.cluster != nil else {
            // One node: the writer still forgets its copy of the board (its replica), so that
            // the writer's memory follows the boards in memory.
            return emit(.release(board))
        }
        guard cluster.release(board) else { return }
        emit(.release(board))
    }

    /// The store has carried out the board's release: work that came meanwhile claims it now.
    func released(_ board: BoardID) {
        guard cluster.released(board), boards.isWaiting(board) else { return }
        claim(board, force: false)
    }

    /// Another node owns `board`: forwards the joins, refuses the creates, and takes the board by
    /// force for a delete (the work after the delete waits for that claim's answer).
    func ownedElsewhere(
        _ board: BoardID, by node: String, advertise: String, queue: FIFO<Deferred>, forced: Bool
    ) {
        var queue = queue
        while let work = queue.popFirst() {
            switch work {
            case .join(let id):
                forward(id, to: node, advertise: advertise)
            case .create(let exchange, _), .importBoard(let exchange, _):
                emit(
                    .respond(
                        exchange, .error(409, "exists", "board \(board) exists or is being made on node \(node)")))
            case .op(let exchange, let pending):
                forwardREST(exchange, pending.http, board: board, to: node, advertise: advertise)
            case .stream(let exchange):
                streams.elsewhere(exchange, node: node)
            case .members(let exchange, let http):
                forwardREST(exchange, http, board: board, to: node, advertise: advertise)
            case .delete(let exchange):
                if forced {
                    // A forced claim always takes the lease; a store that says otherwise failed.
                    log(.error, "a forced claim of board \(board) left it with node \(node)")
                    emit(.respond(exchange, storeFailed))
                    continue
                }
                log(.info, "\(exchange): deleting board \(board), owned by node \(node): taking it over")
                var rest = FIFO([work])
                while let next = queue.popFirst() { rest.append(next) }
                boards.waitAgain(rest, on: board)
                return claim(board, force: true)
            }
        }
    }

    /// Hands a joining session over to the board's owner: its `hello` and what it sent since go
    /// first, and the transport relays everything else both ways.
    private func forward(_ id: ConnectionID, to node: String, advertise: String) {
        guard let (session, join) = sessions.joining(id) else { return }
        apply(
            cluster.forward(
                id, board: join.board, to: node, advertise: advertise, relayed: session.relayed, peer: session.peer))
    }

    /// The renewal thread renewed this node's leases (`Cluster.renewed` says what follows).
    func leases(held: Set<BoardID>, validUntil: Instant, alive: Set<String>) {
        guard config.cluster != nil else { return }
        apply(cluster.renewed(held: held, validUntil: validUntil, alive: alive))
    }

    /// The owner's end of a forwarded connection ended: closed as `Cluster.forwardEnded` says, or
    /// joining again, with what it sent that the owner never got, until its retry is due.
    func forwardEnded(_ id: ConnectionID, code: UInt16?, answered: Bool, unrelayed: [ClientMessage]) {
        guard config.cluster != nil, let (session, forwarded, _) = sessions.forwarded(id) else { return }
        var join = forwarded
        let queued = join.queued.count + unrelayed.count
        for action in cluster.forwardEnded(
            id, code: code, answered: answered, queued: queued, peer: session.peer, now: now)
        {
            guard case .rejoin = action else {
                apply(action)
                continue
            }
            join.queued += unrelayed
            sessions.rejoin(session, join)
        }
    }

    /// On each tick: what `Cluster.tick` says is due.
    func clusterTick() { apply(cluster.tick(now: now)) }

    /// The backstop behind every rule above: a session that said `hello` and has had no answer
    /// `timers.joinDeadline` later (no `welcome` here, nothing from the owner it was forwarded
    /// to), whatever the owners did meanwhile, gets `unavailable` and 1013, and tries again.
    private func expireJoin(_ id: ConnectionID) {
        guard let (session, board) = sessions.waiting(id) else { return }
        meters.limitHits.add(.joinDeadline)
        log(.warning, "\(id) from \(session.peer): no answer for board \(board) in time; closing with 1013")
        refuse(
            id, ProtocolError(.unavailable, "board \(board) did not answer in time; try again"), code: 1013,
            reason: "no answer in time")
    }

    /// A retry came due: the session claims its board again (unless it is being deleted).
    private func seekAgain(_ id: ConnectionID) {
        guard let (session, join) = sessions.joining(id) else { return }
        if isDeleting(join.board) {
            failJoin(id, .unavailable)
        } else {
            seekBoard(for: session, join.board)
        }
    }

    // MARK: HTTP

    /// Relays a REST op on a board another node owns to that node (`.forwardHTTP`): the owner
    /// checks its token, limits and rules as for its own clients, counting it against the
    /// original client's address (the transport sends that with the cluster key), and its answer
    /// goes back unchanged (`forwardedAnswer`). `Cluster.relay` says when it gets 503 `elsewhere`
    /// instead; and it does when the owner does not answer within `forwardTimeout`.
    func forwardREST(_ exchange: ExchangeID, _ request: HTTPRequest, board: BoardID, to node: String, advertise: String)
    {
        for action in cluster.relay(
            exchange, board: board, to: node, advertise: advertise, relayedAlready: request.forwarded,
            peer: request.peer, now: now)
        {
            guard case .relay(let exchange, let advertise) = action else {
                apply(action)
                continue
            }
            emit(.forwardHTTP(exchange, advertise: advertise, relayable(request, board: board)))
        }
    }

    /// The owner's answer to a relayed request (nil: none came): to its client, unchanged.
    func forwardedAnswer(_ exchange: ExchangeID, _ response: HTTPResponse?) {
        apply(cluster.relayAnswered(exchange, response))
    }

    /// `GET /api/cluster`: this node's name and every node the store knows. With access control,
    /// only an admin token for every board may read it (it names internal addresses).
    func clusterRequest(_ request: HTTPRequest, exchange: ExchangeID) {
        guard let claims = authorize(request, exchange: exchange) else { return }
        guard claims.board == nil && claims.role == .admin else {
            return emit(.respond(exchange, Self.forbidden("reading the cluster (an admin token for every board can)")))
        }
        guard config.cluster != nil else {
            return emit(.respond(exchange, .error(404, "not_clustered", "this server is not part of a cluster")))
        }
        let answer = Self.answering(exchange) { hub, nodes in
            hub.emit(.respond(exchange, Cluster.answer(node: hub.config.cluster?.node, nodes)))
        }
        read(.nodes(answer), for: exchange)
    }

    /// Carries out what `Cluster` decided, in order.
    private func apply(_ actions: [Cluster.Action]) {
        for action in actions { apply(action) }
    }

    private func apply(_ action: Cluster.Action) {
        switch action {
        case .log(let level, let line): log(level, line)
        case .limitHit(let limit): meters.limitHits.add(limit)
        case .drop(let board): dropBoard(board, because: .moved)
        case .close(let id, let code, let reason, let flush): closeSession(id, code: code, reason: reason, flush: flush)
        case .refuse(let id, let error, let code, let reason): refuse(id, error, code: code, reason: reason)
        case .forward(let id, let node, let advertise):
            guard let (session, join) = sessions.joining(id) else { return }
            let messages = [relayable(join.hello, for: session)] + join.queued  // Hub+Proxy.swift
            sessions.forward(session, to: node)
            emit(.forward(id, advertise: advertise, messages: messages))
        case .rejoin: break  // Carried out by `forwardEnded`, which has what the owner never got.
        case .seek(let id): seekAgain(id)
        case .lateJoin(let id): expireJoin(id)
        case .respond(let exchange, let response): emit(.respond(exchange, response))
        case .relay: break  // Carried out by `forwardREST`, which has the request.
        }
    }
}
