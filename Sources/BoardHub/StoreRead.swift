package import BoardCore
package import BoardStore

/// A question for the store, asked by the hub and answered off the service thread.
package enum StoreRead: Equatable, Sendable {
    /// The board, made into a `Room` on the reader thread (replaying up to `historyLimit` ops
    /// into its history is real work, and none of it should run on the service thread).
    case load(BoardID, Room.Settings)
    /// The board as stored, without its ops (for `GET /api/boards/{id}`).
    case snapshot(BoardID)
    /// Whether the store has the board.
    case exists(BoardID)
    /// A page of boards: up to `limit` with ids after `after`.
    case list(after: BoardID?, limit: Int)
    /// A page of a board's op log, encoded as `GET /api/boards/{id}/ops` answers it (a large
    /// page is megabytes of JSON: encoding it is no work for the service thread).
    case opsPage(OpsPageRequest)
    /// No question for the store: the board's snapshot as `GET /api/boards/{id}` answers it,
    /// encoded off the service thread (a large board is megabytes of JSON).
    case encodeSnapshot(Board, seq: Seq, clustered: Bool, owner: String?)
    /// In a cluster: claim the board's lease (`force`: even from a live owner) and, when this node
    /// holds it, load the board as `load` does.
    case claim(BoardID, Room.Settings, force: Bool)
    /// In a cluster: the nodes and how many boards each owns.
    case nodes
    /// In a cluster: the board as stored, as `snapshot` reads it, and the node holding its live lease.
    case snapshotAndOwner(BoardID)
    /// Store a revocation, forgetting those expired at `now` (seconds since 1970); a write, made
    /// off the service thread like every store call the hub asks for.
    case revoke(Revocation, now: Int64)
    /// The revocations in force at `now` (seconds since 1970).
    case revocations(now: Int64)
    /// The board as it was right after op `seq`, for a restore.
    case boardAt(BoardID, Seq)
    /// `GET /api/boards/{id}?at=SEQ`: the board as of a seq, read and encoded off the service thread.
    case boardAtAnswer(BoardAtRequest)
    /// `GET /api/boards/{id}/history`: a page of ops, newest first, encoded off the service thread.
    case historyPage(HistoryPageRequest)

    /// Asks `store`. Runs on the reader thread, never on the service thread.
    package func run(on store: any BoardStore) -> StoreAnswer {
        do throws(StoreError) {
            switch self {
            case .load(let id, let settings):
                let stored = try store.load(id, recentLimit: settings.historyLimit)
                return .room(stored.map { Room(board: $0.board, seq: $0.seq, recent: $0.recent, settings: settings) })
            case .snapshot(let id): return .board(try store.load(id, recentLimit: 0))
            case .exists(let id): return .exists(try store.exists(id))
            case .list(let after, let limit): return .list(try store.list(after: after, limit: limit))
            case .opsPage(let request): return .encoded(try request.run(on: store))
            case .encodeSnapshot(let board, let seq, let clustered, let owner):
                return .encoded(Hub.snapshot(board, seq: seq, clustered: clustered, owner: owner))
            case .claim(let id, let settings, let force):
                guard let cluster = store as? any ClusterStore else {
                    return .failed(StoreError("claim needs a cluster store"))
                }
                switch try cluster.claim(id, force: force) {
                case .owned(let node, let advertise): return .elsewhere(node: node, advertise: advertise)
                case .mine: return StoreRead.load(id, settings).run(on: store)
                }
            case .nodes:
                guard let cluster = store as? any ClusterStore else {
                    return .failed(StoreError("nodes needs a cluster store"))
                }
                return .nodes(try cluster.nodes())
            case .snapshotAndOwner(let id):
                guard let cluster = store as? any ClusterStore else {
                    return .failed(StoreError("the owner needs a cluster store"))
                }
                let owner = try cluster.owner(of: id)
                return .boardAndOwner(try store.load(id, recentLimit: 0), owner: owner)
            case .revoke(let revocation, let now):
                guard let revocations = store as? any RevocationStore else {
                    return .failed(StoreError("this store keeps no revocations"))
                }
                try revocations.revoke(revocation, now: now)
                return .revoked(revocation)
            case .revocations(let now):
                guard let revocations = store as? any RevocationStore else { return .revocations(RevocationSet()) }
                return .revocations(RevocationSet(try revocations.revocations(now: now)))
            case .boardAt(let id, let seq):
                let answer = try store.board(id, at: seq)
                // Its size is what the restore costs the sender (`Hub.restoreRead`), measured here.
                if case .board(let board, _) = answer { return .boardAsOf(answer, bytes: board.encoded().count) }
                return .boardAsOf(answer, bytes: 0)
            case .boardAtAnswer(let request): return .encoded(try request.run(on: store))
            case .historyPage(let request): return .encoded(try request.run(on: store))
            }
        } catch {
            return .failed(error)
        }
    }
}

