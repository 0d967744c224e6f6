package import BoardCore
import Synchronization

/// The shared "database" of an in-memory cluster: boards, leases, nodes and the cluster secret,
/// behind one mutex, for tests that run several nodes in one process. Each node talks to it
/// through its own `MemoryClusterStore`.
///
/// Its clock is injected (milliseconds, only ever compared with itself), so that a test can let a
/// lease run out without waiting: like PostgreSQL's `now()`, it alone decides lease expiry.
package final class MemoryClusterDatabase: Sendable {
    /// A board's lease: who holds it, at which epoch, until when (database time).
    struct Lease {
        var node: String
        var epoch: Int64
        var expires: Int64
    }

    /// A node as the database knows it.
    struct Node {
        var advertise: String
        var lease: Int64
        var renewed: Int64
    }

    struct Tables {
        var leases: [BoardID: Lease] = [:]
        var nodes: [String: Node] = [:]
        var secret: [UInt8]?
    }

    /// The boards themselves (its own mutex is only ever taken inside `tables`' for writes, so a
    /// lease check and the write it allows are one step).
    let boards = MemoryStore()
    let tables = Mutex(Tables())
    let clock: @Sendable () -> Int64

    /// A database whose clock is `clock` (milliseconds); by default the process's monotonic clock.
    package init(clock: (@Sendable () -> Int64)? = nil) {
        if let clock {
            self.clock = clock
        } else {
            let origin = ContinuousClock.now
            self.clock = {
                let (seconds, attoseconds) = (ContinuousClock.now - origin).components
                return seconds * 1000 + attoseconds / 1_000_000_000_000_000
            }
        }
    }

    /// The epoch of the board's lease (held or not), 0 when it never had one: for tests.
    package func epoch(of id: BoardID) -> Int64 { tables.withLock { $0.leases[id]?.epoch ?? 0 } }
}

