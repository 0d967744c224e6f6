internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// An event stream as the hub sees it: asked for, waiting for its board, or open on it.
struct EventStream {
    enum Phase {
        /// Waiting for its board to load (or be claimed).
        case loading
        /// Its board is here; its opening `reset` is being encoded off the service thread
        /// (`BoardStreams.awaitingReset`).
        case encoding
        /// Open: in `BoardStreams.open`, getting every op.
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

/// A board's event streams (`BoardHost.streams`): kept on the board so that publishing an op
/// costs the boards without streams one `isEmpty`, and changed only by `EventStreams`.
struct BoardStreams {
    /// The open streams, in the order they opened.
    fileprivate(set) var open: [ExchangeID] = []
    /// Streams whose opening `reset` is being encoded off the service thread, in the order they
    /// asked; they open when it comes back.
    fileprivate(set) var awaitingReset: [ExchangeID] = []
    /// The read encoding it, while one is out.
    fileprivate(set) var resetRead: ReadID?
    /// The last `reset` encoded, shared by every stream that opens at its seq; kept while the
    /// board has streams.
    fileprivate(set) var reset: (seq: Seq, bytes: [UInt8])?
    /// When the streams last got anything (an op, a keepalive).
    fileprivate(set) var streamed = Instant(milliseconds: 0)

    /// No stream is open or opening on the board: they do not keep it in memory.
    var isIdle: Bool { open.isEmpty && awaitingReset.isEmpty }
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
///
/// The part owns the streams (by exchange), their count per client address, and each board's
/// `BoardStreams`; the hub routes the `…/events` requests (once its board directory has the
/// board: `open`), `streamEnded`, the encoder's answers, the tick, revocations and the boards'
/// ends here. Its actions: `openStream`, `stream`, `endStream`, `respond` (a stream refused) and
/// log lines; a `reset` to encode comes back from `open` as a value (the hub asks the store, and
/// hands the read back: `encoding`).
///
/// It holds no other part: each call that may end a stream is handed the hub's boards in memory
/// (`boardHost`: a board by id) and its eviction (`idle`: called with a board a stream stopped keeping,
/// at once, so that the actions keep their order). Confined to the service thread (with the hub).
final class EventStreams {
    private var table: [ExchangeID: EventStream] = [:]
    /// The streams per client address (loading or open), for `maxStreamsPerAddress`; an address
    /// with none has no entry.
    private var perAddress: [String: Int] = [:]

    private let config: Hub.Config
    private let turn: Turn
    private var now: Instant { turn.now }

    init(config: Hub.Config, turn: Turn) {
        self.config = config
        self.turn = turn
    }

    /// The streams, loading or open.
    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }
    /// The streams' exchanges, in order.
    var exchanges: [ExchangeID] { table.keys.sorted { $0.rawValue < $1.rawValue } }
    subscript(exchange: ExchangeID) -> EventStream? { table[exchange] }
    /// The streams from client address `peer`, loading or open.
    func count(from peer: String) -> Int { perAddress[peer] ?? 0 }

    // MARK: Asking

    /// A request for board `id`'s events: checks it and its limits; true when it is taken (and
    /// waits for its board: `open` or `refuse`), false when it is answered already.
    func admit(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) -> Bool {
        guard request.method == .get else { return respond(exchange, .methodNotAllowed("GET")) }
        // Last-Event-ID wins over `since`: an EventSource reconnecting keeps its URL. Both are checked.
        var since: Seq?
        if let text = request.query["since"] {
            guard let n = Self.seq(text) else {
                return respond(exchange, .error(400, "bad_request", "since must be a non-negative integer"))
            }
            since = n
        }
        if let text = request.lastEventID?.trimmingWhitespace(), !text.isEmpty {
            guard let n = Self.seq(text) else {
                return respond(exchange, .error(400, "bad_request", "Last-Event-ID must be a seq"))
            }
            since = n
        }
        if config.maxStreams > 0 && table.count >= config.maxStreams {
            turn.meters.limitHits.add(.streams)
            turn.log(.warning, "\(exchange) from \(request.peer): \(table.count) event streams are open, the most")
            var response = HTTPResponse.error(503, "busy", "too many event streams are open; try again later")
            response.headers.append(HTTPResponse.Header("retry-after:", "5"))
            return respond(exchange, response)
        }
        let fromAddress = perAddress[request.peer] ?? 0
        if config.maxStreamsPerAddress > 0 && fromAddress >= config.maxStreamsPerAddress {
            turn.meters.limitHits.add(.streamsPerAddress)
            turn.log(.warning, "\(exchange) from \(request.peer): over \(config.maxStreamsPerAddress) event streams")
            return respond(exchange, .error(429, "rate_limited", "too many event streams from your address"))
        }
        perAddress[request.peer] = fromAddress + 1
        var stream = EventStream(board: id, peer: request.peer, since: since, began: now)
        if config.auth != nil, let token = Self.bearerToken(request) {
            stream.token = (claims.expires, TokenAuthority.revocationID(of: token))
        }
        table[exchange] = stream
        return true
    }

