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

    func route(_ request: HTTPRequest, exchange: ExchangeID) {
        if request.path == "/healthz" {
            guard request.method == .get || request.method == .head else {
                return emit(.respond(exchange, .methodNotAllowed("GET")))
            }
            return emit(
                .respond(
                    exchange,
                    .json(200) { w in
                        w.beginObject()
                        w.write("status", stopping ? "stopping" : "ok")
                        w.write("boards", boards.count)
                        w.write("connections", sessions.count)
                        w.endObject()
                    }))
        }
        if let refusal = crossSiteRefusal(request) { return emit(.respond(exchange, refusal)) }
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
            .map(String.init)
        if segments == ["templates"] {
            guard request.method == .get || request.method == .head else {
                return emit(.respond(exchange, .methodNotAllowed("GET")))
            }
            return emit(.respond(exchange, Self.templateList))
        }
        if segments == ["cluster"] { return clusterRequest(request, exchange: exchange) }
        if segments == ["revocations"] { return access.request(request, exchange: exchange) }
        if segments.first == "inbox" {
            return inboxRequest(request, rest: Array(segments.dropFirst()), exchange: exchange)
        }
        if segments == ["search"] { return searchRequest(request, exchange: exchange) }
        if segments == ["me"] { return meRequest(request, exchange: exchange) }
        guard segments.first == "boards" else {
            return emit(.respond(exchange, .error(404, "not_found", "no such API route")))
        }
        let rest = Array(segments.dropFirst())
        if rest == ["import", "trello"] {
            guard let claims = authorize(request, exchange: exchange) else { return }  // a proxy user too
            return trelloImportRequest(request, claims: claims, exchange: exchange)
        }
        var request = request
        if rest.count == 2 && rest[1] == "events" && request.authorization == nil, let token = request.query["token"] {
            // A browser's EventSource cannot send headers: the stream takes its token in the URL.
            request.authorization = "Bearer " + token
        }
        guard let claims = authorize(request, exchange: exchange) else { return }  // a proxy's user, or a token
        if rest.isEmpty {
            switch request.method {
            case .get:
                if let only = claims.board {
                    return read(
                        .snapshot(only, Self.answering(exchange) { $0.listOne(only, $1, exchange: exchange) }),
                        for: exchange)
                }
                return listRequest(request.query, exchange: exchange)
            case .post: return createRequest(request.body, claims: claims, peer: request.peer, exchange: exchange)
            default: return emit(.respond(exchange, .methodNotAllowed("GET, POST")))
            }
        }
        guard let id = BoardID(rest[0]) else {
            return emit(.respond(exchange, .error(404, "not_found", "not a board id")))
        }
        if rest.count >= 2 && rest.count <= 3 && rest[1] == "links" {
            return linksRequest(id, request, rest: rest, claims: claims, exchange: exchange)
        }
        if (rest.count == 3 && rest[1] == "members") || (rest.count == 2 && rest[1] == "grants") {
            return grantsRequest(id, request, rest: rest, claims: claims, exchange: exchange)
        }
        if rest.count >= 2 && rest[1] == "webhooks" {
            return webhooksRequest(id, request, rest: rest, claims: claims, exchange: exchange)
        }
        let needed: Role = request.method == .delete ? .admin : .view
        guard claims.allow(needed, on: id) else {
            return emit(.respond(exchange, Self.forbidden("\(needed.rawValue) access to board \(id)")))
        }
        switch (request.method, rest.count > 1 ? rest[1] : nil, rest.count) {
        case (.get, nil, 1), (.head, nil, 1):
            if let at = request.query["at"] { return atRequest(id, at: at, peer: request.peer, exchange: exchange) }
            snapshotRequest(id, exchange: exchange)
        case (.delete, nil, 1):
            if boards[id] != nil {
                delete(id, answering: exchange)
                releaseLease(id)
            } else if isDeleting(id) {
                emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
            } else {
                defer_(.delete(exchange), on: id)
            }
        case (_, nil, 1):
            emit(.respond(exchange, .methodNotAllowed("GET, DELETE")))
        case (.get, "ops", 2):
            opsRequest(id, query: request.query, exchange: exchange)
        case (.post, "ops", 2):
            restOpRequest(id, request, claims: claims, exchange: exchange)
        case (_, "ops", 2):
            emit(.respond(exchange, .methodNotAllowed("GET, POST")))
        case (_, "events", 2):
            streamRequest(id, request, claims: claims, exchange: exchange)
        case (.get, "history", 2), (.head, "history", 2):
            historyRequest(id, query: request.query, peer: request.peer, exchange: exchange)
        case (_, "history", 2):
            emit(.respond(exchange, .methodNotAllowed("GET")))
        case (.get, "members", 2):
            membersRequest(id, request, exchange: exchange)
        case (_, "members", 2):
            emit(.respond(exchange, .methodNotAllowed("GET")))
        case (.get, "export", 2), (.head, "export", 2), (.get, "export.csv", 2), (.head, "export.csv", 2):
            exportRequest(id, csv: rest[1] == "export.csv", exchange: exchange)
        case (_, "export", 2), (_, "export.csv", 2):
            emit(.respond(exchange, .methodNotAllowed("GET")))
        case (.get, "items", 4) where rest[3] == "comments", (.head, "items", 4) where rest[3] == "comments":
            commentsRequest(id, item: rest[2], query: request.query, peer: request.peer, exchange: exchange)
        case (_, "items", 4) where rest[3] == "comments":
            emit(.respond(exchange, .methodNotAllowed("GET")))
        default:
            emit(.respond(exchange, .error(404, "not_found", "no such API route")))
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
        var after: BoardID?
        if let text = query["after"] {
            guard let id = BoardID(text) else {
                return emit(.respond(exchange, .error(400, "bad_request", "after must be a board id")))
            }
            after = id
        }
        var limit = 100
        if let text = query["limit"] {
            guard let n = Int(text), (1...1000).contains(n) else {
                return emit(.respond(exchange, .error(400, "bad_request", "limit must be an integer from 1 to 1000")))
            }
            limit = n
        }
        // One more than asked for says whether there is a next page.
        let (first, count) = (after, limit)
        let reply = Self.answering(exchange) { (hub, stored: [BoardSummary]) in
            hub.emit(.respond(exchange, hub.boardList(stored, after: first, limit: count)))
        }
        read(.list(after: after, limit: limit + 1, reply), for: exchange)
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
            emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
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
        func number(_ key: String, default value: Int, range: ClosedRange<Int>) -> Int? {
            guard let text = query[key] else { return value }
            guard let n = Int(text), range.contains(n) else { return nil }
            return n
        }
        guard let since = number("since", default: 0, range: 0...Int(Int32.max)) else {
            return emit(.respond(exchange, .error(400, "bad_request", "since must be a non-negative integer")))
        }
        guard let limit = number("limit", default: 1000, range: 1...10_000) else {
            return emit(.respond(exchange, .error(400, "bad_request", "limit must be an integer from 1 to 10000")))
        }
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
        return .json(200) { w in
            w.beginObject()
            w.beginArray("boards")
            for (id, s) in shown {
                w.beginObject()
                w.write("id", id.rawValue)
                w.write("title", s.title)
                w.write("seq", s.seq)
                w.write("users", s.users)
                if let template = s.template { w.write("template", template.rawValue) }
                w.endObject()
            }
            w.endArray()
            w.write("next", next?.rawValue)
            w.endObject()
        }
    }

    /// `GET /api/templates`: every template's name, title and what it is for.
    static let templateList = HTTPResponse.json(200) { w in
        w.beginObject()
        w.beginArray("templates")
        for template in Template.allCases {
            w.beginObject()
            w.write("name", template.rawValue)
            w.write("title", template.title)
            w.write("description", template.summary)
            w.endObject()
        }
        w.endArray()
        w.endObject()
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
