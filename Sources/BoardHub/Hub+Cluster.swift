internal import Basics
internal import BoardCore
internal import BoardStore

/// The cluster rules: one owner per board, by a lease in the shared store (`ClusterStore`).
///
/// - **Claims.** The hub never loads a board it has not claimed: where one node would read the
///   store (`hello`, `POST`, `DELETE` of a board not in memory), a node claims the board's lease
///   instead. When it gets the lease the board is loaded, and the work goes on as on one node.
///   When another node owns it, each waiting `hello` is forwarded there (`.forward`: the
///   transport relays the connection both ways from then on), a create is answered 409, and a
///   delete claims again with `force`, fencing the owner, and deletes as the new owner.
/// - **Leases.** The node's renewal thread renews every lease/3 and says which boards it still
///   holds and until when (`.leases`). A board in memory whose lease was not renewed is lost: it
///   is dropped and its clients closed with 1012, so that they resume with `since` on whichever
///   node owns it. So is every board whose lease has surely run out by this node's monotonic
///   clock (no renewal for a whole lease: the store unreachable, the process paused), checked on
///   every tick, and every board whose write comes back fenced. A claim counts as held from its
///   sending for one lease, until a renewal covers it.
/// - **Releases.** A board that leaves memory gives its lease up after the writes queued for it
///   (`.release`, carried out on the writer thread). Until the store says it is done
///   (`.released`), the board is not claimed again: a new claim could otherwise let writes of
///   the old room, still queued, commit under the new one.
/// - **Forwards.** A forward the owner never answered (refused, or failed before anything came
///   back) is tried again: the board is claimed again after 250 ms, doubling to 2 s, for three
///   leases in all, so that a dead owner's board is taken over once its lease lapses; then the
///   client is closed with 1013. One the owner answered ends with the owner's code when that
///   code is about the client (4401, 4404, 4409, 1008, …) and with 1012 otherwise (the owner went
///   away: the client resumes). Forwards to a node the renewals no longer find alive are closed
///   with 1012.
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
        if session.relayed {
            // Another node forwarded it here, taking this node for the owner, and it is not (any
            // more: it gave the board up, or a delete took it). Forwarded on, it would reach
            // nobody (the transport relays only its own clients' sockets). Closed unanswered, it
            // makes the forwarding node claim the board again and forward it to the owner itself.
            log(.info, "\(id) came forwarded for board \(join.board), which is on node \(node) now; sending it back")
            return closeSession(id, code: 1012, reason: "board moved; try again", flush: false)
        }
        let messages = [relayable(join.hello, for: session)] + join.queued  // Hub+Proxy.swift
        sessions.forward(session, to: node)
        log(.info, "\(id) from \(session.peer): board \(join.board) is on node \(node); forwarding to \(advertise)")
        emit(.forward(id, advertise: advertise, messages: messages))
    }

    /// The renewal thread renewed this node's leases: boards in memory that are not among `held`
    /// are lost, unless they were claimed after the renewal began; forwards to nodes that are
    /// not `alive` are closed.
    func leases(held: Set<BoardID>, validUntil: Instant, alive: Set<String>) {
        guard config.cluster != nil else { return }
        let renewalBegan = validUntil - timers.lease
        var lost: [BoardID] = []
        for (id, host) in boards {
            guard let lease = host.lease else { continue }
            if held.contains(id) {
                host.lease!.until = max(lease.until, validUntil)
            } else if lease.claimAnswered < renewalBegan {
                // The claim was in the store before the renewal began, which did not find it.
                lost.append(id)
            }
        }
        for id in lost.sorted() {
            log(.warning, "board \(id): this node's lease on it was not renewed (another node has it, or it ran out)")
            dropBoard(id, because: .moved)
        }
        for (id, board, node) in sessions.forwards(toNodesNotIn: alive) {
            log(.info, "\(id): board \(board)'s owner, node \(node), is no longer alive; closing with 1012")
            closeSession(id, code: 1012, reason: "board owner gone; reconnect", flush: false)
        }
    }

    /// The owner's end of a forwarded connection ended.
    func forwardEnded(_ id: ConnectionID, code: UInt16?, answered: Bool, unrelayed: [ClientMessage]) {
        guard config.cluster != nil, let (session, forwarded, node) = sessions.forwarded(id) else { return }
        var join = forwarded
        let board = join.board
        if let code, Self.isFinal(code) {
            log(.debug, "\(id): node \(node) closed the forward of board \(board) with \(code)")
            // After what the owner sent before its close (its final error, over a node link
            // in the same read as the close), as the owner's own client would get it.
            return closeSession(id, code: code, reason: "closed by the board's owner", flush: true)
        }
        if answered {
            log(.info, "\(id): node \(node), owner of board \(board), went away; closing with 1012")
            return closeSession(id, code: 1012, reason: "board owner gone; reconnect", flush: false)
        }
        var retry = join.retry ?? ForwardRetry(giveUpAt: now + 3 * timers.lease)
        join.queued += unrelayed
        guard join.queued.count <= config.maxMessagesWhileJoining else {
            meters.limitHits.add(.joiningQueue)
            return closeSession(id, code: 1008, reason: "too many messages before welcome", flush: false)
        }
        guard now + retry.delay <= retry.giveUpAt else {
            log(.warning, "\(id) from \(session.peer): board \(board)'s owner, node \(node), cannot be reached")
            return refuse(
                id, ProtocolError(.unavailable, "board \(board) cannot be reached right now; try again later"),
                code: 1013, reason: "board owner unreachable")
        }
        log(.info, "\(id): node \(node) did not answer for board \(board); trying again in \(retry.delay) ms")
        retry.due = now + retry.delay
        retry.delay = min(retry.delay * 2, ForwardRetry.longestDelay)
        join.retry = retry
        sessions.rejoin(session, join)
        cluster.retry(id)
    }

    /// Whether the owner's close `code` is about the client (so this node closes it the same way)
    /// rather than about the owner (which went away: the client should resume elsewhere).
    static func isFinal(_ code: UInt16) -> Bool {
        switch code {
        case 1000, 1003, 1007, 1008, 1009, 1013: true
        case 4000...4999: true
        default: false
        }
    }

    /// On each tick: boards whose lease has surely run out leave memory; retries that are due
    /// claim their board again; joins past their deadline end.
    func clusterTick() {
        expireHTTPForwards()
        expireJoins()
        var expired: [BoardID] = []
        for (id, host) in boards {
            if let lease = host.lease, now >= lease.until { expired.append(id) }
        }
        for id in expired.sorted() {
            log(.warning, "board \(id): no renewal of its lease for a whole lease; it may be another node's by now")
            dropBoard(id, because: .moved)
        }
        for id in cluster.retries {
            guard let (session, join) = sessions.joining(id), let retry = join.retry else {
                cluster.endRetry(id)
                continue
            }
            guard now >= retry.due else { continue }
            cluster.endRetry(id)
            if isDeleting(join.board) {
                failJoin(id, .unavailable)
            } else {
                seekBoard(for: session, join.board)
            }
        }
    }

    /// The backstop behind every rule above: a session that said `hello` and has had no answer
    /// `timers.joinDeadline` later (no `welcome` here, nothing from the owner it was forwarded
    /// to), whatever the owners did meanwhile, gets `unavailable` and 1013, and tries again.
    func expireJoins() {
        for id in cluster.lateJoins(now: now) {
            guard let (session, board) = sessions.waiting(id) else { continue }
            meters.limitHits.add(.joinDeadline)
            log(.warning, "\(id) from \(session.peer): no answer for board \(board) in time; closing with 1013")
            refuse(
                id, ProtocolError(.unavailable, "board \(board) did not answer in time; try again"), code: 1013,
                reason: "no answer in time")
        }
    }

    // MARK: HTTP

    /// Relays a REST op on a board another node owns to that node (`.forwardHTTP`): the owner
    /// checks its token, limits and rules as for its own clients, counting it against the
    /// original client's address (the transport sends that with the cluster key), and its answer
    /// goes back unchanged (`forwardedAnswer`). 503 `elsewhere` instead when the request came
    /// relayed already (the board moved meanwhile), when the owner's address is unknown, or when
    /// `maxHTTPForwards` wait already; and when the owner does not answer within `forwardTimeout`.
    func forwardREST(_ exchange: ExchangeID, _ request: HTTPRequest, board: BoardID, to node: String, advertise: String)
    {
        guard let cluster = config.cluster, !request.forwarded, !advertise.isEmpty else {
            return emit(.respond(exchange, Self.ownedElsewhere(board, by: node)))
        }
        guard self.cluster.forwardCount < cluster.maxHTTPForwards else {
            meters.limitHits.add(.httpForwards)
            log(
                .warning,
                "\(exchange): \(self.cluster.forwardCount) REST requests wait for their owners already; answering 503")
            return emit(.respond(exchange, Self.ownedElsewhere(board, by: node)))
        }
        self.cluster.relay(exchange, HTTPForward(board: board, node: node, deadline: now + timers.forwardTimeout))
        log(
            .debug,
            "\(exchange) from \(request.peer): board \(board) is on node \(node); relaying the op to \(advertise)")
        emit(.forwardHTTP(exchange, advertise: advertise, relayable(request, board: board)))
    }

    /// The owner's answer to a relayed request (nil: none came): to its client, unchanged.
    func forwardedAnswer(_ exchange: ExchangeID, _ response: HTTPResponse?) {
        guard let forward = cluster.relayEnded(exchange) else { return }
        if let response { return emit(.respond(exchange, response)) }
        log(.info, "\(exchange): node \(forward.node), owner of board \(forward.board), did not answer a relayed op")
        emit(.respond(exchange, Self.ownedElsewhere(forward.board, by: forward.node)))
    }

    /// On each tick: relayed requests whose owner did not answer in time get 503 `elsewhere`
    /// (the transport drops the owner's answer if it still comes).
    func expireHTTPForwards() {
        for (exchange, forward) in cluster.lateRelays(now: now) {
            log(.info, "\(exchange): node \(forward.node), owner of board \(forward.board), did not answer in time")
            emit(.respond(exchange, Self.ownedElsewhere(forward.board, by: forward.node)))
        }
    }

    /// 503 `elsewhere` for a REST op on a board another node owns that could not be relayed
    /// there (`forwardREST`): an event stream opens and ends instead (`EventStreams.elsewhere`).
    /// Through HAProxy, `?board=ID` in the URL sends the request to the node that board's
    /// WebSocket clients reach, which is the owner unless the board just moved.
    static func ownedElsewhere(_ board: BoardID, by node: String) -> HTTPResponse {
        var response = HTTPResponse.json(503) { w in
            w.beginObject()
            w.write("error", "elsewhere")
            w.write(
                "message",
                "board \(board) is served by node \(node), which cannot be reached from here right now; "
                    + "try again (through HAProxy: add ?board=\(board))")
            w.write("owner", node)
            w.endObject()
        }
        response.headers.append(HTTPResponse.Header("retry-after:", "1"))
        return response
    }

    /// `GET /api/cluster`: this node's name and every node the store knows. With access control,
    /// only an admin token for every board may read it (it names internal addresses).
    func clusterRequest(_ request: HTTPRequest, exchange: ExchangeID) {
        guard request.method == .get || request.method == .head else {
            return emit(.respond(exchange, .methodNotAllowed("GET")))
        }
        guard let claims = authorize(request, exchange: exchange) else { return }
        guard claims.board == nil && claims.role == .admin else {
            return emit(.respond(exchange, Self.forbidden("reading the cluster (an admin token for every board can)")))
        }
        guard config.cluster != nil else {
            return emit(.respond(exchange, .error(404, "not_clustered", "this server is not part of a cluster")))
        }
        read(
            .nodes(Self.answering(exchange) { hub, nodes in hub.emit(.respond(exchange, hub.clusterAnswer(nodes))) }),
            for: exchange)
    }

    /// `{"node": this node, "nodes": [{"name", "advertise", "alive", "boards"}]}`.
    func clusterAnswer(_ nodes: [ClusterNode]) -> HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.write("node", config.cluster?.node)
            w.beginArray("nodes")
            for node in nodes {
                w.beginObject()
                w.write("name", node.name)
                w.write("advertise", node.advertise)
                w.write("alive", node.alive)
                w.write("boards", node.boards)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
    }
}

/// What a node knows of its lease on a board in memory.
struct LeaseView {
    /// Until when the lease surely holds by this node's monotonic clock: the claim's sending or
    /// the last renewal that held it began, plus one lease.
    var until: Instant
    /// When the claim's answer arrived: a renewal that began later must have found the lease.
    var claimAnswered: Instant
}

/// A REST request relayed to its board's owner (`Hub.forwardREST`).
struct HTTPForward {
    var board: BoardID
    var node: String
    /// When its client gets 503 if the owner has not answered.
    var deadline: Instant
}

/// A joining session's tries to reach its board after forwards that never got through.
struct ForwardRetry {
    /// The first wait, and the longest.
    static let firstDelay: Int64 = 250
    static let longestDelay: Int64 = 2_000
    /// When to give up (three leases after the first failure).
    var giveUpAt: Instant
    /// The wait before the next try.
    var delay = firstDelay
    /// When the next try is due.
    var due = Instant(milliseconds: 0)
}
