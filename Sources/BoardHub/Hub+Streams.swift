internal import BoardAuth
internal import BoardCore

/// An event stream as the hub sees it: asked for, waiting for its board, or open on it.
struct EventStream {
    enum Phase {
        /// Waiting for its board to load (or be claimed).
        case loading
        /// Its board is here; its opening `reset` is being encoded off the service thread
        /// (`BoardHost.awaitingReset`).
        case encoding
        /// Open: in `BoardHost.streams`, getting every op.
        case open
    }

    var board: BoardID
    var peer: String
    /// The seq the client has (nil: none; the stream starts with a `reset`).
    var since: Seq?
    /// When it was asked for.
    var began: Instant
    var phase = Phase.loading
    /// With access control: its token's expiry (seconds since 1970) and id (for revocations). A
    /// stream ends when its token does, as a WebSocket session is closed 4401.
    var token: (expires: Int64, id: String)?
}

/// `GET /api/boards/{id}/events`: every committed op of a board, in seq order, as Server-Sent
/// Events, from the seq the client names (`since`, or `Last-Event-ID` when an `EventSource`
/// reconnects). An open stream is a reader of the board like a joined connection (the board
/// stays in memory while one is open) but not a user: nobody sees it. The transport writes each
/// event as it writes a WebSocket's messages, and cuts off a stream whose reader falls behind
/// its send bound (`streamEnded` follows).
///
/// With access control a stream lives no longer than its token: within a second of the token's
/// revocation (on every node: each reloads the revocations every second) or on the first tick
/// after its expiry, the stream gets `event: revoked` or `event: expired` and ends. A stream has
/// no way to take a new token (unlike a WebSocket's `auth`): its client opens a new one with a
/// fresh token and `Last-Event-ID`, and misses nothing.
extension Hub {
    func streamRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
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
        var stream = EventStream(board: id, peer: request.peer, since: since, began: now)
        if config.auth != nil, let token = Self.bearerToken(request) {
            stream.token = (claims.expires, TokenAuthority.revocationID(of: token))
        }
        streams[exchange] = stream
        if let host = boards[id] {
            openStream(exchange, on: host)
        } else if isDeleting(id) {
            refuseStream(exchange, Self.unknownBoard(id))
        } else if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            refuseStream(exchange, .error(503, "unavailable", "the server is full; try again later"))
        } else {
            defer_(.stream(exchange), on: id)
        }
    }

    /// The token of a request that `authorize` let in: its bearer token (a stream's `?token=`
    /// was made one by `route`).
    static func bearerToken(_ request: HTTPRequest) -> String? {
        guard let header = request.authorization, header.count > 7 else { return nil }
        return String(header.dropFirst(7)).trimmingWhitespace()
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
    /// The board as a `reset` is encoded off the service thread (a large board is megabytes of
    /// JSON), once per seq for every stream that opens meanwhile, and kept while streams are open.
    func openStream(_ exchange: ExchangeID, on host: BoardHost) {
        guard var stream = streams[exchange] else { return }  // Its client left while the board loaded.
        let seq = host.room.visibleSeq
        if let since = stream.since, let ops = host.room.publishedOps(after: since), fits(ops, host) {
            return begin(exchange, on: host, with: ops.isEmpty ? [] : [.ops(ops)])
        }
        if let reset = host.reset, reset.seq == seq {
            return begin(exchange, on: host, with: [.encodedReset(seq: seq, bytes: reset.bytes)])
        }
        stream.phase = .encoding
        streams[exchange] = stream
        host.awaitingReset.append(exchange)
        guard host.resetRead == nil else { return }  // Encoding already: the ops after it follow it.
        host.resetRead = reads.ask(.encodeStreamReset(host.room.published, seq: seq), then: .streamReset(host.room.id))
    }

    /// The board came back encoded as a `reset` at `seq`: the streams waiting for it open with
    /// it, then the ops published since.
    func resetEncoded(_ answer: StoreAnswer, read: ReadID, board id: BoardID) {
        // A board deleted (and perhaps made again) meanwhile has ended or refused its streams.
        guard let host = boards[id], host.resetRead == read else { return }
        host.resetRead = nil
        let waiting = host.awaitingReset
        host.awaitingReset = []
        guard case .streamReset(let seq, let bytes) = answer else {
            // The encoder asks no store and does not fail; were it to, the board is encoded here.
            if case .failed(let error) = answer {
                log(.warning, "encoding a reset of board \(id) failed: \(error.message)")
            }
            let fallback: [StreamEvent] = [.reset(host.room.published, seq: host.room.visibleSeq)]
            for exchange in waiting where streams[exchange] != nil { begin(exchange, on: host, with: fallback) }
            return
        }
        host.reset = (seq, bytes)
        for exchange in waiting where streams[exchange] != nil {
            if let ops = host.room.publishedOps(after: seq) {
                let after: [StreamEvent] = ops.isEmpty ? [] : [.ops(ops)]
                begin(exchange, on: host, with: [.encodedReset(seq: seq, bytes: bytes)] + after)
            } else {
                // Far behind already (ops no longer kept): the board as it is now, encoded here.
                begin(exchange, on: host, with: [.reset(host.room.published, seq: host.room.visibleSeq)])
            }
        }
    }

    /// The stream's answer begins: `retry`, then `first`, then every op as it is published.
    private func begin(_ exchange: ExchangeID, on host: BoardHost, with first: [StreamEvent]) {
        guard var stream = streams[exchange] else { return }
        stream.phase = .open
        streams[exchange] = stream
        emit(.openStream(exchange))
        emit(.stream(.opened, to: [exchange]))
        for event in first { emit(.stream(event, to: [exchange])) }
        host.streams.append(exchange)
        host.streamed = now
        log(
            .debug,
            "\(exchange) from \(stream.peer): event stream of board \(host.room.id) from seq \(host.room.visibleSeq)")
    }

    /// Whether `ops` take no more bytes than the board does, as a WebSocket resume must (Room.join):
    /// a reader far behind gets the board (`reset`) instead, so that what it lacks is never more
    /// than a snapshot (and so within the send bound), however long the ops' texts. The board's
    /// size is measured once per seq (`Room.boardBytes`).
    private func fits(_ ops: [CommittedOp], _ host: BoardHost) -> Bool {
        guard ops.count > 1 else { return true }
        let limit = host.room.boardBytes()
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
        if let index = host.awaitingReset.firstIndex(of: exchange) { host.awaitingReset.remove(at: index) }
        if host.streams.isEmpty && host.awaitingReset.isEmpty { host.reset = nil }
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
        // Those still waiting for their `reset` open and end as the others do.
        for exchange in host.awaitingReset { begin(exchange, on: host, with: []) }
        host.awaitingReset = []
        host.resetRead = nil
        host.reset = nil
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
        for id in boards.ids.sorted() {
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
        if timers.maxStreamAge > .zero {
            let old = streams.filter { now >= $0.value.began + timers.maxStreamAge }.keys.sorted {
                $0.rawValue < $1.rawValue
            }
            if !old.isEmpty { emit(.endStream(old)) }
            for exchange in old { streamEnded(exchange) }
        }
        for host in boards.hosts where !host.streams.isEmpty && now >= host.streamed + timers.streamKeepalive {
            host.streamed = now
            emit(.stream(.keepalive, to: host.streams))
        }
    }

    /// With access control, on each tick: the streams whose token has expired end with `expired`.
    func expireStreams() {
        guard config.auth != nil, !streams.isEmpty else { return }
        let seconds = wall.milliseconds / 1000
        endStreams(.expired) { ($0.token?.expires ?? .max) <= seconds }
    }

    /// The streams whose token is revoked end with `revoked` (Hub+Revocations.swift).
    func endRevokedStreams() {
        guard !streams.isEmpty, !revocations.inForce.isEmpty else { return }
        endStreams(.revoked) { stream in stream.token.map { revocations.inForce[$0.id] != nil } ?? false }
    }

    /// Ends the streams `ended` picks, in exchange order, because of their token (`why`): an open
    /// one gets `why` as its last event; one not open yet is answered 401 as a new one would be.
    private func endStreams(_ why: StreamEvent, where ended: (EventStream) -> Bool) {
        let ending = streams.filter { ended($0.value) }.keys.sorted { $0.rawValue < $1.rawValue }
        guard !ending.isEmpty else { return }
        let what = why == .revoked ? "was revoked" : "expired"
        var open: [ExchangeID] = []
        for exchange in ending {
            guard let stream = streams[exchange] else { continue }
            log(.info, "\(exchange) from \(stream.peer): its token \(what); ending its event stream")
            guard case .open = stream.phase else {
                streamEnded(exchange)
                emit(.respond(exchange, Self.unauthorized("the token \(what)")))
                continue
            }
            open.append(exchange)
        }
        guard !open.isEmpty else { return }
        emit(.stream(why, to: open))
        emit(.endStream(open))
        for exchange in open { streamEnded(exchange) }
    }
}