    private func respond(_ exchange: ExchangeID, _ response: HTTPResponse) -> Bool {
        turn.emit(.respond(exchange, response))
        return false
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
    func refuse(_ exchange: ExchangeID, _ response: HTTPResponse) {
        guard forget(exchange) != nil else { return }  // Its client left while the board loaded.
        turn.emit(.respond(exchange, response))
    }

    // MARK: Opening

    /// Opens a stream on its loaded board: what the client lacks first (the ops after its seq,
    /// or the board when those are not kept or it named none), then every op as it is published.
    /// The board as a `reset` is encoded off the service thread (a large board is megabytes of
    /// JSON), once per seq for every stream that opens meanwhile, and kept while streams are open:
    /// the seq to encode the board at when that is to begin (the hub asks the store, whose answer
    /// comes to `resetEncoded`, and names the read: `encoding`), nil otherwise.
    func open(_ exchange: ExchangeID, on host: BoardHost) -> Seq? {
        guard var stream = table[exchange] else { return nil }  // Its client left while the board loaded.
        let seq = host.room.visibleSeq
        if let since = stream.since, let ops = host.room.publishedOps(after: since), fits(ops, host) {
            begin(exchange, on: host, with: ops.isEmpty ? [] : [.ops(ops)])
            return nil
        }
        if let reset = host.streams.reset, reset.seq == seq {
            begin(exchange, on: host, with: [.encodedReset(seq: seq, bytes: reset.bytes)])
            return nil
        }
        stream.phase = .encoding
        table[exchange] = stream
        host.streams.awaitingReset.append(exchange)
        // Encoding already: the ops after it follow it.
        return host.streams.resetRead == nil ? seq : nil
    }

    /// The read encoding `host`'s board as a `reset` (asked for the seq `open` returned).
    func encoding(_ read: ReadID, on host: BoardHost) {
        host.streams.resetRead = read
    }

    /// The board came back encoded as a `reset` at `seq`: the streams waiting for it open with
    /// it, then the ops published since. `host` is the board in memory now, if any.
    func resetEncoded(_ answer: Result<(seq: Seq, bytes: [UInt8]), StoreError>, read: ReadID, on host: BoardHost?) {
        // A board deleted (and perhaps made again) meanwhile has ended or refused its streams.
        guard let host, host.streams.resetRead == read else { return }
        host.streams.resetRead = nil
        let waiting = host.streams.awaitingReset
        host.streams.awaitingReset = []
        guard case .success((let seq, let bytes)) = answer else {
            // The encoder asks no store and does not fail; were it to, the board is encoded here.
            if case .failure(let error) = answer {
                turn.log(.warning, "encoding a reset of board \(host.id) failed: \(error.message)")
            }
            let fallback: [StreamEvent] = [.reset(host.room.published, seq: host.room.visibleSeq)]
            for exchange in waiting where table[exchange] != nil { begin(exchange, on: host, with: fallback) }
            return
        }
        host.streams.reset = (seq, bytes)
        for exchange in waiting where table[exchange] != nil {
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
        guard var stream = table[exchange] else { return }
        stream.phase = .open
        table[exchange] = stream
        turn.emit(.openStream(exchange))
        turn.emit(.stream(.opened, to: [exchange]))
        for event in first { turn.emit(.stream(event, to: [exchange])) }
        host.streams.open.append(exchange)
        host.streams.streamed = now
        turn.log(
            .debug,
            "\(exchange) from \(stream.peer): event stream of board \(host.id) from seq \(host.room.visibleSeq)")
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

    /// In a cluster, another node owns the stream's board: the stream opens and ends at once, after
    /// `retry: 1000` and a comment naming the owner. Its client reconnects (an `EventSource` by
    /// itself, with its `Last-Event-ID`): through HAProxy with `?board=`, to the owner, or once
    /// the owner is gone and its lease has lapsed, to the node that takes the board.
    func elsewhere(_ exchange: ExchangeID, node: String) {
        guard forget(exchange) != nil else { return }
        turn.emit(.openStream(exchange))
        turn.emit(.stream(.opened, to: [exchange]))
        turn.emit(.stream(.elsewhere(node: node), to: [exchange]))
        turn.emit(.endStream([exchange]))
    }

    // MARK: Open streams

    /// A committed op of a board with open streams: it goes to them all, encoded once.
    func published(_ op: CommittedOp, on host: BoardHost) {
        host.streams.streamed = now
        turn.emit(.stream(.ops([op]), to: host.streams.open))
    }

    /// The transport ended the stream (its client left, or fell behind). `boardHost`: the hub's
    /// board in memory by id; `idle`: its eviction, called with the stream's board, if in memory.
    func ended(_ exchange: ExchangeID, boardHost: (BoardID) -> BoardHost?, idle: (BoardHost) -> Void) {
        guard let stream = forget(exchange), let host = boardHost(stream.board) else { return }
        if let index = host.streams.open.firstIndex(of: exchange) { host.streams.open.remove(at: index) }
        if let index = host.streams.awaitingReset.firstIndex(of: exchange) {
            host.streams.awaitingReset.remove(at: index)
        }
        if host.streams.isIdle { host.streams.reset = nil }
        idle(host)
    }

    @discardableResult
    private func forget(_ exchange: ExchangeID) -> EventStream? {
        guard let stream = table.removeValue(forKey: exchange) else { return nil }
        if let count = perAddress[stream.peer] { perAddress[stream.peer] = count > 1 ? count - 1 : nil }
        return stream
    }

    /// The board leaves memory: its streams end (after `deleted` when it was deleted). A client
    /// whose board moved reconnects with `Last-Event-ID` and misses nothing.
    func end(of host: BoardHost, deleted: Bool) {
        // Those still waiting for their `reset` open and end as the others do.
        for exchange in host.streams.awaitingReset { begin(exchange, on: host, with: []) }
        host.streams.awaitingReset = []
        host.streams.resetRead = nil
        host.streams.reset = nil
        guard !host.streams.open.isEmpty else { return }
        if deleted { turn.emit(.stream(.deleted(host.id), to: host.streams.open)) }
        turn.emit(.endStream(host.streams.open))
        for exchange in host.streams.open { forget(exchange) }
        host.streams.open = []
    }

    /// Shutdown, after every board's streams ended: those still waiting for their board are
    /// answered 503.
    func refuseWaiting() {
        for exchange in exchanges { refuse(exchange, .error(503, "unavailable", "the server is shutting down")) }
    }

    // MARK: Time and tokens

    /// With access control, on each tick: the streams whose token has expired end with `expired`.
    /// `boardHost`, `idle`: as `ended`'s.
    func expire(boardHost: (BoardID) -> BoardHost?, idle: (BoardHost) -> Void) {
        guard config.auth != nil, !table.isEmpty else { return }
        let seconds = turn.wall.milliseconds / 1000
        end(.expired, boardHost: boardHost, idle: idle) { ($0.token?.expires ?? .max) <= seconds }
    }

    /// On each tick: streams older than `maxStreamAge` end. `boardHost`, `idle`: as `ended`'s.
    func endOld(boardHost: (BoardID) -> BoardHost?, idle: (BoardHost) -> Void) {
        let maxAge = turn.timers.maxStreamAge
        guard maxAge > .zero, !table.isEmpty else { return }
        let old = table.filter { now >= $0.value.began + maxAge }.keys.sorted { $0.rawValue < $1.rawValue }
        if !old.isEmpty { turn.emit(.endStream(old)) }
        for exchange in old { ended(exchange, boardHost: boardHost, idle: idle) }
    }

    /// On each tick, after `endOld`: a comment goes to the streams of every board of `hosts` (the
    /// boards in memory) quiet for `streamKeepalive`.
    func keepAlive(_ hosts: some Sequence<BoardHost>) {
        guard !table.isEmpty else { return }
        let keepalive = turn.timers.streamKeepalive
        for host in hosts where !host.streams.open.isEmpty && now >= host.streams.streamed + keepalive {
            host.streams.streamed = now
            turn.emit(.stream(.keepalive, to: host.streams.open))
        }
    }

    /// The streams whose token `isRevoked` says is revoked (by its id) end with `revoked`
    /// (Hub+Revocations.swift). `boardHost`, `idle`: as `ended`'s.
    func endRevoked(
        isRevoked: (String) -> Bool, boardHost: (BoardID) -> BoardHost?, idle: (BoardHost) -> Void
    ) {
        guard !table.isEmpty else { return }
        end(.revoked, boardHost: boardHost, idle: idle) { stream in stream.token.map { isRevoked($0.id) } ?? false }
    }

    /// Ends the streams `ended` picks, in exchange order, because of their token (`why`): an open
    /// one gets `why` as its last event; one not open yet is answered 401 as a new one would be.
    private func end(
        _ why: StreamEvent, boardHost: (BoardID) -> BoardHost?, idle: (BoardHost) -> Void,
        where ending: (EventStream) -> Bool
    ) {
        let picked = table.filter { ending($0.value) }.keys.sorted { $0.rawValue < $1.rawValue }
        guard !picked.isEmpty else { return }
        let what = why == .revoked ? "was revoked" : "expired"
        var open: [ExchangeID] = []
        for exchange in picked {
            guard let stream = table[exchange] else { continue }
            turn.log(.info, "\(exchange) from \(stream.peer): its token \(what); ending its event stream")
            guard case .open = stream.phase else {
                ended(exchange, boardHost: boardHost, idle: idle)
                turn.emit(.respond(exchange, Hub.unauthorized("the token \(what)")))
                continue
            }
            open.append(exchange)
        }
        guard !open.isEmpty else { return }
        turn.emit(.stream(why, to: open))
        turn.emit(.endStream(open))
        for exchange in open { ended(exchange, boardHost: boardHost, idle: idle) }
    }
}
