internal import BoardAuth
package import BoardCore
internal import BoardStore

/// The HTTP API: `/healthz` and `/api/boards…`. Answers come back as `respond` actions, at once,
/// after a store read, or once a write is durable.
extension Hub {
    /// True when `path` is one the hub answers; everything else is the web client's files.
    package static func routes(_ path: String) -> Bool {
        path == "/healthz" || path == "/api" || path.hasPrefix("/api/")
    }

    /// Answers an API request: a write under `/api` that another site could have sent is
    /// refused first (whatever its path), then the request's route (`APIRoute`, which refuses
    /// what is none) is answered by its handler; for `APIRoute.claims` the request's claims and
    /// the role the route needs on its board are checked first.
    func route(_ request: HTTPRequest, exchange: ExchangeID) {
        if request.path != "/healthz", let refusal = crossSiteRefusal(request) {
            return emit(.respond(exchange, refusal))
        }
        let route: APIRoute
        switch APIRoute.match(request.method, request.path, query: request.query) {
        case .success(let matched): route = matched
        case .failure(let refusal): return emit(.respond(exchange, refusal.response))
        }
        switch route {
        case .health:
            emit(
                .respond(
                    exchange,
                    .json(200) { w in
                        w.beginObject()
                        w.write("status", stopping ? "stopping" : "ok")
                        w.write("boards", boards.count)
                        w.write("connections", sessions.count)
                        w.endObject()
                    }))
        case .templates: emit(.respond(exchange, Self.templateList))
        case .cluster: clusterRequest(request, exchange: exchange)
        case .revocations: revocationsRequest(request, revoke: false, exchange: exchange)
        case .revoke: revocationsRequest(request, revoke: true, exchange: exchange)
        case .inbox: inboxRequest(request, reading: false, exchange: exchange)
        case .markRead: inboxRequest(request, reading: true, exchange: exchange)
        case .me: meRequest(request, exchange: exchange)
        case .claims(let route): self.route(route, request, exchange: exchange)
        }
    }

    /// A route answered with the request's claims: a proxy's user, or its token's (for an event
    /// stream also `?token=`), which must allow what the route needs on its board.
    private func route(_ route: ClaimsRoute, _ request: HTTPRequest, exchange: ExchangeID) {
        var request = request
        if case .events = route, request.authorization == nil, let token = request.query["token"] {
            // A browser's EventSource cannot send headers: the stream takes its token in the URL.
            request.authorization = "Bearer " + token
        }
        guard let claims = authorize(request, exchange: exchange) else { return }
        if let (id, role, what) = route.access, !claims.allow(role, on: id) {
            return emit(.respond(exchange, Self.forbidden(what)))
        }
        switch route {
        case .search: searchRequest(request, only: claims.board, exchange: exchange)
        case .listBoards:
            guard let only = claims.board else { return listRequest(request.query, exchange: exchange) }
            read(
                .snapshot(only, Self.answering(exchange) { $0.listOne(only, $1, exchange: exchange) }),
                for: exchange)
        case .createBoard: createRequest(request.body, claims: claims, peer: request.peer, exchange: exchange)
        case .importTrello: trelloImportRequest(request, claims: claims, exchange: exchange)
        case .board(let id, at: nil): snapshotRequest(id, exchange: exchange)
        case .board(let id, at: let at?): atRequest(id, at: at, peer: request.peer, exchange: exchange)
        case .deleteBoard(let id):
            if boards[id] != nil {
                delete(id, answering: exchange)
                releaseLease(id)
            } else if isDeleting(id) {
                emit(.respond(exchange, Self.unknownBoard(id)))
            } else {
                defer_(.delete(exchange), on: id)
            }
        case .ops(let id): opsRequest(id, query: request.query, exchange: exchange)
        case .submitOp(let id): restOpRequest(id, request, claims: claims, exchange: exchange)
        case .events(let id): streamRequest(id, request, claims: claims, exchange: exchange)
        case .history(let id): historyRequest(id, query: request.query, peer: request.peer, exchange: exchange)
        case .people(let id): membersRequest(id, request, exchange: exchange)
        case .export(let id, let csv): exportRequest(id, csv: csv, exchange: exchange)
        case .comments(let id, let item):
            commentsRequest(id, item: item, query: request.query, peer: request.peer, exchange: exchange)
        case .links(let id): listLinks(id, exchange: exchange)
        case .addLink(let id): addLink(id, request, exchange: exchange)
        case .revokeLink(let id, let link): revokeLink(id, link, exchange: exchange)
        case .grants(let id): listGrants(id, exchange: exchange)
        case .grant(let id, let member): readGrant(id, member, exchange: exchange)
        case .setGrant(let id, let member): setGrant(id, member, request, exchange: exchange)
        case .removeGrant(let id, let member): removeGrant(id, member, request, exchange: exchange)
        case .webhooks(let id): listWebhooks(id, exchange: exchange)
        case .addWebhook(let id): addWebhook(id, request, exchange: exchange)
        case .removeWebhook(let id, let hook): removeWebhook(id, hook, exchange: exchange)
        case .enableWebhook(let id, let hook): enableWebhook(id, hook, exchange: exchange)
        }
    }

