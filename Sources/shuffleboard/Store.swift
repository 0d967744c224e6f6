import BoardAuth
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// The store the options ask for: SQLite under the data directory, PostgreSQL with
/// `--store postgresql://…` (this process a node of a cluster), or memory with `--memory`.
func openStore(_ options: ServeOptions) throws(StoreError) -> any BoardStore {
    if options.memory { return MemoryStore() }
    let keepOps = max(options.keepOps, options.config.hub.room.historyLimit)
    switch options.store {
    case .directory(let directory):
        return try SQLiteStore(
            directory: directory, snapshotEvery: options.snapshotEvery, keepOps: keepOps,
            keepSnapshotBytes: options.keepSnapshotBytes, keepOpBytes: options.keepOpBytes)
    case .postgres(let url):
        let config = options.config
        return try PostgresStore(
            url: url, node: config.node, advertise: config.advertiseAddress,
            leaseSeconds: Double(Instant.Span(config.lease).milliseconds) / 1000,
            snapshotEvery: options.snapshotEvery, keepOps: keepOps, keepSnapshotBytes: options.keepSnapshotBytes,
            keepOpBytes: options.keepOpBytes, pipelineDepth: config.storePipeline,
            writers: config.storePipeline > 1 ? 1 : config.storeWriters)
    }
}

/// Once the server listens: with `--port 0` and no `--advertise`, the other nodes must learn the
/// port it really got. Failing to record it now is not fatal: every renewal records it again.
func advertiseListeningPort(_ port: Int, options: ServeOptions, store: any BoardStore, log: Logger) {
    guard let cluster = store as? PostgresStore, options.config.advertise == nil, options.config.port != port else {
        return
    }
    do throws(StoreError) {
        try cluster.setAdvertise("127.0.0.1:\(port)")
    } catch {
        log.warning("could not record this node's address yet (the next renewal will): \(error.message)")
    }
}

/// A tool's name in the cluster's tables (export, import): not a node.
private func toolName(_ verb: String) -> String { "\(verb)-\(ServerConfig.defaultNodeName)" }

/// A store for `export` (reading only: a SQLite directory in use by a server is fine, and a
/// PostgreSQL schema is checked, not migrated) or `import`.
func openToolStore(_ location: StoreLocation, forExport: Bool) throws(StoreError) -> any BoardStore {
    switch location {
    case .directory(let directory):
        return forExport ? try SQLiteStore(directory: directory, readOnly: true) : try SQLiteStore(directory: directory)
    case .postgres(let url):
        return try PostgresStore(
            url: url, node: toolName(forExport ? "export" : "import"), advertise: nil, migrate: !forExport)
    }
}

/// `shuffleboard reindex`: the search index of every board rebuilt from its snapshot, its log
/// and its comments (Search.swift), board by board, 64 boards a transaction.
func reindex(store location: StoreLocation) -> Int32 {
    do {
        let store: any BoardStore
        switch location {
        case .directory(let directory): store = try SQLiteStore(directory: directory)
        case .postgres(let url): store = try PostgresStore(url: url, node: toolName("reindex"), advertise: nil)
        }
        defer { store.close() }
        let count = try store.reindex(all: true)
        print("reindexed \(count) board\(count == 1 ? "" : "s")")
        return 0
    } catch {
        printError("shuffleboard: reindex: \(error.message)")
        return 1
    }
}

/// `shuffleboard export BOARD`: the board's archive on stdout. Works while a server (or a cluster) runs.
func exportBoard(_ board: String, store location: StoreLocation) -> Int32 {
    guard let id = BoardID(board) else {
        printError("shuffleboard: '\(board)' is not a board id (1–64 characters of A-Z a-z 0-9 _ -)")
        return 2
    }
    do {
        let store = try openToolStore(location, forExport: true)
        defer { store.close() }
        let json = try BoardArchive.export(from: store, id: id)
        FileHandle.standardOutput.write(Data(json))
        return 0
    } catch {
        printError("shuffleboard: export: \(error.message)")
        return 1
    }
}

/// `shuffleboard revoke TOKEN`: stores TOKEN's revocation, for an operator without the API (or
/// without an admin token). The secrets verify it, so a mistyped token is not stored as if it
/// were revoked; the token itself is never stored or printed, only its id.
func revokeToken(_ token: String, secretFile: String, store location: StoreLocation) -> Int32 {
    let secrets: [[UInt8]]
    do {
        secrets = try readSecrets(secretFile)
    } catch {
        printError("shuffleboard: --auth-secret \(secretFile): \(error.message)")
        return 1
    }
    let claims: Claims
    switch TokenAuthority(secrets: secrets).claimsIgnoringExpiry(token) {
    case .success(let c): claims = c
    case .failure(let problem):
        printError("shuffleboard: revoke: not a token of these secrets (\(problem))")
        return 1
    }
    let revocation = Revocation(id: TokenAuthority.revocationID(of: token), board: claims.board, until: claims.expires)
    let now = Int64(Date().timeIntervalSince1970)
    guard revocation.until > now else {
        printError("token \(revocation.id) has expired already: it is refused everywhere without a revocation")
        return 0
    }
    do throws(StoreError) {
        let store = try openToolStore(location, forExport: false)
        defer { store.close() }
        guard let revocations = StoreCapabilities(store).revocations else {
            throw StoreError("this store keeps no revocations")
        }
        try revocations.revoke(revocation, now: now)
        printError("revoked token \(revocation.id) (board \(claims.board?.rawValue ?? "*")) until \(revocation.until)")
        return 0
    } catch {
        printError("shuffleboard: revoke: \(error.message)")
        return 1
    }
}

/// `shuffleboard import FILE`: puts an exported board into the store. A SQLite data directory
/// must not be in use by a server (its lock says so); in PostgreSQL the board must not be held by
/// a live node: the import takes the board's lease for itself, and gives it up afterwards.
func importBoard(_ file: String, store location: StoreLocation, replace: Bool) -> Int32 {
    guard let contents = FileManager.default.contents(atPath: file) else {
        printError("shuffleboard: import: cannot read \(file)")
        return 1
    }
    do throws(StoreError) {
        let store = try openToolStore(location, forExport: false)
        defer { store.close() }
        let archive = try BoardArchive(json: [UInt8](contents))
        if let cluster = store as? PostgresStore {
            if case .owned(let node, _) = try cluster.claim(archive.id, force: false) {
                throw StoreError("board \(archive.id) is in use by node \(node); import it once no node holds it")
            }
        }
        defer { try? (store as? PostgresStore)?.release(archive.id) }
        try store.restore(archive, replace: replace)
        let place =
            switch location {
            case .directory(let directory): directory
            case .postgres: (store as? PostgresStore)?.location ?? "PostgreSQL"
            }
        printError("imported board \(archive.id) at seq \(archive.seq) into \(place)")
        return 0
    } catch {
        printError("shuffleboard: import: \(error.message)")
        return 1
    }
}
