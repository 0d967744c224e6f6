internal import BoardAuth
internal import BoardCore

/// The REST ops (`POST /api/boards/{id}/ops`) waiting for their answer, by the user each is sent
/// as, and the rules of one before it reaches its board: the method, the token's `edit`, the body
/// as one op (`admit`), then its client address's bucket of `opRate`, as one WebSocket's (`take`).
/// What the room later says to that user becomes the answer (`answer`); a board that leaves memory
/// fails those still waiting on it (`fail`). Each waiting op is counted on its board
/// (`BoardHost.restOps`), which keeps the board in memory, so that its answer is never "no such
/// board".
///
/// It holds no other part: the hub hands it what it works on with each call (the address's
/// bucket, the board in memory). The hub routes the request here, then hands the op to the
/// board's room once the board is in memory (Hub+REST.swift). Its actions: `respond` and log
/// lines. Confined to the service thread (with the hub).
final class RESTOps {
    private var waiting: [UserID: RESTOp] = [:]
    private let config: Hub.Config
    private let turn: Turn

    init(config: Hub.Config, turn: Turn) {
        self.config = config
        self.turn = turn
    }

    /// The member of a REST op whose token names none (or on a server without tokens): one
    /// `api` for all of them, so that `/members` and the assignee picker list the API once, not
    /// once per request.
    static let apiMember = MemberID("api")!

    /// The REST ops waiting for their answer.
    var count: Int { waiting.count }

    /// The REST op sent as `user`, while it waits.
    subscript(user: UserID) -> RESTOp? { waiting[user] }

    /// `POST /api/boards/{id}/ops`, the token's claims already checked for viewing: the op to
    /// submit (once `take` lets it through), or nil when the request is answered already (405,
    /// 403, 400).
    func admit(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) -> RESTOp.Pending? {
        guard request.method == .post else { return respond(exchange, .methodNotAllowed("POST")) }
        guard claims.allow(.edit, on: id) else {
            return respond(exchange, Hub.forbidden("edit access to board \(id)"))
        }
        let op: OpRequest
        switch Self.parse(request.body) {
        case .failure(let refusal): return respond(exchange, refusal.response)
        case .success(let parsed): op = parsed
        }
        return RESTOp.Pending(
            request: op, name: claims.name ?? "api", member: claims.member ?? Self.apiMember, peer: request.peer,
            admin: claims.allow(.admin, on: id), http: request)
    }

    /// An op `admit` let through takes one of `bucket`'s tokens: its client address's bucket of
    /// `opRate` (`AddressState.restOps`, handed over by the hub). False when it is empty, and the
    /// request is answered 429.
    func take(from bucket: inout TokenBucket, _ pending: RESTOp.Pending, exchange: ExchangeID) -> Bool {
        guard !bucket.take(config.opRate, now: turn.now, stalled: turn.stalled) else { return true }
        turn.meters.rateLimited.add(.op)
        turn.log(.warning, "\(exchange) from \(pending.peer) sends ops over HTTP faster than its limit; answering 429")
        var response = HTTPResponse.error(429, "rate_limited", "too many ops; slow down")
        response.headers.append(HTTPResponse.Header("retry-after:", "1"))
        _ = respond(exchange, response)
        return false
    }

    private func respond(_ exchange: ExchangeID, _ response: HTTPResponse) -> RESTOp.Pending? {
        turn.emit(.respond(exchange, response))
        return nil
    }

    /// The body as one op, or the 400 that names what is wrong with it.
    static func parse(_ body: [UInt8]) -> Result<OpRequest, RESTOp.Refusal> {
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

    /// The op of `pending`, sent as `user` on `host`'s board, waits for its answer on `exchange`.
    func began(_ user: UserID, _ pending: RESTOp.Pending, on host: BoardHost, exchange: ExchangeID) {
        waiting[user] = RESTOp(exchange: exchange, board: host.id, peer: pending.peer, name: pending.name)
        host.restOps += 1
        turn.log(
            .debug, "\(exchange) from \(pending.peer): op \(pending.request.opID) on board \(host.id) over HTTP")
    }

    /// Takes the REST op sent as `user` out of those waiting, and out of its board's count:
    /// `host`, the board in memory (nil: none).
    @discardableResult
    func finish(_ user: UserID, on host: BoardHost?) -> RESTOp? {
        guard let op = waiting.removeValue(forKey: user) else { return nil }
        if let host, host.id == op.board { host.restOps -= 1 }
        return op
    }

    /// What `host`'s room said to a REST op's user, as its HTTP answer (anything else is ignored).
    func answer(_ message: ServerMessage, to user: UserID, on host: BoardHost) {
        guard let op = waiting[user] else { return }
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
        finish(user, on: host)
        turn.emit(.respond(op.exchange, response))
    }

    /// The board left memory (deleted, lost, unwritable) with REST ops still waiting: they get
    /// `response` (their op may or may not be stored; the client can resend it by its op id).
    /// `host`: the board as it was in memory (out of the directory now).
    func fail(on host: BoardHost, _ response: HTTPResponse) {
        let failed = waiting.filter { $0.value.board == host.id }
        for (user, op) in failed.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            finish(user, on: host)
            turn.emit(.respond(op.exchange, response))
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
        /// The token allows `admin` on the board (removing anyone's comment).
        var admin = false
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