    /// The answer to an API write that a page on another site could have sent, or nil. A write
    /// (POST, PUT, PATCH, DELETE) that carries `Origin` must come from an allowed origin
    /// (`--allow-origin`; 403), and one with a body must say `application/json` (415): no page
    /// can send that to another site without a CORS preflight, which this server never grants.
    /// Every write that changes something has a body, but DELETE, which needs no content type:
    /// no page can send a DELETE to another site without a preflight either.
    private func crossSiteRefusal(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.writes else { return nil }
        guard config.origins.allowsWrite(from: request.origin) else {
            log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer) refused: origin not allowed")
            return .error(403, "forbidden_origin", "requests from this origin may not change anything here")
        }
        guard request.body.isEmpty || request.saysJSON else {
            log(
                .warning,
                "\(request.method.rawValue) \(request.path) from \(request.peer) refused: not application/json")
            return .error(415, "unsupported_media_type", "send the body as Content-Type: application/json")
        }
        return nil
    }

    /// `GET /api/boards?after=ID&limit=N`: a page of boards by id (100 by default, at most 1000).
    private func listRequest(_ query: [String: String], exchange: ExchangeID) {
        let after: BoardID?
        let limit: Int
        do throws(BadParameter) {
            after = try query.parameter("after", must: "be a board id", BoardID.init)
            limit = try query.limit(default: 100, most: 1000)
        } catch { return emit(.respond(exchange, error.response)) }
        // One more than asked for says whether there is a next page.
        let reply = Self.answering(exchange) { (hub, stored: [BoardSummary]) in
            hub.emit(.respond(exchange, hub.boardList(stored, after: after, limit: limit)))
        }
        read(.list(after: after, limit: limit + 1, reply), for: exchange)
    }

    /// The server's token authority; nil after 409 `no_access_control` on a server without
    /// access control, where there is nothing to manage (`everyone` may do everything already).
    func authority(for everyone: String, exchange: ExchangeID) -> TokenAuthority? {
        guard let auth = config.auth else {
            // 409, not 404: the board may well exist; this server's state has no room for it.
            emit(
                .respond(
                    exchange,
                    .error(
                        409, "no_access_control",
                        "this server has no access control (--auth-secret): \(everyone) may do everything already")))
            return nil
        }
        return auth
    }

    /// 507 `code` for a request past a limit on what the store keeps (links, webhooks, grants,
    /// revocations), counted under `limit`.
    func refuseFull(_ limit: LimitName, _ code: String, _ message: String, exchange: ExchangeID) {
        meters.limitHits.add(limit)
        emit(.respond(exchange, .error(507, code, message)))
    }

    /// Where the board a request needs in memory stands (`wantBoard`).
    enum BoardWanted {
        /// In memory.
        case here(BoardHost)
        /// Refused: 404 (it is being deleted) or 503 (the server holds its most boards).
        case refused(HTTPResponse)
        /// Not in memory: the request's work waits for it to load.
        case waiting
    }

    /// The board a request needs in memory, when it is; else why not: refused, or with `work`
    /// waiting for it to load.
    func wantBoard(_ id: BoardID, else work: @autoclosure () -> Deferred) -> BoardWanted {
        if let host = boards[id] { return .here(host) }
        if isDeleting(id) { return .refused(Self.unknownBoard(id)) }
        if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            return .refused(.error(503, "unavailable", "the server is full; try again later"))
        }
        defer_(work(), on: id)
        return .waiting
    }

    /// The board a request needs in memory, when it is; else nil after answering its refusal, or
    /// with `work` waiting for it to load (`wantBoard`).
    func boardInMemory(_ id: BoardID, else work: @autoclosure () -> Deferred, exchange: ExchangeID) -> BoardHost? {
        switch wantBoard(id, else: work()) {
        case .here(let host): return host
        case .refused(let response): emit(.respond(exchange, response))
        case .waiting: break
        }
        return nil
    }

    private func createRequest(_ body: [UInt8], claims: Claims, peer: String, exchange: ExchangeID) {
        switch BoardDefinition.parse(body) {
        case .failure(let problem):
            emit(.respond(exchange, .error(400, "bad_request", problem.message)))
        case .success(let definition):
            // Without an id the server makes one up: only an admin of every board may ask for that.
            guard definition.id.map({ claims.allow(.admin, on: $0) }) ?? (claims.board == nil && claims.role == .admin)
            else {
                return emit(
                    .respond(exchange, Self.forbidden("creating board \(definition.id?.rawValue ?? "with a new id")")))
            }
            // Without access control anyone may create boards: the address pays, as for `hello`.
            guard config.auth != nil || mayCreate(from: peer) else {
                log(.warning, "\(exchange) from \(peer) makes new boards too fast; answering 429")
                return emit(
                    .respond(exchange, .error(429, "rate_limited", "too many new boards from your address; slow down")))
            }
            let id = definition.id ?? BoardDefinition.randomID()
            let board = definition.board(id: id)
            if boards[id] != nil || isDeleting(id) {
                emit(.respond(exchange, .error(409, "exists", "board \(id) already exists")))
            } else {
                defer_(.create(exchange, board), on: id)
            }
        }
    }

    private func snapshotRequest(_ id: BoardID, exchange: ExchangeID) {
        if let host = boards[id] {
            encodeSnapshot(of: host, exchange: exchange)
        } else if isDeleting(id) {
            emit(.respond(exchange, Self.unknownBoard(id)))
        } else {
            // In a cluster the store says which node owns the board (this one does not).
            if config.cluster == nil {
                read(
                    .snapshot(id, Self.answering(exchange) { $0.snapshotRead(id, $1, owner: nil, exchange: exchange) }),
                    for: exchange)
            } else {
                let reply = Self.answering(exchange) { (hub, stored: StoredBoardAndOwner) in
                    hub.snapshotRead(id, stored.board, owner: stored.owner, exchange: exchange)
                }
                read(.snapshotAndOwner(id, reply), for: exchange)
            }
        }
    }

    /// A board in memory as `GET /api/boards/{id}` shows it (in a cluster, this node owns it),
    /// encoded off the service thread: the board is a value, so the worker gets it as it is now.
    private func encodeSnapshot(of host: BoardHost, exchange: ExchangeID) {
        encode(host.room.published, seq: host.room.visibleSeq, owner: config.cluster?.node, exchange: exchange)
    }

    /// `GET /api/boards/{id}` answered with the board, encoded off the service thread.
    private func encode(_ board: Board, seq: Seq, owner: String?, exchange: ExchangeID) {
        let read = StoreRead.encodeSnapshot(
            board, seq: seq, clustered: config.cluster != nil, owner: owner, Self.answering(exchange) { $0 })
        self.read(read, for: exchange)
    }

    private func opsRequest(_ id: BoardID, query: [String: String], exchange: ExchangeID) {
        let since: Int
        let limit: Int
        do throws(BadParameter) {
            since = try query.number("since", in: 0...Int(Int32.max), must: "be a non-negative integer") ?? 0
            limit = try query.limit(default: 1000, most: 10_000)
        } catch { return emit(.respond(exchange, error.response)) }
        let request = OpsPageRequest(
            board: id, since: since, limit: limit, visible: boards[id]?.room.visibleSeq, maxBytes: config.maxPageBytes)
        read(.opsPage(request, Self.answering(exchange) { $0.opsRead(id, $1, exchange: exchange) }), for: exchange)
    }

    /// A reply to a read made for an HTTP request: `then` with the answer; when the store failed,
    /// a log line and 503.
    static func answering<Answer>(
        _ exchange: ExchangeID, _ then: @escaping @Sendable (Hub, Answer) -> Void
    ) -> Reply<Answer> {
        Reply { hub, result in
            switch result {
            case .success(let answer): then(hub, answer)
            case .failure(let error):
                hub.log(.error, "HTTP read failed: \(error.message)")
                hub.emit(.respond(exchange, hub.storeFailed))
            }
        }
    }

    /// A reply to a read whose answer is the HTTP answer (`response`: how to make it of the
    /// read's answer; `nil`: the answer for a board the store does not have).
    static func answering<Answer>(
        _ exchange: ExchangeID, with response: @escaping @Sendable (Answer) -> HTTPResponse
    ) -> Reply<Answer> {
        answering(exchange) { hub, answer in hub.emit(.respond(exchange, response(answer))) }
    }

    /// `GET /api/boards` for a token of one board: that board, if it exists.
    private func listOne(_ id: BoardID, _ stored: StoredBoard?, exchange: ExchangeID) {
        var summaries: [BoardSummary] = []
        if let host = boards[id] {
            let board = host.room.published
            summaries = [
                BoardSummary(id: id, title: board.title, seq: host.room.visibleSeq, template: board.template)
            ]
        } else if let stored, !isDeleting(id) {
            summaries = [
                BoardSummary(id: id, title: stored.board.title, seq: stored.seq, template: stored.board.template)
            ]
        }
        emit(.respond(exchange, boardList(summaries, after: nil, limit: 1, only: id)))
    }

    /// `GET /api/boards/{id}` of a board not in memory: the store's, encoded, unless the board was
    /// loaded (or created) while the store was read: memory is newer.
    private func snapshotRead(_ id: BoardID, _ stored: StoredBoard?, owner: String?, exchange: ExchangeID) {
        if let host = boards[id] {
            encodeSnapshot(of: host, exchange: exchange)
        } else if let stored, !isDeleting(id) {
            encode(stored.board, seq: stored.seq, owner: owner, exchange: exchange)
        } else {
            emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
        }
    }

    /// `GET /api/boards/{id}/ops`: the page, or for a board the store does not have (nil), maybe
    /// one in memory (made by `hello`, nothing changed: no ops).
    private func opsRead(_ id: BoardID, _ page: HTTPResponse?, exchange: ExchangeID) {
        if let page { return emit(.respond(exchange, page)) }
        guard let host = boards[id] else {
            return emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
        }
        let request = OpsPageRequest(
            board: id, since: 0, limit: 0, visible: host.room.visibleSeq, maxBytes: config.maxPageBytes)
        emit(.respond(exchange, request.response(.ops([], current: host.room.visibleSeq))!))
    }

    /// The page: the store's boards after `after` merged with those in memory (newer, and maybe
    /// not stored yet), without those being deleted, cut at `limit`. The store was asked for one
    /// more than `limit`, so its first `limit + 1` after `after` are all that can be on the page.
    private func boardList(_ stored: [BoardSummary], after: BoardID?, limit: Int, only: BoardID? = nil)
        -> HTTPResponse
    {
        var summaries: [BoardID: (title: String, seq: Seq, users: Int, template: Template?)] = [:]
        for summary in stored { summaries[summary.id] = (summary.title, summary.seq, 0, summary.template) }
        let storeEnd = stored.count > limit ? stored.last?.id : nil
        for (id, host) in boards where after.map({ $0 < id }) ?? true && only.map({ $0 == id }) ?? true {
            if let storeEnd, storeEnd < id { continue }
            let board = host.room.published
            summaries[id] = (board.title, host.room.visibleSeq, host.members.count, board.template)
        }
        for id in boards.pending.deletingBoards { summaries[id] = nil }
        let page = summaries.sorted { $0.key < $1.key }
        let shown = page.prefix(limit)
        let next = page.count > limit || stored.count > limit ? shown.last?.key : nil
        return .list("boards", shown, tail: { $0.write("next", next?.rawValue) }) { w, board in
            let (id, s) = board
            w.write("id", id.rawValue)
            w.write("title", s.title)
            w.write("seq", s.seq)
            w.write("users", s.users)
            if let template = s.template { w.write("template", template.rawValue) }
        }
    }

    /// `GET /api/templates`: every template's name, title and what it is for.
    static let templateList = HTTPResponse.list("templates", Template.allCases) { w, template in
        w.write("name", template.rawValue)
        w.write("title", template.title)
        w.write("description", template.summary)
    }

    /// `{"seq", "board"}`, and in a cluster `"owner"`: the node holding the board's live lease
    /// (null when none does: nobody has the board in memory).
    package static func snapshot(
        _ board: Board, seq: Seq, clustered: Bool = false, owner: String? = nil
    ) -> HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.write("seq", seq)
            if clustered { w.write("owner", owner) }
            board.encode(into: &w, key: "board")
            w.endObject()
        }
    }
}
