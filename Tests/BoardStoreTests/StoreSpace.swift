import BoardCore
import Foundation
import TestSupport
import Testing

@testable import BoardStore

/// The PostgreSQL server the tests may use: `SHUFFLEBOARD_TEST_POSTGRES`, which scripts/test.sh
/// sets to a throwaway server it starts (`scripts/postgres.sh start DIR`). Unset, every
/// PostgreSQL suite is skipped, and says so.
enum TestPostgres {
    static let url: String? = ProcessInfo.processInfo.environment["SHUFFLEBOARD_TEST_POSTGRES"].flatMap {
        $0.isEmpty ? nil : $0
    }
    static var available: Bool { url != nil }
    /// The skip message of the PostgreSQL suites.
    static let skipped: Testing.Comment =
        "SHUFFLEBOARD_TEST_POSTGRES is not set, so there is no PostgreSQL server to test against (scripts/test.sh starts one and sets it)"

    /// A fresh, empty database on the test server, for one test: tests run in parallel.
    static func database() throws -> TestDatabase {
        let url = try #require(url)
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(url: url)
        defer { admin.close() }
        // The name is made here, of hex digits: nothing from outside reaches this SQL.
        try admin.execute("CREATE DATABASE \(name)")
        return TestDatabase(name: name, url: withDatabase(name, url), adminURL: url)
    }

    /// `url` with its database replaced by `name` (the path after the authority; a query stays).
    static func withDatabase(_ name: String, _ url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let queryStart = rest[authorityEnd...].firstIndex(of: "?") ?? rest.endIndex
        return String(url[..<authorityEnd]) + "/" + name + String(rest[queryStart...])
    }
}

/// A database made for one test, dropped by `drop()`.
struct TestDatabase {
    let name: String
    let url: String
    let adminURL: String

    func drop() {
        guard let admin = try? PostgresConnection(url: adminURL) else { return }
        defer { admin.close() }
        try? admin.execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }
}

/// The stores the shared store tests run against.
enum Backend: String, Sendable, CustomTestStringConvertible {
    case sqlite
    case postgres
    case memory

    var testDescription: String { rawValue }
}

/// Where one test keeps its boards: a temporary directory, or a fresh PostgreSQL database. Stores
/// opened on it with `open` see what earlier ones stored, as after a restart.
final class StoreSpace {
    let backend: Backend
    private let directory = TempDirectory()
    private let database: TestDatabase?
    private let memory = MemoryStore()

    init(_ backend: Backend) throws {
        self.backend = backend
        database = backend == .postgres ? try TestPostgres.database() : nil
    }

    /// The database URL (PostgreSQL only).
    var url: String { database?.url ?? "" }

    /// A store on this space. PostgreSQL's is the node "test", which claims each board a batch
    /// writes before writing it (`ClaimingStore`), as a clustered server does before it writes,
    /// over three writer connections (`--store-writers`): a batch of one writer's boards goes on
    /// its connection, one of several writers' on the first with every writer locked.
    func open(
        snapshotEvery: Int = 100, keepOps: Int = 10_000, snapshotCacheBytes: Int = SnapshotCache.defaultLimit
    ) throws -> any BoardStore {
        switch backend {
        case .sqlite:
            return try SQLiteStore(
                directory: directory.path, snapshotEvery: snapshotEvery, keepOps: keepOps,
                snapshotCacheBytes: snapshotCacheBytes)
        case .memory: return memory
        case .postgres:
            return ClaimingStore(
                try PostgresStore(
                    url: url, node: "test", advertise: "127.0.0.1:1", snapshotEvery: snapshotEvery, keepOps: keepOps,
                    pipelineDepth: 1, writers: 3, snapshotCacheBytes: snapshotCacheBytes))
        }
    }

    /// The decoded snapshots `store` (one this space opened) keeps; nil for a memory store, which
    /// decodes none.
    func snapshotCache(of store: any BoardStore) -> SnapshotCache? {
        (store as? SQLiteStore)?.snapshots ?? (store as? ClaimingStore)?.inner.snapshots
    }

    /// The number of rows in a table of the store (SQLite and PostgreSQL).
    func count(_ table: String) throws -> Int {
        switch backend {
        case .sqlite:
            let db = try SQLiteConnection(path: directory.file(SQLiteStore.databaseName))
            defer { db.close() }
            return try db.int("SELECT count(*) FROM \(table)") ?? 0
        case .postgres:
            let db = try PostgresConnection(url: url)
            defer { db.close() }
            return try db.int("SELECT count(*) FROM \(table)") ?? 0
        case .memory:
            Issue.record("a memory store has no tables")
            return 0
        }
    }

    /// Runs SQL on the store's database behind its back (SQLite and PostgreSQL; a test's own text).
    func execute(_ sql: String) throws {
        switch backend {
        case .sqlite:
            let db = try SQLiteConnection(path: directory.file(SQLiteStore.databaseName))
            defer { db.close() }
            try db.execute(sql)
        case .postgres:
            let db = try PostgresConnection(url: url)
            defer { db.close() }
            try db.execute(sql)
        case .memory:
            Issue.record("a memory store has no tables")
        }
    }

    func remove() {
        directory.remove()
        database?.drop()
    }
}

/// Runs `body` with a fresh space of `backend`, removed afterwards.
func withSpace<R>(_ backend: Backend, _ body: (StoreSpace) throws -> R) throws -> R {
    let space = try StoreSpace(backend)
    defer { space.remove() }
    return try body(space)
}

/// A `PostgresStore` that claims the boards of each batch before writing it, so that the store
/// tests written for any store run against it unchanged.
final class ClaimingStore: DelegatingStore, RevocationStore {
    let inner: PostgresStore

    init(_ store: PostgresStore) { inner = store }

    func write(_ batch: [StoreWrite]) throws(StoreError) {
        for change in batch { try claim(change.boardID) }
        try inner.write(batch)
    }

    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try claim(archive.id)
        try inner.restore(archive, replace: replace)
    }

    private func claim(_ id: BoardID) throws(StoreError) {
        guard case .mine = try inner.claim(id, force: false) else { throw StoreError("board \(id) is owned elsewhere") }
    }
}
