internal import BoardCore
internal import BoardStore
internal import CLibWebSockets

/// HTTP routes: the web client, health, and the board API.
extension Service {
    /// Answers `request` now, or returns nil when the answer waits for the store.
    func route(_ request: HTTPRequest, exchange: UInt64) -> HTTPResponse? {
        let segments = request.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if request.path == "/healthz" {
            guard request.method == .get || request.method == .head else { return methodNotAllowed("GET") }
            return .json(200) { w in
                w.beginObject()
                w.write("status", "ok")
                w.write("boards", boards.count)
                w.write("connections", connections.count)
                w.endObject()
            }
        }
        if segments.first == "api" {
            return apiRoute(request, segments: Array(segments.dropFirst()), exchange: exchange)
        }
        guard request.method == .get || request.method == .head else { return methodNotAllowed("GET") }
        var response = files.response(for: request.path)
        if response.contentType.hasPrefix("text/html") {
            response.headers.append(
                (
                    "content-security-policy:",
                    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
                ))
        }
        return response
    }

    private func methodNotAllowed(_ allow: String) -> HTTPResponse {
        var response = HTTPResponse.error(405, "method_not_allowed", "allowed: \(allow)")
        response.headers.append(("allow:", allow))
        return response
    }

    private func apiRoute(_ request: HTTPRequest, segments: [String], exchange: UInt64) -> HTTPResponse? {
        guard segments.first == "boards" else { return .error(404, "not_found", "no such API route") }
        let rest = Array(segments.dropFirst())
        do {
            switch (request.method, rest.count) {
            case (.get, 0):
                return try listBoards()
            case (.post, 0):
                return createBoard(request.body, exchange: exchange)
            case (_, 0):
                return methodNotAllowed("GET, POST")
            default:
                break
            }
            guard let id = BoardID(rest[0]) else { return .error(404, "not_found", "not a board id") }
            switch (request.method, rest.count > 1 ? rest[1] : nil, rest.count) {
            case (.get, nil, 1), (.head, nil, 1):
                return try boardSnapshot(id)
            case (.delete, nil, 1):
                return try deleteBoard(id, exchange: exchange)
            case (_, nil, 1):
                return methodNotAllowed("GET, DELETE")
            case (.get, "ops", 2):
                return try opsPage(id, query: request.query)
            case (_, "ops", 2):
                return methodNotAllowed("GET")
            default:
                return .error(404, "not_found", "no such API route")
            }
        } catch {
            log.error("\(request.method.rawValue) \(request.path): \(error.message)")
            return .error(503, "unavailable", "the store failed; try again")
        }
    }

