internal import BoardCore

/// The writing half of `SQLiteStore`: the writer connection and the board log rules on it.
///
/// Used only under `SQLiteStore`'s writer mutex.
final class SQLiteWriter {
    let db: SQLiteConnection
    private let log: BoardLog<SQLiteConnection>

    init(db: SQLiteConnection, snapshotEvery: Int, keepOps: Int, keepSnapshotBytes: Int, keepOpBytes: Int) {
        self.db = db
        log = BoardLog(
            rows: db, snapshotEvery: snapshotEvery, keepOps: keepOps, keepSnapshotBytes: keepSnapshotBytes,
            keepOpBytes: keepOpBytes)
    }

    /// Applies the batch in one immediate transaction; durable when this returns (`synchronous=FULL`).
    func write(_ batch: [StoreWrite]) throws(StoreError) {
        try inTransaction { () throws(StoreError) in
            for change in batch { try log.apply(change) }
        }
    }

    /// Stores an archived board at its seq, overwriting an existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try inTransaction { () throws(StoreError) in try log.restore(archive, replace: replace) }
    }

    /// Rebuilds the search documents of the boards behind their log (every board's when `all`),
    /// 64 boards a transaction; returns how many.
    func reindex(all: Bool) throws(StoreError) -> Int {
        try log.reindex(all: all) { body throws(StoreError) in try inTransaction(body) }
    }

    /// Drops the replica of a board (it left the server's memory).
    func forget(_ id: BoardID) { log.forget(id) }

    /// How many boards the writer keeps a replica of.
    var replicaCount: Int { log.replicaCount }

    /// Closes the connection.
    func close() {
        log.forgetAll()
        db.close()
    }

    private func inTransaction(_ body: () throws(StoreError) -> Void) throws(StoreError) {
        do throws(StoreError) {
            try db.transaction(.immediate, body)
        } catch {
            // The replicas may hold changes that were just rolled back.
            log.forgetAll()
            throw error
        }
    }
}