/// The store's answer to a `StoreRead`.
package enum StoreAnswer: Sendable {
    /// The answer to `load`: the board's room, or nil when the store has none.
    case room(Room?)
    /// The answer to `snapshot`: the board, or nil when the store has none.
    case board(StoredBoard?)
    /// The answer to `exists`.
    case exists(Bool)
    /// The answer to `list`.
    case list([BoardSummary])
    /// The answer to `opsPage`, `encodeSnapshot`, `boardAtAnswer` and `historyPage`: the HTTP
    /// answer, or nil when the store has no such board (the hub may have it in memory, not stored yet).
    case encoded(HTTPResponse?)
    /// The answer to `claim` when another node owns the board.
    case elsewhere(node: String, advertise: String)
    /// The answer to `nodes`.
    case nodes([ClusterNode])
    /// The answer to `snapshotAndOwner`.
    case boardAndOwner(StoredBoard?, owner: String?)
    /// The answer to `revoke`: it is durable.
    case revoked(Revocation)
    /// The answer to `revocations`, made into a set on the reader thread.
    case revocations(RevocationSet)
    /// The answer to `boardAt`, and the board's size as JSON (0 when there is none).
    case boardAsOf(BoardAsOf, bytes: Int)
    /// The store failed.
    case failed(StoreError)
}

/// What `GET /api/boards/{id}/ops` asks of the store, and how its page is cut.
package struct OpsPageRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The ops after this seq.
    package var since: Seq
    /// At most this many ops.
    package var limit: Int
    /// The board's published seq when it is in memory (ops after it are not visible yet, though
    /// they may be stored); nil: the store's seq is the board's.
    package var visible: Seq?
    /// The page stops before the op that would take its body past this many bytes (one op is
    /// always on it), and says where to go on (`--max-page-bytes`).
    package var maxBytes: Int

    /// A request.
    package init(board: BoardID, since: Seq, limit: Int, visible: Seq?, maxBytes: Int) {
        self.board = board
        self.since = since
        self.limit = limit
        self.visible = visible
        self.maxBytes = maxBytes
    }

    /// Reads the page in chunks of at most `chunk` ops, until it is full (by count or bytes) or
    /// the ops run out, and encodes it; nil for a board the store does not have.
    package func run(on store: any BoardStore, chunk: Int = 256) throws(StoreError) -> HTTPResponse? {
        var encoder: OpsPageEncoder?
        var after = since
        while encoder.map({ !$0.full && $0.count < limit }) ?? true {
            let asked = min(chunk, limit - (encoder?.count ?? 0))
            let page = try store.ops(of: board, since: after, limit: asked)
            guard case .ops(let ops, let current) = page else {
                // Gone or unknown from the start; later (compacted or deleted meanwhile) the page ends.
                if let encoder { return encoder.response() }
                return response(page)
            }
            if encoder == nil { encoder = OpsPageEncoder(current: visible ?? current, maxBytes: maxBytes) }
            for op in ops where encoder!.add(op) {}
            guard ops.count == asked, let last = ops.last, last.seq < encoder!.current else { break }
            after = last.seq
        }
        return encoder?.response()
    }

    /// The answer to `page` (all of it read): `{"seq", "ops", "more"}` and, with more to come,
    /// `"next"` (the `since` of the next page); 410 when ops were compacted away; nil for a board
    /// the store does not have.
    package func response(_ page: OpsPage) -> HTTPResponse? {
        switch page {
        case .gone:
            return .error(410, "gone", "ops after \(since) were compacted away; load the board snapshot instead")
        case .unknownBoard:
            return nil
        case .ops(let stored, let storedSeq):
            var encoder = OpsPageEncoder(current: visible ?? storedSeq, maxBytes: maxBytes)
            for op in stored.prefix(limit) where encoder.add(op) {}
            return encoder.response()
        }
    }
}

/// Writes a page of ops as it is read: stops taking ops once the next would take the body past
/// `maxBytes` (the first is always taken), or once they pass the board's current seq.
struct OpsPageEncoder {
    /// The board's seq the page is of: later ops are not on it.
    let current: Seq
    let maxBytes: Int
    private var w = JSONWriter()
    private(set) var count = 0
    private(set) var full = false
    private var last: Seq?

    init(current: Seq, maxBytes: Int) {
        self.current = current
        self.maxBytes = maxBytes
        w.beginObject()
        w.write("seq", current)
        w.beginArray("ops")
    }

    /// Takes `op` when it fits; returns false once the page is full or `op` is past `current`.
    mutating func add(_ op: CommittedOp) -> Bool {
        guard !full, op.seq <= current else { return false }
        let encoded = ServerMessage.committed(op).encoded()
        // 64 bytes for what follows the ops: `],"more":false,"next":N}`.
        if last != nil && w.bytes.count + 1 + encoded.count + 64 > maxBytes {
            full = true
            return false
        }
        w.writeRaw(nil, encoded)
        count += 1
        last = op.seq
        return true
    }

    /// The answer, with `more` (and `next`) when ops after the last one are published.
    func response() -> HTTPResponse {
        var w = w
        w.endArray()
        let more = last.map { $0 < current } ?? false
        w.write("more", more)
        if more, let last { w.write("next", last) }
        w.endObject()
        return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
    }
}
