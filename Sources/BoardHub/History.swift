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

    /// The seq `?at=` names, or the 400 that says why it names none: "a non-negative integer"
    /// only when it is not one; a number past any seq a board can reach (2^31 - 1, the API
    /// description's maximum) is named as such, whatever its size (issue 29: it was told it was
    /// not an integer).
    package static func seq(_ text: String) -> AtSeq {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return .refused(.error(400, "bad_request", "at must be a non-negative integer"))
        }
        guard let seq = Int(text), seq <= Int(Int32.max) else {
            return .refused(
                .error(
                    400, "bad_request",
                    "at must be at most 2147483647 (no board has a seq past it), not \(text.prefix(40))"))
        }
        return .seq(seq)
    }

    /// What `?at=` names: a seq, or the answer that refuses it.
    package enum AtSeq: Equatable, Sendable {
        /// A seq a board can have.
        case seq(Seq)
        /// A 400.
        case refused(HTTPResponse)
    }

    /// 404 `unknown_seq`: `seq` is after the board's `current` seq, a version of the board that
    /// does not exist (yet). Not 400: the request is well formed (issue 29: a `?at=` the API
    /// description accepts must not be refused as malformed); `seq` says how far it goes.
    package static func ahead(_ seq: Seq, current: Seq) -> HTTPResponse {
        .json(404) { w in
            w.beginObject()
            w.write("error", "unknown_seq")
            w.write("message", "the board's seq is \(current): there is no version \(seq) yet")
            w.write("seq", current)
            w.endObject()
        }
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

    /// The answer for a board in memory that the store does not have yet (made by `hello`, never
    /// changed): no ops.
    package static func empty(current: Seq) -> HTTPResponse {
        HistoryPageEncoder(current: current, oldest: current, maxBytes: .max).response()
    }
}

/// Writes a page of history as it is read, newest first: stops taking ops once the next would
/// take the body past `maxBytes` (the first is always taken).
package struct HistoryPageEncoder: PageEncoder {
    let current: Seq
    let oldest: Seq
    private var body: PageBody
    package var count: Int { body.count }
    package var full: Bool { body.full }

    /// An empty page of the board at `current` whose oldest kept op follows `oldest`.
    package init(current: Seq, oldest: Seq, maxBytes: Int) {
        self.current = current
        self.oldest = oldest
        body = PageBody(seq: current, oldest: oldest, array: "history", maxBytes: maxBytes)
    }

    /// Takes `op` when it fits; returns false once the page is full.
    package mutating func add(_ op: CommittedOp) -> Bool {
        guard !body.full, op.seq <= current else { return !body.full }
        var entry = JSONWriter()
        op.encodeHistoryEntry(into: &entry)
        return body.take(entry.bytes, seq: op.seq)
    }

    /// The answer, with `more` (and `next`, the `before` of the next page) when older ops are kept.
    package func response() -> HTTPResponse { body.response(more: body.last.map { $0 > oldest + 1 } ?? false) }
}
