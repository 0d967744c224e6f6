internal import BoardCore
internal import BoardStore

/// The cluster rules: one owner per board, by a lease in the shared store (`ClusterStore`), as
/// decisions returned as values (`Action`s) that the hub carries out (Hub+Cluster.swift routes the
/// cluster's events here and applies them). It owns what a node keeps in a cluster: its view of
/// its leases, the connections it forwards to their board's owner and their retries, the releases
/// out, the joins waiting for an answer and the REST requests relayed (`ClusterState`).
///
/// - **Claims.** The hub never loads a board it has not claimed: where one node would read the
///   store (`hello`, `POST`, `DELETE` of a board not in memory), a node claims the board's lease
///   instead. When it gets the lease the board is loaded, and the work goes on as on one node.
///   When another node owns it, each waiting `hello` is forwarded there (`.forward`: the
///   transport relays the connection both ways from then on), a create is answered 409, and a
///   delete claims again with `force`, fencing the owner, and deletes as the new owner.
/// - **Leases.** The node's renewal thread renews every lease/3 and says which boards it still
///   holds and until when (`renewed`). A board in memory whose lease was not renewed is lost: it
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
/// - **Relays.** A REST op on a board another node owns is relayed to the owner, at most
///   `maxHTTPForwards` at once, each for `forwardTimeout` at most; otherwise its client gets 503
///   `elsewhere` (`Cluster.elsewhere`).
///
/// Clocks are passed in. Tested alone in `ClusterRulesTests`.
struct Cluster {
    /// What the hub does, in order.
    enum Action: Equatable {
        /// A log line.
        case log(LogLevel, String)
        /// Count a hit of this limit.
        case limitHit(LimitName)
        /// The board leaves memory and its people are closed with 1012: this node's lease on it
        /// is gone (`Hub.dropBoard(_:because: .moved)`).
        case drop(BoardID)
        /// Close this connection with `code`, after what is queued when `flush`.
        case close(ConnectionID, code: UInt16, reason: String, flush: Bool)
        /// Send this connection a final error, then close it with `code` once it is out.
        case refuse(ConnectionID, ProtocolError, code: UInt16, reason: String)
        /// Relay the joining connection to its board's owner, node `node` at `advertise`: its
        /// `hello` and what it sent since go first.
        case forward(ConnectionID, node: String, advertise: String)
        /// The forward never got through: the connection joins again (with what it sent that the
        /// owner never got) and waits for its retry.
        case rejoin(ConnectionID)
        /// Its retry is due: the connection seeks its board again (claiming it).
        case seek(ConnectionID)
        /// It said `hello` and has had no answer in time (`Hub.expireJoins`).
        case lateJoin(ConnectionID)
        /// Answer the exchange.
        case respond(ExchangeID, HTTPResponse)
        /// Relay the exchange's request to its board's owner at `advertise`.
        case relay(ExchangeID, advertise: String)
    }

    /// One lease.
    private let lease: Instant.Span
    /// How long a relayed REST request waits for its owner's answer.
    private let forwardTimeout: Instant.Span
    /// How many relayed REST requests may wait at once; zero on one node (nothing is relayed).
    private let maxHTTPForwards: Int
    /// The most messages a joining connection keeps for its owner.
    private let maxMessagesWhileJoining: Int
    /// False on one node: nothing is relayed.
    private let clustered: Bool

    /// Releases out, retries waiting, join deadlines, relays.
    private var waits = ClusterState()
    /// This node's view of its lease on each board in memory.
    private var leases: [BoardID: LeaseView] = [:]
    /// The connections forwarded to their board's owner, or waiting to try again.
    private var forwards: [ConnectionID: Forward] = [:]

    /// The rules for a node with these settings (nil `settings`: one node).
    init(settings: ClusterSettings?, lease: Instant.Span, forwardTimeout: Instant.Span, maxMessagesWhileJoining: Int) {
        self.lease = lease
        self.forwardTimeout = forwardTimeout
        self.maxMessagesWhileJoining = maxMessagesWhileJoining
        maxHTTPForwards = settings?.maxHTTPForwards ?? 0
        clustered = settings != nil
    }

