internal import BoardAuth
internal import BoardCore

/// `POST /api/boards/{id}/ops`: one op over HTTP, as a WebSocket client sends it.
///
/// The op goes through the board's room exactly as a joined client's does (the same sequencer,
/// hold and conflict rules, the same durable-before-visible gate), sent as a user of its own that
/// is never on the board: nobody hears it join or leave, and it holds nothing. What the room
/// would send that user is the HTTP answer:
/// - the op's `committed` broadcast, once durable: 200 `{"seq", "op": COMMITTED}`;
/// - an `ack` (the op id was committed before): 200 `{"seq", "ack": true}`;
/// - a `reject`: 409 `{"error": "rejected", "reason", "by"?, "seq"}`.
///
/// A board not in memory is loaded for the op (claimed, in a cluster; owned by another node: the
/// request is relayed there, `forwardREST`). The ops of one client address share a bucket of `opRate`, as one WebSocket's do.
extension Hub {
    /// The member of a REST op whose token names none (or on a server without tokens): one
    /// `api` for all of them, so that `/members` and the assignee picker list the API once, not
    /// once per request.
    static let apiMember = MemberID("api")!

    /// `POST /api/boards/{id}/ops`, the token's claims already checked for viewing.
    func restOpRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard request.method == .post else { return emit(.respond(exchange, .methodNotAllowed("POST"))) }
        guard claims.allow(.edit, on: id) else {
            return emit(.respond(exchange, Self.forbidden("edit access to board \(id)")))
        }
        let op: OpRequest
        switch Self.parseRESTOp(request.body) {
        case .failure(let refusal): return emit(.respond(exchange, refusal.response))
        case .success(let parsed): op = parsed
        }
        guard addressState(request.peer).restOps.take(config.opRate, now: now, stalled: stalled) else {
            meters.rateLimited.add(.op)
            log(.warning, "\(exchange) from \(request.peer) sends ops over HTTP faster than its limit; answering 429")
            var response = HTTPResponse.error(429, "rate_limited", "too many ops; slow down")
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
            return emit(.respond(exchange, response))
        }
        let pending = RESTOp.Pending(
            request: op, name: claims.name ?? "api", member: claims.member ?? Self.apiMember, peer: request.peer,
            http: request)
        if let host = boards[id] {
            submitREST(pending, on: host, exchange: exchange)
        } else if isDeleting(id) {
            emit(.respond(exchange, Self.unknownBoard(id)))
        } else if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            emit(.respond(exchange, .error(503, "unavailable", "the server is full; try again later")))
        } else {
            defer_(.op(exchange, pending), on: id)
        }
    }

    /// The body as one op, or the 400 that names what is wrong with it.
    static func parseRESTOp(_ body: [UInt8]) -> Result<OpRequest, RESTOp.Refusal> {
        // The type first: a `hello` or a `drop` is no op, whatever else is wrong with it.
        if let json = try? JSON.parse(body), case .object = json, let type = json["type"]?.stringValue,
            !RESTOp.types.contains(type)
        {
            return .failure(
                RESTOp.Refusal(
                    400, "bad_request", "\"type\" must be an op: " + RESTOp.types.joined(separator: ", ")))
        }
        switch ClientMessage.parse(body) {
        case .success(.op(let op)):
            return .success(op)
        case .success:
            return .failure(RESTOp.Refusal(400, "bad_request", "the body must be one op"))
        case .failure(let error):
            return .failure(RESTOp.Refusal(400, "bad_request", error.message))
        }
    }

    /// Hands the op to the board's room as a user of its own; the answer comes through
    /// `answerREST` (at once for a refusal or a repeat, once durable for a commit). The board
    /// stays in memory until then (`BoardHost.restOps`). `evict`: false while a loaded board's
    /// waiting work is run (`decided` evicts after the last of it: a refused op must not evict
    /// the board under the ops queued behind it).
    func submitREST(_ pending: RESTOp.Pending, on host: BoardHost, exchange: ExchangeID, evict: Bool = true) {
        let user = sessions.makeUser(name: pending.name, member: pending.member)
        restOps[user.id] = RESTOp(exchange: exchange, board: host.room.id, peer: pending.peer, name: pending.name)
        host.restOps += 1
        log(.debug, "\(exchange) from \(pending.peer): op \(pending.request.opID) on board \(host.room.id) over HTTP")
        perform(
            host.room.submitDetached(
                pending.request, as: user.id, name: pending.name, member: user.member, now: now, wall: wall),
            on: host)
        if evict { evictIfIdle(host) }
    }

    /// Takes the REST op sent as `user` out of those waiting, and out of its board's count.
    @discardableResult
    func finishREST(_ user: UserID) -> RESTOp? {
        guard let op = restOps.removeValue(forKey: user) else { return nil }
        if let host = boards[op.board] { host.restOps -= 1 }
        return op
    }

    /// What the room said to a REST op's user, as its HTTP answer (anything else is ignored).
    func answerREST(_ message: ServerMessage, to user: UserID) {
        guard let waiting = restOps[user] else { return }
        let response: HTTPResponse
        switch message {
        case .committed(let op):
            var encoded = JSONWriter()
            op.encode(into: &encoded)
            response = .json(200) { w in
                w.beginObject()
                w.write("seq", op.seq)
                w.writeRaw("op", encoded.bytes)
                w.endObject()
            }
        case .ack(_, let seq):
            response = .json(200) { w in
                w.beginObject()
                w.write("seq", seq)
                w.write("ack", true)
                w.endObject()
            }
        case .reject(let rejection, let seq):
            response = .json(409) { w in
                w.beginObject()
                w.write("error", "rejected")
                w.write("reason", rejection.reason.rawValue)
                if let by = rejection.by { w.write("by", by.rawValue) }
                w.write("seq", seq)
                w.write("message", "the op was refused: \(rejection.reason.rawValue)")
                w.endObject()
            }
        default:
            return
        }
        finishREST(user)
        emit(.respond(waiting.exchange, response))
    }

    /// The board left memory (deleted, lost, unwritable) with REST ops still waiting: they get
    /// `response` (their op may or may not be stored; the client can resend it by its op id).
    func failRESTOps(on board: BoardID, _ response: HTTPResponse) {
        let failed = restOps.filter { $0.value.board == board }
        for (user, op) in failed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            finishREST(user)
            emit(.respond(op.exchange, response))
        }
    }
}

/// A REST op waiting for its answer.
struct RESTOp {
    /// What a REST op needs until its board is loaded.
    struct Pending {
        var request: OpRequest
        /// The name it is sent as (its token's, or `api`).
        var name: String
        /// The member it is sent as: its token's `sub`, else `api` (`Hub.apiMember`).
        var member: MemberID?
        var peer: String
        /// The request as it came, to relay to the board's owner in a cluster.
        var http: HTTPRequest
    }
    /// The op types, as on the WebSocket.
    static let types = Op.kinds

    var exchange: ExchangeID
    var board: BoardID
    /// Its client's address, whose bucket a restore is charged to (Hub+History.swift).
    var peer: String
    /// The name its op is kept with.
    var name: String

    /// A request refused before it reaches the board.
    struct Refusal: Error {
        var response: HTTPResponse
        init(_ status: Int, _ code: String, _ message: String) { response = .error(status, code, message) }
    }
}
