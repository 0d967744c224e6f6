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
    /// A page of a board's op log.
    case ops(BoardID, since: Seq, limit: Int)
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
            case .ops(let id, let since, let limit): return .ops(try store.ops(of: id, since: since, limit: limit))
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
                guard let revocations = store as? any RevocationStore else { return .revocations([]) }
                return .revocations(try revocations.revocations(now: now))
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
    /// The answer to `ops`.
    case ops(OpsPage)
    /// The answer to `claim` when another node owns the board.
    case elsewhere(node: String, advertise: String)
    /// The answer to `nodes`.
    case nodes([ClusterNode])
    /// The answer to `snapshotAndOwner`.
    case boardAndOwner(StoredBoard?, owner: String?)
    /// The answer to `revoke`: it is durable.
    case revoked(Revocation)
    /// The answer to `revocations`.
    case revocations([Revocation])
    /// The store failed.
    case failed(StoreError)
}
