package import BoardCore
package import BoardStore

// What the history routes ask of the store, answered and encoded on the reader thread:
// `GET /api/boards/{id}?at=SEQ` and `GET /api/boards/{id}/history?before=SEQ&limit=N`.

/// `GET /api/boards/{id}?at=SEQ`: the board as it was right after op `seq`.
package struct BoardAtRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The seq asked for.
    package var seq: Seq
    /// The board's published seq when it is in memory (later ops may be stored but are not
    /// visible yet); nil: the store's seq is the board's.
    package var visible: Seq?

    /// A request.
    package init(board: BoardID, seq: Seq, visible: Seq?) {
        self.board = board
        self.seq = seq
        self.visible = visible
    }

    /// Reads the board as of `seq` and encodes the answer; nil for a board the store does not have.
    package func run(on store: any BoardStore) throws(StoreError) -> HTTPResponse? {
        if let visible, seq > visible { return Self.ahead(seq, current: visible) }
        return response(try store.board(board, at: seq))
    }

    /// 200 `{"seq", "board", "time"}`; 410 `{"error":"compacted", "oldest"}`; 400 for a seq after
    /// the board's; nil for a board the store does not have.
    package func response(_ answer: BoardAsOf) -> HTTPResponse? {
        switch answer {
        case .board(let board, let time):
            return .json(200) { w in
                w.beginObject()
                w.write("seq", seq)
                board.encode(into: &w, key: "board")
                if let time { w.write("time", Int(time.milliseconds)) } else { w.write("time", nil as String?) }
                w.endObject()
            }
        case .compacted(let oldest):
            return .json(410) { w in
                w.beginObject()
                w.write("error", "compacted")
                w.write("message", "the board as of seq \(seq) is no longer kept; the oldest kept is seq \(oldest)")
                w.write("oldest", oldest)
                w.endObject()
            }
        case .ahead(let current):
            return Self.ahead(seq, current: current)
        case .unknownBoard:
            return nil
        }
    }

    static func ahead(_ seq: Seq, current: Seq) -> HTTPResponse {
        .error(400, "bad_request", "at must be at most the board's seq (\(current)), not \(seq)")
    }
}

/// `GET /api/boards/{id}/history?before=SEQ&limit=N`: committed ops newest first, each with who
/// (id and name) and when, cut at `limit` ops and at `maxBytes` of JSON like a page of ops.
package struct HistoryPageRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The ops before this seq (nil: from the newest).
    package var before: Seq?
    /// At most this many ops.
    package var limit: Int
    /// The board's published seq when it is in memory; nil: the store's seq is the board's.
    package var visible: Seq?
    /// The page stops before the op that would take its body past this many bytes (one op is
    /// always on it), and says where to go on (`--max-page-bytes`).
    package var maxBytes: Int

    /// A request.
    package init(board: BoardID, before: Seq?, limit: Int, visible: Seq?, maxBytes: Int) {
        self.board = board
        self.before = before
        self.limit = limit
        self.visible = visible
        self.maxBytes = maxBytes
    }

    /// Reads the page in chunks of at most `chunk` ops, newest first, until it is full (by
    /// count or bytes) or the ops run out, and encodes it; nil for a board the store does not have.
    package func run(on store: any BoardStore, chunk: Int = 256) throws(StoreError) -> HTTPResponse? {
        var encoder: HistoryPageEncoder?
        var before = self.before.map { min($0, (visible ?? .max - 1) + 1) } ?? (visible.map { $0 + 1 } ?? .max)
        while encoder.map({ !$0.full && $0.count < limit }) ?? true {
            let asked = min(chunk, limit - (encoder?.count ?? 0))
            guard
                case .ops(let ops, let current, let oldest) = try store.history(of: board, before: before, limit: asked)
            else {
                // Unknown from the start; later (deleted meanwhile) the page ends.
                return encoder?.response()
            }
            if encoder == nil {
                encoder = HistoryPageEncoder(current: visible ?? current, oldest: oldest, maxBytes: maxBytes)
            }
            for op in ops where encoder!.add(op) {}
            guard ops.count == asked, let last = ops.last else { break }
            before = last.seq
        }
        return encoder?.response()
    }

    /// The answer for a board in memory that the store does not have yet (made by `hello`, never
    /// changed): no ops.
    package static func empty(current: Seq) -> HTTPResponse {
        HistoryPageEncoder(current: current, oldest: current, maxBytes: .max).response()
    }
}

/// Writes a page of history as it is read, newest first: stops taking ops once the next would
/// take the body past `maxBytes` (the first is always taken).
struct HistoryPageEncoder {
    let current: Seq
    let oldest: Seq
    let maxBytes: Int
    private var w = JSONWriter()
    private(set) var count = 0
    private(set) var full = false
    private var last: Seq?

    init(current: Seq, oldest: Seq, maxBytes: Int) {
        self.current = current
        self.oldest = oldest
        self.maxBytes = maxBytes
        w.beginObject()
        w.write("seq", current)
        w.write("oldest", oldest)
        w.beginArray("history")
    }

    /// Takes `op` when it fits; returns false once the page is full.
    mutating func add(_ op: CommittedOp) -> Bool {
        guard !full, op.seq <= current else { return full ? false : true }
        var entry = JSONWriter()
        op.encodeHistoryEntry(into: &entry)
        // 64 bytes for what follows the entries: `],"more":false,"next":N}`.
        if last != nil && w.bytes.count + 1 + entry.bytes.count + 64 > maxBytes {
            full = true
            return false
        }
        w.writeRaw(nil, entry.bytes)
        count += 1
        last = op.seq
        return true
    }

    /// The answer, with `more` (and `next`, the `before` of the next page) when older ops are kept.
    func response() -> HTTPResponse {
        var w = w
        w.endArray()
        let more = last.map { $0 > oldest + 1 } ?? false
        w.write("more", more)
        if more, let last { w.write("next", last) }
        w.endObject()
        return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
    }
}
