package import BoardCore

/// One event of `GET /api/boards/{id}/events` (Server-Sent Events), encoded once for every
/// stream it goes to.
package enum StreamEvent: Equatable, Sendable {
    /// The first bytes of every stream: how long an `EventSource` waits before it reconnects.
    case opened
    /// Committed ops, in seq order: `id: SEQ`, `event: op`, `data: COMMITTED-OP` each.
    case ops([CommittedOp])
    /// The board as it is at `seq`: the stream's start when no `since` was given, or when the ops
    /// after it are no longer kept. `id: SEQ`, `event: reset`, `data: {"seq", "board"}`.
    case reset(Board, seq: Seq)
    /// The board was deleted; the stream ends. `event: deleted`, `data: {"deleted": ID}`.
    case deleted(BoardID)
    /// A comment line, so that proxies do not close a quiet stream.
    case keepalive
    /// In a cluster, a comment before the stream ends: another node serves the board (an
    /// `EventSource` reconnects after `retry`; a 503 would make it give up).
    case elsewhere(node: String)

    /// The event as `text/event-stream` bytes (UTF-8; JSON never holds a raw line break).
    package func encoded() -> [UInt8] {
        var out: [UInt8] = []
        func event(_ id: Seq?, _ name: String, _ build: (inout JSONWriter) -> Void) {
            if let id { out.append(contentsOf: "id: \(id)\n".utf8) }
            out.append(contentsOf: "event: \(name)\ndata: ".utf8)
            var w = JSONWriter()
            build(&w)
            out.append(contentsOf: w.bytes)
            out.append(contentsOf: "\n\n".utf8)
        }
        switch self {
        case .opened:
            out.append(contentsOf: "retry: 1000\n\n".utf8)
        case .ops(let ops):
            for op in ops { event(op.seq, "op") { op.encode(into: &$0) } }
        case .reset(let board, let seq):
            event(seq, "reset") { w in
                w.beginObject()
                w.write("seq", seq)
                board.encode(into: &w, key: "board")
                w.endObject()
            }
        case .deleted(let id):
            event(nil, "deleted") { w in
                w.beginObject()
                w.write("deleted", id.rawValue)
                w.endObject()
            }
        case .keepalive:
            out.append(contentsOf: ": keepalive\n\n".utf8)
        case .elsewhere(let node):
            // Node names are 1-128 of A-Z a-z 0-9 . _ - (`--node`): nothing to escape in a comment.
            out.append(contentsOf: ": board served by node \(node); reconnect\n\n".utf8)
        }
        return out
    }
}

/// An event stream as the hub sees it: asked for, waiting for its board, or open on it.
struct EventStream {
    var board: BoardID
    var peer: String
    /// The seq the client has (nil: none; the stream starts with a `reset`).
    var since: Seq?
    /// When it was asked for.
    var began: Instant
}

/// `GET /api/boards/{id}/events`: every committed op of a board, in seq order, as Server-Sent
/// Events, from the seq the client names (`since`, or `Last-Event-ID` when an `EventSource`
/// reconnects). An open stream is a reader of the board like a joined connection (the board
/// stays in memory while one is open) but not a user: nobody sees it. The transport writes each
/// event as it writes a WebSocket's messages, and cuts off a stream whose reader falls behind
/// its send bound (`streamEnded` follows).
extension Hub {
    func streamRequest(_ id: BoardID, _ request: HTTPRequest, exchange: ExchangeID) {
        guard request.method == .get else { return emit(.respond(exchange, .methodNotAllowed("GET"))) }
        // Last-Event-ID wins over `since`: an EventSource reconnecting keeps its URL. Both are checked.
        var since: Seq?
        if let text = request.query["since"] {
            guard let n = Self.seq(text) else {
                return emit(.respond(exchange, .error(400, "bad_request", "since must be a non-negative integer")))
            }
            since = n
        }
        if let text = request.lastEventID?.trimmingWhitespace(), !text.isEmpty {
            guard let n = Self.seq(text) else {
                return emit(.respond(exchange, .error(400, "bad_request", "Last-Event-ID must be a seq")))
            }
            since = n
        }
        if config.maxStreams > 0 && streams.count >= config.maxStreams {
            meters.limitHits.add(.streams)
            log(.warning, "\(exchange) from \(request.peer): \(streams.count) event streams are open, the most")
            var response = HTTPResponse.error(503, "busy", "too many event streams are open; try again later")
            response.headers.append(HTTPResponse.Header("retry-after:", "5"))
            return emit(.respond(exchange, response))
        }
        let address = addressState(request.peer)
        if config.maxStreamsPerAddress > 0 && address.streams >= config.maxStreamsPerAddress {
            meters.limitHits.add(.streamsPerAddress)
            log(.warning, "\(exchange) from \(request.peer): over \(config.maxStreamsPerAddress) event streams")
            return emit(
                .respond(exchange, .error(429, "rate_limited", "too many event streams from your address")))
        }
        address.streams += 1
        streams[exchange] = EventStream(board: id, peer: request.peer, since: since, began: now)
        if let host = boards[id] {
            openStream(exchange, on: host)
        } else if isDeleting(id) {
            refuseStream(exchange, Self.unknownBoard(id))
        } else if config.maxBoardsInMemory > 0 && boards.count + waiting.count >= config.maxBoardsInMemory {
            meters.limitHits.add(.boardsInMemory)
            refuseStream(exchange, .error(503, "unavailable", "the server is full; try again later"))
        } else {
            defer_(.stream(exchange), on: id)
        }
    }