    private func listBoards() throws(StoreError) -> HTTPResponse {
        var summaries: [BoardID: (title: String, seq: Seq, users: Int)] = [:]
        for summary in try store.list() { summaries[summary.id] = (summary.title, summary.seq, 0) }
        for (id, host) in boards {
            summaries[id] = (host.room.published.title, host.room.visibleSeq, host.members.count)
        }
        return .json(200) { w in
            w.beginObject()
            w.beginArray("boards")
            for id in summaries.keys.sorted() {
                let s = summaries[id]!
                w.beginObject()
                w.write("id", id.rawValue)
                w.write("title", s.title)
                w.write("seq", s.seq)
                w.write("users", s.users)
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
    }

    private func boardSnapshot(_ id: BoardID) throws(StoreError) -> HTTPResponse {
        let board: Board
        let seq: Seq
        if let host = boards[id] {
            (board, seq) = (host.room.published, host.room.visibleSeq)
        } else if let stored = try store.load(id, recentLimit: 0) {
            (board, seq) = (stored.board, stored.seq)
        } else {
            return .error(404, "unknown_board", "there is no board \(id)")
        }
        return .json(200) { w in
            w.beginObject()
            w.write("seq", seq)
            board.encode(into: &w, key: "board")
            w.endObject()
        }
    }

    private func opsPage(_ id: BoardID, query: [String: String]) throws(StoreError) -> HTTPResponse {
        func number(_ key: String, default value: Int, range: ClosedRange<Int>) -> Int? {
            guard let text = query[key] else { return value }
            guard let n = Int(text), range.contains(n) else { return nil }
            return n
        }
        guard let since = number("since", default: 0, range: 0...Int(Int32.max)) else {
            return .error(400, "bad_request", "since must be a non-negative integer")
        }
        guard let limit = number("limit", default: 1000, range: 1...10_000) else {
            return .error(400, "bad_request", "limit must be an integer from 1 to 10000")
        }
        let ops: [CommittedOp]
        let current: Seq
        switch try store.ops(of: id, since: since, limit: limit) {
        case .ops(let page, let stored):
            current = boards[id]?.room.visibleSeq ?? stored
            ops = page.filter { $0.seq <= current }
        case .gone:
            return .error(410, "gone", "ops after \(since) were compacted away; load the board snapshot instead")
        case .unknownBoard:
            guard let host = boards[id] else { return .error(404, "unknown_board", "there is no board \(id)") }
            current = host.room.visibleSeq
            ops = []
        }
        return .json(200) { w in
            w.beginObject()
            w.write("seq", current)
            w.beginArray("ops")
            for op in ops { ServerMessage.committed(op).encode(into: &w) }
            w.endArray()
            w.endObject()
        }
    }

    private func createBoard(_ body: [UInt8], exchange: UInt64) -> HTTPResponse? {
        let board: Board
        switch BoardDefinition.parse(body) {
        case .failure(let problem):
            return .error(400, "bad_request", problem.message)
        case .success(let definition):
            let id = definition.id ?? BoardDefinition.randomID()
            do throws(StoreError) {
                let stored = try store.load(id, recentLimit: 0)
                if boards[id] != nil || stored != nil {
                    return .error(409, "exists", "board \(id) already exists")
                }
            } catch {
                log.error("checking board \(id): \(error.message)")
                return .error(503, "unavailable", "the store failed; try again")
            }
            board = definition.board(id: id)
        }
        let host = BoardHost(
            room: Room(board: board, historyLimit: config.historyLimit, holdTimeout: Int64(config.holdTimeout * 1000)))
        boards[board.id] = host
        let ticket = makeID()
        persister.submit(.create(board), ticket: ticket)
        waitingForTicket[ticket] = (
            exchange,
            .json(201) { w in
                w.beginObject()
                w.write("seq", 0)
                board.encode(into: &w, key: "board")
                w.endObject()
            }
        )
        log.info("created board \(board.id) (\(board.items.count) items) over HTTP")
        return nil
    }

    private func deleteBoard(_ id: BoardID, exchange: UInt64) throws(StoreError) -> HTTPResponse? {
        if let host = boards.removeValue(forKey: id) {
            for connection in host.members.values { connection.close(code: 4410, reason: "board deleted", flush: true) }
        } else if try store.load(id, recentLimit: 0) == nil {
            return .error(404, "unknown_board", "there is no board \(id)")
        }
        let ticket = makeID()
        deleting[ticket] = id
        persister.submit(.delete(id), ticket: ticket)
        waitingForTicket[ticket] = (
            exchange,
            .json(200) { w in
                w.beginObject()
                w.write("deleted", id.rawValue)
                w.endObject()
            }
        )
        log.info("deleting board \(id)")
        return nil
    }

    // MARK: Writing

    /// Stores the response and asks for HTTP_WRITEABLE; the exchange may have closed meanwhile.
    func respond(_ exchangeID: UInt64, _ response: HTTPResponse) {
        guard let exchange = exchanges[exchangeID] else { return }
        exchange.response = response
        lws_callback_on_writable(exchange.wsi)
    }

    /// Writes headers and body in one write. Returns -1 when lws should close the connection.
    func writeResponse(_ exchange: HTTPExchange) -> Int32 {
        guard let response = exchange.response else { return 0 }
        exchange.response = nil
        let pre = shuffleboard_lws_pre()
        let includeBody = exchange.request.method != .head
        var buffer = [UInt8](repeating: 0, count: pre + 2048 + (includeBody ? response.body.count : 0))
        let status = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            let start = raw.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + 2048
            var headers = response.headers
            headers.append(("x-content-type-options:", "nosniff"))
            headers.append(("cache-control:", "no-cache"))
            headers.append(("referrer-policy:", "no-referrer"))
            guard
                lws_add_http_common_headers(
                    exchange.wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &p,
                    end) == 0
            else { return -1 }
            for (name, value) in headers {
                let ok = name.withCString { n in
                    value.withCString { v in
                        lws_add_http_header_by_name(
                            exchange.wsi, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                            UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self), Int32(value.utf8.count), &p, end)
                    }
                }
                guard ok == 0 else { return -1 }
            }
            guard lws_finalize_http_header(exchange.wsi, &p, end) == 0, var q = p else { return -1 }
            if includeBody {
                response.body.withUnsafeBufferPointer { body in
                    if let base = body.baseAddress { q.update(from: base, count: body.count) }
                }
                q += response.body.count
            }
            let length = q - start
            return Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP_FINAL)) == length ? 0 : -1
        }
        log.debug("\(exchange.request.method.rawValue) \(exchange.request.path) → \(response.status)")
        if status < 0 { return -1 }
        return lws_http_transaction_completed(exchange.wsi) != 0 ? -1 : 0
    }
}
