package import BoardCore
import Synchronization

/// Boards in a SQLite database inside a data directory: snapshots plus an op log, in WAL mode with
/// `synchronous=FULL`, so a `write` that returned is on disk.
///
/// Threads: `write` and `restore` use the writer connection and are meant for one writer thread;
/// `load`, `list`, `ops` and `archive` use the reader connection (the server's service thread).
/// WAL lets a read run while a write syncs; each connection also has its own mutex, so any thread
/// may call anything. The data directory stays locked against other servers until `close`.
package final class SQLiteStore: BoardStore {
    /// The data directory.
    package let directory: String
    /// The database file inside it.
    package let databasePath: String

    // Each mutex guards one connection; nil once closed.
    private let writer: Mutex<SQLiteWriter?>
    private let reader: Mutex<SQLiteConnection?>
    private let lock: Mutex<DataDirectory?>
    /// Decoded snapshots for `board(_:at:)` (SnapshotCache.swift).
    package let snapshots: SnapshotCache

    /// The database file name inside the data directory.
    package static let databaseName = "shuffleboard.sqlite3"

    /// Opens (creating if needed) the store in `directory`, locks the directory, checks the
    /// database and brings its schema up to date.
    ///
    /// A board is snapshotted every `snapshotEvery` ops, and its newest `keepOps` ops stay
    /// available to `ops(of:since:limit:)` within `keepOpBytes`; its snapshots are thinned to
    /// `keepSnapshotBytes` (`BoardLog`); reads of old seqs keep up to `snapshotCacheBytes` of
    /// decoded snapshots (`SnapshotCache`). Errors name the path and the problem.
    ///
    /// `readOnly` opens an existing database for reading only, without the directory lock, so
    /// that `export` works while a server runs on the directory; `write` and `restore` then throw.
    package init(
        directory: String, snapshotEvery: Int = 100, keepOps: Int = 10_000,
        keepSnapshotBytes: Int = KeptBytes.snapshots, keepOpBytes: Int = KeptBytes.ops, readOnly: Bool = false,
        snapshotCacheBytes: Int = SnapshotCache.defaultLimit
    ) throws(StoreError) {
        snapshots = SnapshotCache(limit: snapshotCacheBytes)
        if readOnly {
            try DataDirectory.checkExisting(directory)
            let path = DataDirectory.file(Self.databaseName, in: directory)
            self.directory = directory
            databasePath = path
            writer = Mutex(nil)
            reader = Mutex(try Self.openReader(path, create: false))
            lock = Mutex(nil)
            return
        }
        let dataDirectory = try DataDirectory(path: directory)
        let path = dataDirectory.file(Self.databaseName)
        let openedWriter: SQLiteWriter
        let openedReader: SQLiteConnection
        do throws(StoreError) {
            openedWriter = try Self.openWriter(
                path, snapshotEvery: snapshotEvery, keepOps: keepOps, keepSnapshotBytes: keepSnapshotBytes,
                keepOpBytes: keepOpBytes)
        } catch {
            dataDirectory.unlock()
            throw error
        }
        do throws(StoreError) {
            // An index missing or behind the log (a database from before it) is rebuilt now.
            _ = try openedWriter.reindex(all: false)
            openedReader = try Self.openReader(path, create: true)
        } catch {
            openedWriter.close()
            dataDirectory.unlock()
            throw error
        }
        self.directory = directory
        databasePath = path
        writer = Mutex(openedWriter)
        reader = Mutex(openedReader)
        lock = Mutex(dataDirectory)
    }

    /// The writer connection: checked, in WAL mode with full sync, schema up to date.
    private static func openWriter(
        _ path: String, snapshotEvery: Int, keepOps: Int, keepSnapshotBytes: Int, keepOpBytes: Int
    ) throws(StoreError) -> sending SQLiteWriter {
        let db = try SQLiteConnection(path: path)
        do throws(StoreError) {
            try checkIntegrity(db)
            guard try db.text("PRAGMA journal_mode = WAL") == "wal" else {
                throw StoreError("\(path): cannot switch the database to WAL mode")
            }
            // journal_size_limit: a WAL grown by one large transaction (a big board's snapshots) is
            // cut back to 16 MiB at its next reset, so that it does not keep its largest size.
            try db.execute("PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; PRAGMA journal_size_limit = 16777216")
            try Schema.migrate(db)
        } catch {
            db.close()
            throw error
        }
        return SQLiteWriter(
            db: db, snapshotEvery: snapshotEvery, keepOps: keepOps, keepSnapshotBytes: keepSnapshotBytes,
            keepOpBytes: keepOpBytes)
    }

    /// The reader connection; without `create` (read-only stores) it also checks the file and its schema.
    private static func openReader(_ path: String, create: Bool) throws(StoreError) -> sending SQLiteConnection {
        let db = try SQLiteConnection(path: path, create: create)
        if !create {
            try checkIntegrity(db)
            try Schema.checkCurrent(db)
        }
        // query_only: a bug in a read path must not be able to write behind the writer's back.
        try db.execute("PRAGMA foreign_keys = ON; PRAGMA query_only = ON")
        return db
    }

    deinit { close() }

    /// Closes both connections and unlocks the directory; later calls throw. Safe to call twice.
    package func close() {
        closeAndEmpty(reader)
        // The writer closes last: the last connection to close checkpoints and removes the WAL.
        closeAndEmpty(writer)
        lock.withLock { directory in
            directory?.unlock()
            directory = nil
        }
    }

    /// `quick_check` at open, so a damaged file is reported at start-up rather than mid-session.
    private static func checkIntegrity(_ db: SQLiteConnection) throws(StoreError) {
        var problems: [String] = []
        try db.query("PRAGMA quick_check") { row in problems.append(row.text(0)) }
        guard problems == ["ok"] else {
            throw StoreError("\(db.path) is corrupt: \(problems.prefix(3).joined(separator: "; "))")
        }
    }

    // MARK: Writing

    /// Applies the batch in one transaction; when this returns the batch is on disk. On error
    /// nothing of the batch is stored.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        try withWriter { writer throws(StoreError) in try writer.write(batch) }
        for case .delete(let id) in batch { snapshots.forget(id) }
    }

    /// Stores an archived board (import), refusing to overwrite an existing one unless `replace`.
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try withWriter { writer throws(StoreError) in try writer.restore(archive, replace: replace) }
        snapshots.forget(archive.id)
    }

    /// Drops the writer's replica of the board: it left the server's memory.
    package func forget(_ id: BoardID) {
        writer.withLock { $0?.forget(id) }
    }

    /// How many boards the writer keeps a replica of (for tests: it follows the boards in memory).
    package var replicaCount: Int { writer.withLock { $0?.replicaCount ?? 0 } }

    // MARK: Reading

    /// Search hits, best first (SQLiteConnection+Search.swift).
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        try read { db throws(StoreError) in try db.search(query, board: board, limit: limit) }
    }

    /// Rebuilds the search index of the boards behind their log, or of every board.
    package func reindex(all: Bool) throws(StoreError) -> Int {
        try withWriter { writer throws(StoreError) in try writer.reindex(all: all) }
    }

    /// Runs `body` in a read transaction on the reader connection: one consistent view of the database.
    /// (PostgreSQL's reader, alike in shape, also runs `body` once more after a failover broke its
    /// connection, PostgresStore.onReader; a file has no failover.)
    private func read<Result: Sendable>(
        _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        ReadGuard.check()
        return try reader.whileOpen(orThrow: closed) { db throws(StoreError) in
            try db.transaction(.deferred) { () throws(StoreError) -> Result in try body(db) }
        }
    }

    /// Runs `body` on the writer connection, under its lock (revocations: SQLStore+Revocations.swift).
    func onWriter<Result: Sendable>(
        _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try withWriter { writer throws(StoreError) in try body(writer.db) }
    }

    /// Runs `body` with the writer, under its lock; throws when the store is closed or read-only.
    private func withWriter<Result: Sendable>(
        _ body: (SQLiteWriter) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try writer.withLock { (writer: inout SQLiteWriter?) throws(StoreError) -> Result in
            guard let writer else { throw closedOrReadOnly() }
            return try body(writer)
        }
    }

    /// Runs `body` in a read transaction on the reader connection.
    func onReadOnly<Result: Sendable>(
        _ body: (SQLiteConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try read(body)
    }

    private func closed() -> StoreError { StoreError("\(databasePath): the store is closed") }

    private func closedOrReadOnly() -> StoreError {
        lock.withLock { $0 == nil } ? StoreError("\(databasePath): the store is closed or read-only") : closed()
    }
}