    /// A seq as a stream's `since` or `Last-Event-ID` says it: 1 to 18 ASCII digits (no sign).
    static func seq(_ text: String) -> Seq? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        return Int(text)
    }

    /// A stream that will not open: forgotten, and answered with `response`.
    func refuseStream(_ exchange: ExchangeID, _ response: HTTPResponse) {
        guard forgetStream(exchange) != nil else { return }  // Its client left while the board loaded.
        emit(.respond(exchange, response))
    }

    /// Opens a stream on its loaded board: what the client lacks first (the ops after its seq,
    /// or the board when those are not kept or it named none), then every op as it is published.
    func openStream(_ exchange: ExchangeID, on host: BoardHost) {
        guard let stream = streams[exchange] else { return }  // Its client left while the board loaded.
        let room = host.room
        emit(.openStream(exchange))
        emit(.stream(.opened, to: [exchange]))
        if let since = stream.since, let ops = room.publishedOps(after: since), Self.fits(ops, room.published) {
            if !ops.isEmpty { emit(.stream(.ops(ops), to: [exchange])) }
        } else {
            emit(.stream(.reset(room.published, seq: room.visibleSeq), to: [exchange]))
        }
        host.streams.append(exchange)
        host.streamed = now
        log(.debug, "\(exchange) from \(stream.peer): event stream of board \(room.id) from seq \(room.visibleSeq)")
    }

    /// Whether `ops` take no more bytes than `board` does, as a WebSocket resume must (Room.join):
    /// a reader far behind gets the board (`reset`) instead, so that what it lacks is never more
    /// than a snapshot (and so within the send bound), however long the ops' texts.
    static func fits(_ ops: [CommittedOp], _ board: Board) -> Bool {
        guard ops.count > 1 else { return true }
        let limit = board.encoded().count
        var total = 0
        for op in ops {
            var w = JSONWriter()
            op.encode(into: &w)
            total += w.bytes.count + 32  // The event's `id:`, `event:` and `data:` lines.
            if total > limit { return false }
        }
        return true
    }

    /// The transport ended the stream (its client left, or fell behind).
    func streamEnded(_ exchange: ExchangeID) {
        guard let stream = forgetStream(exchange), let host = boards[stream.board] else { return }
        if let index = host.streams.firstIndex(of: exchange) { host.streams.remove(at: index) }
        evictIfIdle(host)
    }

    @discardableResult
    private func forgetStream(_ exchange: ExchangeID) -> EventStream? {
        guard let stream = streams.removeValue(forKey: exchange) else { return nil }
        if let address = addresses[stream.peer] { address.streams -= 1 }
        return stream
    }

    /// The board leaves memory: its streams end (after `deleted` when it was deleted). A client
    /// whose board moved reconnects with `Last-Event-ID` and misses nothing.
    func endStreams(of host: BoardHost, deleted: Bool) {
        guard !host.streams.isEmpty else { return }
        if deleted { emit(.stream(.deleted(host.room.id), to: host.streams)) }
        emit(.endStream(host.streams))
        for exchange in host.streams { forgetStream(exchange) }
        host.streams = []
    }

    /// In a cluster, another node owns the stream's board: the stream opens and ends at once, after
    /// `retry: 1000` and a comment naming the owner. Its client reconnects (an `EventSource` by
    /// itself, with its `Last-Event-ID`): through HAProxy with `?board=`, to the owner, or once
    /// the owner is gone and its lease has lapsed, to the node that takes the board.
    func streamElsewhere(_ exchange: ExchangeID, node: String) {
        guard forgetStream(exchange) != nil else { return }
        emit(.openStream(exchange))
        emit(.stream(.opened, to: [exchange]))
        emit(.stream(.elsewhere(node: node), to: [exchange]))
        emit(.endStream([exchange]))
    }

    /// Shutdown: every stream ends; those still waiting for their board are answered 503.
    func endAllStreams() {
        for id in boards.keys.sorted() {
            guard let host = boards[id] else { continue }
            endStreams(of: host, deleted: false)
            evictIfIdle(host)  // Kept in memory for its streams alone: nothing keeps it now.
        }
        for exchange in streams.keys.sorted(by: { $0.rawValue < $1.rawValue }) {
            refuseStream(exchange, .error(503, "unavailable", "the server is shutting down"))
        }
    }

    /// On each tick: streams older than `maxStreamAge` end; a comment goes to the streams of
    /// every board quiet for `streamKeepalive`.
    func keepStreamsAlive() {
        if config.maxStreamAge > 0 {
            let old = streams.filter { now - $0.value.began >= config.maxStreamAge }.keys.sorted {
                $0.rawValue < $1.rawValue
            }
            if !old.isEmpty { emit(.endStream(old)) }
            for exchange in old { streamEnded(exchange) }
        }
        for host in boards.values where !host.streams.isEmpty && now - host.streamed >= config.streamKeepalive {
            host.streamed = now
            emit(.stream(.keepalive, to: host.streams))
        }
    }
}
