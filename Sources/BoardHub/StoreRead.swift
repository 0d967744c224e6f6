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
            case .opsPage(let request):
                let page = try store.ops(of: request.board, since: request.since, limit: request.limit)
                return .encoded(request.response(page))
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
    /// The answer to `opsPage` and `encodeSnapshot`: the HTTP answer, or nil when the store has
    /// no such board (the hub may have it in memory, not stored yet).
    case encoded(HTTPResponse?)
    /// The answer to `claim` when another node owns the board.
    case elsewhere(node: String, advertise: String)
    /// The answer to `nodes`.
    case nodes([ClusterNode])
    /// The answer to `snapshotAndOwner`.
    case boardAndOwner(StoredBoard?, owner: String?)
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

    /// The answer: `{"seq", "ops", "more"}` and, with more to come, `"next"` (the `since` of the
    /// next page); 410 when ops were compacted away; nil for a board the store does not have.
    package func response(_ page: OpsPage) -> HTTPResponse? {
        switch page {
        case .gone:
            return .error(410, "gone", "ops after \(since) were compacted away; load the board snapshot instead")
        case .unknownBoard:
            return nil
        case .ops(let stored, let storedSeq):
            let current = visible ?? storedSeq
            var w = JSONWriter()
            w.beginObject()
            w.write("seq", current)
            w.beginArray("ops")
            var bytes = 0
            var last: Seq?
            for op in stored where op.seq <= current {
                let encoded = ServerMessage.committed(op).encoded()
                // 64 bytes for the page's own keys and commas.
                if last != nil && bytes + encoded.count + 64 > maxBytes { break }
                bytes += encoded.count + 1
                w.writeRaw(nil, encoded)
                last = op.seq
            }
            w.endArray()
            let more = last.map { $0 < current } ?? false
            w.write("more", more)
            if more, let last { w.write("next", last) }
            w.endObject()
            return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
        }
    }
}