/// One node's connection to a `MemoryClusterDatabase`: a `ClusterStore` that follows the fencing
/// rules of the protocol exactly. A write of a board commits only if the board's lease is this
/// node's, at the epoch this node claimed it at, unexpired by the database's clock, and its ops
/// continue the stored seq; otherwise the whole batch commits nothing and throws `.fenced`.
package final class MemoryClusterStore: ClusterStore {
    /// This node's name.
    package let node: String
    /// How other nodes reach this one.
    package let advertise: String
    /// How long a lease lasts, in seconds.
    package let leaseSeconds: Double
    private let database: MemoryClusterDatabase
    /// The epoch of each board this node has claimed, as it claimed it (nil once released).
    private let claimed = Mutex<[BoardID: Int64]>([:])
    private var leaseMilliseconds: Int64 { Int64(leaseSeconds * 1000) }

    /// Node `node` of the cluster whose database is `database`; it counts as alive from now.
    package init(database: MemoryClusterDatabase, node: String, advertise: String, leaseSeconds: Double = 5) {
        self.database = database
        self.node = node
        self.advertise = advertise
        self.leaseSeconds = leaseSeconds
        let lease = Int64(leaseSeconds * 1000)
        database.tables.withLock { tables in
            tables.nodes[node] = MemoryClusterDatabase.Node(
                advertise: advertise, lease: lease, renewed: database.clock())
        }
    }

    // MARK: ClusterStore

    /// Takes the lease when it is free, expired or this node's (then extended); with `force`, from anyone.
    package func claim(_ id: BoardID, force: Bool) throws(StoreError) -> Claim {
        let (claim, epoch) = database.tables.withLock { tables -> (Claim, Int64?) in
            let now = database.clock()
            let lease = tables.leases[id]
            if let lease, lease.expires > now {
                if lease.node == node {
                    tables.leases[id]!.expires = now + leaseMilliseconds
                    return (.mine(epoch: lease.epoch), lease.epoch)
                }
                if !force {
                    return (.owned(by: lease.node, advertise: tables.nodes[lease.node]?.advertise ?? ""), nil)
                }
            }
            let epoch = (lease?.epoch ?? 0) + 1
            tables.leases[id] = MemoryClusterDatabase.Lease(node: node, epoch: epoch, expires: now + leaseMilliseconds)
            return (.mine(epoch: epoch), epoch)
        }
        if let epoch { claimed.withLock { $0[id] = epoch } }
        return claim
    }

    /// Extends every unexpired lease this node holds at the epoch it claimed; marks it alive.
    package func renew() throws(StoreError) -> Set<BoardID> {
        let mine = claimed.withLock { $0 }
        return database.tables.withLock { tables in
            let now = database.clock()
            tables.nodes[node]?.renewed = now
            var held = Set<BoardID>()
            for (id, epoch) in mine {
                guard let lease = tables.leases[id], lease.node == node, lease.epoch == epoch, lease.expires > now
                else { continue }
                tables.leases[id]!.expires = now + leaseMilliseconds
                held.insert(id)
            }
            return held
        }
    }

    /// Lets the lease run out now, when it is still this node's at its epoch; the epoch stays.
    package func release(_ id: BoardID) throws(StoreError) {
        guard let epoch = claimed.withLock({ $0.removeValue(forKey: id) }) else { return }
        database.tables.withLock { tables in
            let now = database.clock()
            guard let lease = tables.leases[id], lease.node == node, lease.epoch == epoch else { return }
            tables.leases[id]!.expires = min(lease.expires, now)
        }
    }

    /// Every node, by name, with its live leases counted.
    package func nodes() throws(StoreError) -> [ClusterNode] {
        database.tables.withLock { tables in
            let now = database.clock()
            var boards: [String: Int] = [:]
            for lease in tables.leases.values where lease.expires > now { boards[lease.node, default: 0] += 1 }
            return tables.nodes.sorted { $0.key < $1.key }.map { name, known in
                ClusterNode(
                    name: name, advertise: known.advertise, alive: now - known.renewed < known.lease,
                    boards: boards[name] ?? 0)
            }
        }
    }

    /// The holder of the board's live lease.
    package func owner(of id: BoardID) throws(StoreError) -> String? {
        database.tables.withLock { tables in
            guard let lease = tables.leases[id], lease.expires > database.clock() else { return nil }
            return lease.node
        }
    }

    /// 32 random bytes, made by the first node that asks.
    package func clusterSecret() throws(StoreError) -> [UInt8] {
        database.tables.withLock { tables in
            if let secret = tables.secret { return secret }
            var generator = SystemRandomNumberGenerator()
            let secret = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            tables.secret = secret
            return secret
        }
    }

    // MARK: BoardStore

    /// Commits the batch only if every board in it passes the fence; otherwise nothing, `.fenced`.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        let mine = claimed.withLock { $0 }
        let refusal: String? = database.tables.withLock { tables in
            let now = database.clock()
            // Each board's seq as the batch goes (absent: not stored), starting from what is stored.
            var seqs: [BoardID: Seq] = [:]
            var looked = Set<BoardID>()
            for write in batch {
                let id = write.boardID
                guard let lease = tables.leases[id], lease.node == node, lease.epoch == mine[id], lease.expires > now
                else { return "board \(id): this node does not hold its lease at the epoch it claimed" }
                if looked.insert(id).inserted { seqs[id] = storedSeq(id) }
                switch write {
                case .create:
                    if seqs[id] == nil { seqs[id] = 0 }
                case .append(_, let ops):
                    guard var seq = seqs[id] else { return "board \(id): ops for a board that is not stored" }
                    for op in ops {
                        guard op.seq == seq + 1 else {
                            return "board \(id): op seq \(op.seq) does not continue the stored seq \(seq)"
                        }
                        seq = op.seq
                    }
                    seqs[id] = seq
                case .delete:
                    seqs[id] = nil
                case .restore(let archive):
                    if seqs[id] == nil { seqs[id] = archive.seq }
                }
            }
            // Only the writer threads write: nothing can come between the check and the write.
            try? database.boards.write(batch)
            return nil
        }
        if let refusal { throw StoreError(refusal, kind: .fenced) }
    }

    private func storedSeq(_ id: BoardID) -> Seq? {
        (try? database.boards.load(id, recentLimit: 0))??.seq
    }

    /// The board as the database has it.
    package func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        try database.boards.load(id, recentLimit: recentLimit)
    }

    /// Whether the database has the board.
    package func exists(_ id: BoardID) throws(StoreError) -> Bool { try database.boards.exists(id) }

    /// A page of the database's boards.
    package func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        try database.boards.list(after: after, limit: limit)
    }

    /// A page of a board's op log.
    package func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        try database.boards.ops(of: id, since: since, limit: limit)
    }

    /// The board as of a seq.
    package func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf {
        try database.boards.board(id, at: seq)
    }

    /// A page of a board's history, newest first.
    package func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        try database.boards.history(of: id, before: before, limit: limit)
    }

    /// The board's archive.
    package func archive(of id: BoardID) throws(StoreError) -> BoardArchive? { try database.boards.archive(of: id) }

    package func comments(of id: BoardID, item: ItemID, before: Seq?, limit: Int) throws(StoreError) -> CommentsPage {
        try database.boards.comments(of: id, item: item, before: before, limit: limit)
    }

    /// Search hits, from the shared boards' index.
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        try database.boards.search(query, board: board, limit: limit)
    }

    /// Rebuilds the shared boards' index.
    package func reindex(all: Bool) throws(StoreError) -> Int { try database.boards.reindex(all: all) }

    /// Stores an archived board (no lease needed: this is the import path, not a node's writes).
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try database.boards.restore(archive, replace: replace)
    }

    /// Nothing to release: the database lives on for the other nodes.
    package func close() {}
}

extension StoreWrite {
    /// The board this write changes.
    package var boardID: BoardID {
        switch self {
        case .create(let board): board.id
        case .append(let id, _), .delete(let id): id
        case .restore(let archive): archive.id
        }
    }
}