    // MARK: Leases and releases

    /// The board's claim, sent at `sent`, was answered at `now` with the board in memory: it is
    /// held from the sending for one lease at least; renewals extend it.
    mutating func claimed(_ board: BoardID, sent: Instant, now: Instant) {
        leases[board] = LeaseView(until: sent + lease, claimAnswered: now)
    }

    /// The renewal thread renewed this node's leases: it holds `held` until `validUntil`, and
    /// `alive` nodes are. Boards in memory not among `held` are lost, unless they were claimed
    /// after the renewal began; forwards to nodes not `alive` are closed.
    mutating func renewed(held: Set<BoardID>, validUntil: Instant, alive: Set<String>) -> [Action] {
        let renewalBegan = validUntil - lease
        var lost: [BoardID] = []
        for (id, view) in leases {
            if held.contains(id) {
                leases[id]?.until = max(view.until, validUntil)
            } else if view.claimAnswered < renewalBegan {
                // The claim was in the store before the renewal began, which did not find it.
                lost.append(id)
            }
        }
        var actions: [Action] = []
        for id in lost.sorted() {
            actions.append(
                .log(
                    .warning,
                    "board \(id): this node's lease on it was not renewed (another node has it, or it ran out)"
                ))
            actions.append(.drop(id))
        }
        for (id, forward) in forwards.sorted(by: { $0.key < $1.key }) {
            guard case .relayed(let node) = forward.phase, !alive.contains(node) else { continue }
            actions.append(
                .log(
                    .info, "\(id): board \(forward.board)'s owner, node \(node), is no longer alive; closing with 1012")
            )
            actions.append(.close(id, code: 1012, reason: "board owner gone; reconnect", flush: false))
        }
        return actions
    }

    /// The board left memory: its lease goes (after its queued writes). False when its release
    /// is out already.
    mutating func release(_ board: BoardID) -> Bool {
        leases[board] = nil
        return waits.release(board)
    }

    /// The store carried out the board's release; false when none was out.
    mutating func released(_ board: BoardID) -> Bool { waits.released(board) }

    /// True while the board's release is out: it is not claimed again before it is carried out.
    func isReleasing(_ board: BoardID) -> Bool { waits.isReleasing(board) }

    // MARK: Joins and forwards

    /// The connection said `hello`: without an answer by `deadline`, it is closed.
    mutating func awaitAnswer(_ id: ConnectionID, until deadline: Instant) { waits.awaitAnswer(id, until: deadline) }

    /// The connection got its answer: its `welcome` here, or the owner's first message.
    mutating func answered(_ id: ConnectionID) {
        waits.answered(id)
        // Joined here after a retry: its tries are over. A forward the owner answered stays
        // relayed until it ends.
        if let forward = forwards[id], case .seeking = forward.phase { forwards[id] = nil }
    }

    /// The connection is closing or closed: nothing of it is kept.
    mutating func ended(_ id: ConnectionID) {
        waits.answered(id)
        waits.endRetry(id)
        forwards[id] = nil
    }

    /// Another node, `node` at `advertise`, owns the board the joining connection asked for.
    /// `relayed`: another node forwarded the connection here.
    mutating func forward(
        _ id: ConnectionID, board: BoardID, to node: String, advertise: String, relayed: Bool, peer: String
    ) -> [Action] {
        if relayed {
            // Another node forwarded it here, taking this node for the owner, and it is not (any
            // more: it gave the board up, or a delete took it). Forwarded on, it would reach
            // nobody (the transport relays only its own clients' sockets). Closed unanswered, it
            // makes the forwarding node claim the board again and forward it to the owner itself.
            return [
                .log(.info, "\(id) came forwarded for board \(board), which is on node \(node) now; sending it back"),
                .close(id, code: 1012, reason: "board moved; try again", flush: false),
            ]
        }
        forwards[id] = Forward(board: board, phase: .relayed(node: node), retry: forwards[id]?.retry)
        return [
            .log(.info, "\(id) from \(peer): board \(board) is on node \(node); forwarding to \(advertise)"),
            .forward(id, node: node, advertise: advertise),
        ]
    }

