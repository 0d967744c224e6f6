package import BoardCore
import Synchronization

/// Boards in a PostgreSQL database shared by the nodes of a cluster: the same snapshots, op log,
/// compaction and archives as `SQLiteStore`, plus one owner per board through leases with epochs.
///
/// Every `write` of a board is fenced in its own transaction (see `ClusterStore`): the board's
/// lease row is locked and must be this node's, at the epoch this store's last `claim` of it
/// returned, unexpired by the database's clock, and the batch must continue the stored seq.
/// A committed transaction is durable (PostgreSQL's `synchronous_commit`, on by default).
///
/// Threads: a connection per role, each in its own mutex so any thread may call anything: the
/// writers' (`write`, `restore`: one, or `writers` of them, each writing its own share of the
/// boards, PostgresStore+Writers.swift), the reader's (`load`, `exists`, `list`, `ops`,
/// `archive`, `claim`, `nodes`, `owner`) and the renewal thread's (`renew`, `release`,
/// `clusterSecret`, `setAdvertise`). A connection that breaks is opened again on its next use.
package final class PostgresStore: ClusterStore {
    /// This node's name (`--node`).
    package let node: String
    /// How long a lease lasts, in seconds (`--lease`).
    package let leaseSeconds: Double
    /// The server and database, without a password: `postgresql://USER@HOST:PORT/DB`.
    package let location: String
    /// How many write batches the node's writer keeps on their way at once (PostgresStore+Pipeline.swift).
    package let pipelineDepth: Int
    /// How many writer connections write boards side by side (`--store-writers`).
    package let writerCount: Int

    // Each mutex guards one connection; nil once closed.
    /// Writer 0 (also revocations, links, batches on their way), then writers 1 ..< `writerCount`.
    let writer: Mutex<PostgresWriter?>
    let moreWriters: [WriterSlot]
    private let reader: Mutex<PostgresConnection?>
    private let renewer: Mutex<PostgresConnection?>
    /// The epoch of this node's last successful claim of each board: the token its writes carry.
    let claimed = Mutex<[BoardID: Int64]>([:])
    /// How other nodes reach this one; written into `nodes` by `renew`. Nil for a tool, not a node.
    private let advertised: Mutex<String?>
    /// The cluster secret, once read.
    private let secret = Mutex<[UInt8]?>(nil)
    /// Decoded snapshots for `board(_:at:)` (SnapshotCache.swift, SQLStore+Reads.swift).
    package let snapshots: SnapshotCache

    /// The longest node name.
    package static let maxNodeBytes = 128

    /// Connects to the database `url` names (`postgresql://USER@HOST:PORT/DB`; libpq reads the URL,
    /// and a password may come from it or from `~/.pgpass`), brings its schema up to date, and
    /// records this node and its `advertise` address. A nil `advertise` is a tool (export,
    /// import), not a node: it is not listed in `nodes`. Without `migrate` an out-of-date
    /// schema is refused instead of upgraded (for export, which should change nothing).
    ///
    /// A board is snapshotted every `snapshotEvery` ops, and its newest `keepOps` ops stay
    /// available to `ops(of:since:limit:)` within `keepOpBytes`; its snapshots are thinned to
    /// `keepSnapshotBytes` (`BoardLog`). Errors name the server, never the password.
    /// `pipelining` off makes every batch wait for each statement's answer (the store bench
    /// measures both ways); `pipelineDepth` is how many batches the node's writer keeps on their
    /// way at once (`PipelinedWrites`). `writers` connections write boards side by side, each
    /// board always on the same one (PostgresStore+Writers.swift); more than one needs a depth of 1.
    /// Reads of old seqs keep up to `snapshotCacheBytes` of decoded snapshots (`SnapshotCache`).
    package init(
        url: String, node: String, advertise: String?, leaseSeconds: Double = 5, snapshotEvery: Int = 100,
        keepOps: Int = 10_000, keepSnapshotBytes: Int = KeptBytes.snapshots, keepOpBytes: Int = KeptBytes.ops,
        migrate: Bool = true, pipelining: Bool = true, pipelineDepth: Int = 2, writers: Int = 1,
        snapshotCacheBytes: Int = SnapshotCache.defaultLimit
    ) throws(StoreError) {
        snapshots = SnapshotCache(limit: snapshotCacheBytes)
        if let problem = Self.problem(nodeName: node) { throw StoreError(problem) }
        guard leaseSeconds > 0, leaseSeconds <= 3600 else {
            throw StoreError("a lease must last more than 0 and at most 3600 seconds")
        }
        self.node = node
        self.leaseSeconds = leaseSeconds
        self.pipelineDepth = pipelining ? max(pipelineDepth, 1) : 1
        guard (1...Self.maxWriters).contains(writers) else {
            throw StoreError("a store has 1 to \(Self.maxWriters) writer connections, not \(writers)")
        }
        guard writers == 1 || self.pipelineDepth == 1 else {
            throw StoreError("several writer connections need write batches one at a time (a pipeline depth of 1)")
        }
        writerCount = writers
        location = try PostgresConnection.describe(url)
        advertised = Mutex(advertise)

        let settings = Self.sessionSettings(leaseSeconds: leaseSeconds)
        let writerDB = try PostgresConnection(url: url, settings: settings)
        if migrate { try PostgresSchema.migrate(writerDB) } else { try PostgresSchema.checkCurrent(writerDB) }
        let readerDB = try PostgresConnection(url: url, settings: settings)
        let renewerDB = try PostgresConnection(url: url, settings: settings)
        func makeWriter(_ db: PostgresConnection) -> PostgresWriter {
            PostgresWriter(
                db: db, node: node, snapshotEvery: snapshotEvery, keepOps: keepOps,
                keepSnapshotBytes: keepSnapshotBytes, keepOpBytes: keepOpBytes, pipelining: pipelining)
        }
        writer = Mutex(makeWriter(writerDB))
        var more: [WriterSlot] = []
        for _ in 1..<writers {
            more.append(WriterSlot(makeWriter(try PostgresConnection(url: url, settings: settings))))
        }
        moreWriters = more
        reader = Mutex(readerDB)
        renewer = Mutex(renewerDB)
        // An index missing or behind the log (a database from before it) is rebuilt now.
        if migrate { _ = try reindex(all: false) }
        try onRenewer { db throws(StoreError) in
            // Nodes gone for a day are forgotten, so that restarts under new names do not pile up.
            try db.query("DELETE FROM nodes WHERE last_seen < now() - interval '1 day'")
            try recordNode(db)
        }
    }

    deinit { close() }

    /// What every connection of the store sets for its session.
    ///
    /// `idle_in_transaction_session_timeout`: a node stopped (SIGSTOP, a long pause) in the middle
    /// of a transaction holds its lease rows locked, and a lock outlives any lease: no other node
    /// could take those boards until it woke up. The server ends such a session once it has been
    /// idle in a transaction for one lease (at least 2 s, far above the milliseconds a
    /// transaction of this store spends between statements), which rolls it back and frees the rows.
    ///
    /// `statement_timeout`: a statement that hangs (a server that stopped answering, a lock that
    /// is never freed) would hold its thread, and the writer, the reader or the renewals with it,
    /// for as long as TCP takes to notice. After two leases (at least 10 s) the server cancels it;
    /// that is a transient error (SQLSTATE 57014), so the writer retries the batch.
    static func sessionSettings(leaseSeconds: Double) -> [(name: String, value: String)] {
        let lease = Int((leaseSeconds * 1000).rounded())
        return [
            ("idle_in_transaction_session_timeout", "\(max(2000, lease))"),
            ("statement_timeout", "\(max(10_000, 2 * lease))"),
        ]
    }

    /// Why `name` cannot be a node name (1 to `maxNodeBytes` bytes, no control characters), or nil.
    package static func problem(nodeName name: String) -> String? {
        let control = name.unicodeScalars.contains { $0.properties.generalCategory == .control }
        guard name.isEmpty || name.utf8.count > maxNodeBytes || control else { return nil }
        return "a node name must be 1 to \(maxNodeBytes) bytes without control characters"
    }

    /// Closes every connection; later calls throw. Safe to call twice.
    package func close() {
        closeAndEmpty(reader)
        closeAndEmpty(renewer)
        closeAndEmpty(writer)
        for slot in moreWriters { closeAndEmpty(slot.writer) }
    }

    /// The address other nodes reach this one at (nil: a tool, not listed as a node).
    package var advertise: String? { advertised.withLock { $0 } }

    /// Changes the address other nodes reach this one at (for a server that learns its port only
    /// once it listens) and records it at once.
    package func setAdvertise(_ address: String) throws(StoreError) {
        advertised.withLock { $0 = address }
        try onRenewer { db throws(StoreError) in try recordNode(db) }
    }

    // MARK: Writing

    /// Applies the batch in one transaction, each board fenced (see the type's comment), on the
    /// connection of its boards' writer (PostgresStore+Writers.swift); when this returns the batch
    /// is durable. On error nothing of the batch is stored; `.fenced` names the board.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        let epochs = claimed.withLock { $0 }
        defer { for case .delete(let id) in batch { snapshots.forget(id) } }
        var owners = Set<Int>()
        for change in batch { owners.insert(writer(of: change.boardID)) }
        guard owners.count > 1 else {
            return try withWriter(owners.first ?? 0) { writer throws(StoreError) in
                try writer.write(batch, epochs: epochs)
            }
        }
        try writeAcrossWriters(batch, epochs: epochs)
    }

    /// Stores an archived board (import), refusing to overwrite an existing one unless `replace`.
    /// Like a write, it needs this node's lease on the board (`claim` it first).
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        let epoch = claimed.withLock { $0[archive.id] }
        defer { snapshots.forget(archive.id) }
        try withWriter(writer(of: archive.id)) { writer throws(StoreError) in
            try writer.restore(archive, replace: replace, epoch: epoch)
        }
    }

    /// Drops the writer's replica of the board: it left the server's memory.
    package func forget(_ id: BoardID) {
        try? withWriter(writer(of: id)) { writer in writer.forget(id) }
    }

    // MARK: Leases

    /// Takes the board's lease in one transaction when there is no lease, it ran out, it is this
    /// node's (then only extended) or `force`; taking it bumps the epoch. Otherwise says who holds it.
    package func claim(_ id: BoardID, force: Bool) throws(StoreError) -> Claim {
        let claim = try onReader { db throws(StoreError) -> Claim in
            try db.transaction { () throws(StoreError) -> Claim in
                var epoch: Int64?
                // ON CONFLICT locks the row even when its WHERE says no, so the SELECT below sees
                // the lease that won.
                try db.query(
                    """
                    INSERT INTO leases AS l (board, node, epoch, expires_at)
                    VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
                    ON CONFLICT (board) DO UPDATE SET
                        node = EXCLUDED.node,
                        epoch = CASE WHEN l.node = EXCLUDED.node AND l.expires_at > now() THEN l.epoch
                                     ELSE l.epoch + 1 END,
                        expires_at = EXCLUDED.expires_at
                    WHERE l.node = EXCLUDED.node OR l.expires_at <= now() OR $4
                    RETURNING l.epoch
                    """,
                    [.text(id.rawValue), .text(node), .int(leaseMilliseconds), .bool(force)]
                ) { row in epoch = Int64(row.int(0)) }
                if let epoch { return .mine(epoch: epoch) }
                var owner: Claim?
                try db.query(
                    "SELECT l.node, coalesce(n.advertise, '') FROM leases l LEFT JOIN nodes n ON n.name = l.node "
                        + "WHERE l.board = $1",
                    [.text(id.rawValue)]
                ) { row in owner = .owned(by: row.text(0), advertise: row.text(1)) }
                guard let owner else { throw StoreError("\(location): the lease of board \(id) vanished") }
                return owner
            }
        }
        claimed.withLock { claimed in
            if case .mine(let epoch) = claim { claimed[id] = epoch } else { claimed[id] = nil }
        }
        return claim
    }

    /// Records this node as alive and extends every unexpired lease it holds, in one statement;
    /// the boards whose lease it holds. Expired leases are not revived.
    package func renew() throws(StoreError) -> Set<BoardID> {
        let address = advertise
        return try onRenewer { db throws(StoreError) -> Set<BoardID> in
            var held = Set<BoardID>()
            // The leases are locked in board order, as the writer's fence locks them. A tool
            // (no address) only extends its leases.
            let extend = """
                held AS (
                    SELECT board FROM leases WHERE node = $1 AND expires_at > now() ORDER BY board FOR UPDATE
                )
                UPDATE leases l SET expires_at = now() + $2 * interval '1 millisecond'
                FROM held WHERE l.board = held.board
                RETURNING l.board
                """
            let seen = """
                seen AS (
                    INSERT INTO nodes (name, advertise, last_seen) VALUES ($1, $3, now())
                    ON CONFLICT (name) DO UPDATE SET advertise = EXCLUDED.advertise, last_seen = EXCLUDED.last_seen
                ),
                """
            try db.query(
                "WITH " + (address == nil ? "" : seen) + extend,
                [.text(node), .int(leaseMilliseconds)] + (address.map { [.text($0)] } ?? [])
            ) { row in
                if let id = BoardID(row.text(0)) { held.insert(id) }
            }
            return held
        }
    }

    /// Ends this node's lease of the board, if it still holds it at the claimed epoch, so that
    /// another node may take it at once. The row stays (expired), so the epoch keeps growing.
    package func release(_ id: BoardID) throws(StoreError) {
        guard let epoch = claimed.withLock({ $0.removeValue(forKey: id) }) else { return }
        try onRenewer { db throws(StoreError) in
            // The lease of a board the store does not have (a hello that never made one, a board
            // deleted) goes entirely, so clients naming boards cannot grow the table. A row made
            // again later starts at epoch 1, which never admits a stale writer: the fence checks
            // the node too, and this node claims the board again only after this release, which
            // runs after every write it queued under the old epoch.
            _ = try db.query(
                "DELETE FROM leases WHERE board = $1 AND node = $2 AND epoch = $3 "
                    + "AND NOT EXISTS (SELECT FROM boards WHERE id = $1)",
                [.text(id.rawValue), .text(node), .int(Int(epoch))])
            _ = try db.query(
                "UPDATE leases SET expires_at = now() WHERE board = $1 AND node = $2 AND epoch = $3 "
                    + "AND expires_at > now()",
                [.text(id.rawValue), .text(node), .int(Int(epoch))])
        }
    }

    /// Every node the database knows, by name: alive when it renewed within one lease (this
    /// node's length), and how many live leases it holds.
    package func nodes() throws(StoreError) -> [ClusterNode] {
        try onReader { db throws(StoreError) -> [ClusterNode] in
            var nodes: [ClusterNode] = []
            try db.query(
                """
                SELECT n.name, n.advertise, n.last_seen > now() - $1 * interval '1 millisecond',
                       (SELECT count(*) FROM leases l WHERE l.node = n.name AND l.expires_at > now())
                FROM nodes n ORDER BY n.name
                """,
                [.int(leaseMilliseconds)]
            ) { row in
                nodes.append(
                    ClusterNode(name: row.text(0), advertise: row.text(1), alive: row.bool(2), boards: row.int(3)))
            }
            return nodes
        }
    }

    /// The node holding the board's live lease, if any.
    package func owner(of id: BoardID) throws(StoreError) -> String? {
        try onReader { db throws(StoreError) -> String? in
            var owner: String?
            try db.query(
                "SELECT node FROM leases WHERE board = $1 AND expires_at > now()", [.text(id.rawValue)]
            ) { row in owner = row.text(0) }
            return owner
        }
    }

    /// The cluster's 32-byte secret: made by the first node to ask, the same for every node after.
    package func clusterSecret() throws(StoreError) -> [UInt8] {
        if let known = secret.withLock({ $0 }) { return known }
        var generator = SystemRandomNumberGenerator()
        let candidate = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let stored = try onRenewer { db throws(StoreError) -> [UInt8] in
            try db.query(
                "INSERT INTO cluster_secret (id, secret) VALUES (1, $1) ON CONFLICT (id) DO NOTHING",
                [.bytes(candidate)])
            var stored: [UInt8] = []
            try db.query("SELECT secret FROM cluster_secret WHERE id = 1") { row in stored = row.bytes(0) }
            guard stored.count == 32 else { throw StoreError("\(location): the cluster secret is damaged") }
            return stored
        }
        secret.withLock { $0 = stored }
        return stored
    }

    private var leaseMilliseconds: Int { Int((leaseSeconds * 1000).rounded()) }

    /// Upserts this node's row in `nodes` (a tool has none).
    private func recordNode(_ db: PostgresConnection) throws(StoreError) {
        guard let advertise else { return }
        try db.query(
            "INSERT INTO nodes (name, advertise, last_seen) VALUES ($1, $2, now()) "
                + "ON CONFLICT (name) DO UPDATE SET advertise = EXCLUDED.advertise, last_seen = EXCLUDED.last_seen",
            [.text(node), .text(advertise)])
    }

    /// Runs `body` in a read-only repeatable-read transaction on the reader connection: one
    /// consistent view of the database, and a bug in a read path cannot write.
    private func read<Result: Sendable>(
        _ body: (PostgresConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try onReader { db throws(StoreError) -> Result in
            try db.transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY") {
                () throws(StoreError) -> Result in
                try body(db)
            }
        }
    }

    /// Runs `body` on the reader connection, under its lock. A connection that broke while idle
    /// (the server restarted, the primary failed over) is noticed only by the statement that
    /// uses it next, which fails: when `body` failed that way, it runs once more, on the
    /// connection opened again (libpq's multi-host URL finds the new primary), so that the first
    /// read after a failover is answered instead of failing. Not when a COMMIT's outcome is
    /// unknown: the caller must ask the database (a claim) or start over.
    private func onReader<Result: Sendable>(
        _ body: (PostgresConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        ReadGuard.check()
        return try reader.whileOpen(orThrow: closed) { db throws(StoreError) in
            do throws(StoreError) {
                return try body(db)
            } catch {
                guard error.kind == .transient, db.isBroken, !db.commitUncertain else { throw error }
                return try body(db)
            }
        }
    }

    /// Not checked by `ReadGuard` (which guards reads, as `write` is not): the server gives its
    /// leases up from the service thread once that thread has stopped serving.
    private func onRenewer<Result: Sendable>(
        _ body: (PostgresConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try renewer.whileOpen(orThrow: closed, body)
    }

    func closed() -> StoreError { StoreError("\(location): the store is closed") }

    /// Runs `body` in a read-only transaction on the reader connection.
    func onReadOnly<Result: Sendable>(
        _ body: (PostgresConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try read(body)
    }
}