    /// The owner's end of a forwarded connection ended with `code` (nil: none); `answered`: the
    /// owner had sent it something. `queued`: the messages it would keep for a retry.
    mutating func forwardEnded(
        _ id: ConnectionID, code: UInt16?, answered: Bool, queued: Int, peer: String, now: Instant
    ) -> [Action] {
        guard let forward = forwards[id], case .relayed(let node) = forward.phase else { return [] }
        let board = forward.board
        if let code, Self.isFinal(code) {
            forwards[id] = nil
            // After what the owner sent before its close (its final error, over a node link
            // in the same read as the close), as the owner's own client would get it.
            return [
                .log(.debug, "\(id): node \(node) closed the forward of board \(board) with \(code)"),
                .close(id, code: code, reason: "closed by the board's owner", flush: true),
            ]
        }
        if answered {
            forwards[id] = nil
            return [
                .log(.info, "\(id): node \(node), owner of board \(board), went away; closing with 1012"),
                .close(id, code: 1012, reason: "board owner gone; reconnect", flush: false),
            ]
        }
        var retry = forward.retry ?? ForwardRetry(giveUpAt: now + 3 * lease)
        guard queued <= maxMessagesWhileJoining else {
            forwards[id] = nil
            return [
                .limitHit(.joiningQueue),
                .close(id, code: 1008, reason: "too many messages before welcome", flush: false),
            ]
        }
        guard now + retry.delay <= retry.giveUpAt else {
            forwards[id] = nil
            return [
                .log(.warning, "\(id) from \(peer): board \(board)'s owner, node \(node), cannot be reached"),
                .refuse(
                    id, ProtocolError(.unavailable, "board \(board) cannot be reached right now; try again later"),
                    code: 1013, reason: "board owner unreachable"),
            ]
        }
        let line = "\(id): node \(node) did not answer for board \(board); trying again in \(retry.delay) ms"
        retry.due = now + retry.delay
        retry.delay = min(retry.delay * 2, ForwardRetry.longestDelay)
        forwards[id] = Forward(board: board, phase: .waiting, retry: retry)
        waits.retry(id)
        return [.log(.info, line), .rejoin(id)]
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

    // MARK: Time

    /// On each tick at `now`: relays whose owner did not answer in time get 503 `elsewhere`; joins
    /// past their deadline end; boards whose lease has surely run out leave memory; retries that
    /// are due seek their board again.
    mutating func tick(now: Instant) -> [Action] {
        var actions: [Action] = []
        for (exchange, forward) in waits.lateRelays(now: now) {
            // The transport drops the owner's answer if it still comes.
            actions.append(
                .log(
                    .info, "\(exchange): node \(forward.node), owner of board \(forward.board), did not answer in time")
            )
            actions.append(.respond(exchange, Self.elsewhere(forward.board, by: forward.node)))
        }
        for id in waits.lateJoins(now: now) { actions.append(.lateJoin(id)) }
        var expired: [BoardID] = []
        for (id, view) in leases where now >= view.until { expired.append(id) }
        for id in expired.sorted() {
            actions.append(
                .log(
                    .warning, "board \(id): no renewal of its lease for a whole lease; it may be another node's by now")
            )
            actions.append(.drop(id))
        }
        for id in waits.retries {
            guard let forward = forwards[id], case .waiting = forward.phase, let retry = forward.retry else {
                waits.endRetry(id)
                continue
            }
            guard now >= retry.due else { continue }
            waits.endRetry(id)
            forwards[id]?.phase = .seeking
            actions.append(.seek(id))
        }
        return actions
    }

    // MARK: Relayed requests

    /// The REST requests relayed and not answered yet.
    var relayCount: Int { waits.forwardCount }

    /// A REST op on `board`, which node `node` at `advertise` owns: relayed there unless it came
    /// relayed already (the board moved meanwhile), the owner's address is unknown, or
    /// `maxHTTPForwards` wait already; then 503 `elsewhere`.
    mutating func relay(
        _ exchange: ExchangeID, board: BoardID, to node: String, advertise: String, relayedAlready: Bool,
        peer: String, now: Instant
    ) -> [Action] {
        guard clustered, !relayedAlready, !advertise.isEmpty else {
            return [.respond(exchange, Self.elsewhere(board, by: node))]
        }
        guard waits.forwardCount < maxHTTPForwards else {
            return [
                .limitHit(.httpForwards),
                .log(
                    .warning,
                    "\(exchange): \(waits.forwardCount) REST requests wait for their owners already; answering 503"),
                .respond(exchange, Self.elsewhere(board, by: node)),
            ]
        }
        waits.relay(exchange, HTTPForward(board: board, node: node, deadline: now + forwardTimeout))
        return [
            .log(
                .debug, "\(exchange) from \(peer): board \(board) is on node \(node); relaying the op to \(advertise)"),
            .relay(exchange, advertise: advertise),
        ]
    }

    /// The owner's answer to a relayed request (nil: none came): to its client, unchanged.
    mutating func relayAnswered(_ exchange: ExchangeID, _ response: HTTPResponse?) -> [Action] {
        guard let forward = waits.relayEnded(exchange) else { return [] }
        if let response { return [.respond(exchange, response)] }
        return [
            .log(
                .info, "\(exchange): node \(forward.node), owner of board \(forward.board), did not answer a relayed op"
            ),
            .respond(exchange, Self.elsewhere(forward.board, by: forward.node)),
        ]
    }

    /// The client of a relayed request went away: its owner's answer is of no use now.
    mutating func abandoned(_ exchange: ExchangeID) { _ = waits.relayEnded(exchange) }

    /// 503 `elsewhere` for a REST op on a board another node owns that could not be relayed
    /// there (`relay`): an event stream opens and ends instead (`EventStreams.elsewhere`).
    /// Through HAProxy, `?board=ID` in the URL sends the request to the node that board's
    /// WebSocket clients reach, which is the owner unless the board just moved.
    static func elsewhere(_ board: BoardID, by node: String) -> HTTPResponse {
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

    /// `GET /api/cluster`'s answer: `{"node": this node, "nodes": [{"name", "advertise", "alive", "boards"}]}`.
    static func answer(node: String?, _ nodes: [ClusterNode]) -> HTTPResponse {
        .list("nodes", nodes, head: { $0.write("node", node) }) { w, node in
            w.write("name", node.name)
            w.write("advertise", node.advertise)
            w.write("alive", node.alive)
            w.write("boards", node.boards)
        }
    }
}

/// A connection this node forwards to its board's owner, or that waits to try again.
struct Forward {
    /// Where its forward is.
    enum Phase: Equatable {
        /// The transport relays it to the owner, node `node`.
        case relayed(node: String)
        /// It never got through: it claims its board again at `retry.due`.
        case waiting
        /// Its retry came due: it seeks its board (joins here, is forwarded again, or fails).
        case seeking
    }

    let board: BoardID
    var phase: Phase
    /// Its tries after forwards that never got through (nil before the first failed).
    var retry: ForwardRetry?
}

/// What a node knows of its lease on a board in memory.
struct LeaseView {
    /// Until when the lease surely holds by this node's monotonic clock: the claim's sending or
    /// the last renewal that held it began, plus one lease.
    var until: Instant
    /// When the claim's answer arrived: a renewal that began later must have found the lease.
    var claimAnswered: Instant
}

/// A REST request relayed to its board's owner (`Cluster.relay`).
struct HTTPForward {
    var board: BoardID
    var node: String
    /// When its client gets 503 if the owner has not answered.
    var deadline: Instant
}

/// A joining connection's tries to reach its board after forwards that never got through.
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
