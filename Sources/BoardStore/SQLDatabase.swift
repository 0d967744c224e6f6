internal import BoardCore
import Synchronization

// What SQLite and PostgreSQL have in common, so that a statement whose text and rules are the
// same in both is written once (SQLRows+Board.swift, SQLStore+Webhooks.swift, …) and only what
// truly differs stays in each store's files: PostgreSQL's row locks and advisory locks, its
// pipelined sends, upserts and the board log's batched INSERTs.
//
// Shared SQL numbers its parameters as PostgreSQL does (`$1`, `$2`, …); SQLite reads `$N` as
// its own `?N` (`SQLiteConnection.prepared`). Every value is bound, never spliced into the text.

/// A value bound to a statement parameter in either store.
enum SQLValue {
    /// An integer (`int8` in PostgreSQL).
    case int(Int)
    /// This module's ids and names, which hold no NUL: `text` in both.
    case text(String)
    /// Client text (titles, names, comment text): PostgreSQL keeps the bytes of its UTF-8 (`bytea`),
    /// SQLite keeps TEXT.
    case utf8(String)
    /// Bytes of UTF-8 (JSON): `bytea` in PostgreSQL, TEXT in SQLite.
    case json([UInt8])
}

/// One result row, valid only inside the callback it is given to.
protocol SQLRow {
    /// True when the column is NULL.
    func isNull(_ column: Int32) -> Bool
    /// The column as an integer (0 for NULL).
    func int(_ column: Int32) -> Int
    /// The column as UTF-8 text (empty for NULL).
    func text(_ column: Int32) -> String
    /// The column's bytes (empty for NULL).
    func bytes(_ column: Int32) -> [UInt8]
}

/// A connection to either database, as the shared statements use it.
protocol SQLConnection: AnyObject {
    associatedtype Row: SQLRow
    /// The SQL of the size in bytes of `column` (one of this module's column names).
    static func byteCount(of column: String) -> String
    /// Runs one statement, calling `row` for each result row.
    func rows(_ sql: String, _ values: [SQLValue], row: (Row) throws(StoreError) -> Void) throws(StoreError)
    /// Runs one statement whose only answer is success (an insert, an update, a delete): by
    /// default `rows`; PostgreSQL only sends it in a pipelined transaction (its answer is read
    /// with the next statement that waits, or at COMMIT).
    func write(_ sql: String, _ values: [SQLValue]) throws(StoreError)
    /// Runs `body` in a transaction that writes: SQLite's takes the write lock up front
    /// (BEGIN IMMEDIATE), which is the one writer lock of the file; PostgreSQL's is a plain BEGIN
    /// whose rows are locked as they are written (a count checked before an insert needs
    /// `lockCount` there).
    func writing<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result
    /// Makes transactions that count rows of `name` (webhooks, links, grants) of one board wait
    /// for each other, so that two of them cannot both pass a maximum. In SQLite a write
    /// transaction already excludes every other: nothing to do. In PostgreSQL an advisory lock
    /// held until the transaction ends.
    func lockCount(_ name: String, of board: BoardID) throws(StoreError)
    /// Whether the board is stored, holding its row against a deletion until the transaction
    /// ends where the database needs that (PostgreSQL: FOR SHARE).
    func holdBoard(_ id: BoardID) throws(StoreError) -> Bool
    /// Forgets expired revocations and puts token `id` on the list until `until` (a later
    /// `until` already there stays). Each store writes the upsert and a missing board its own way.
    func putRevocation(_ id: String, of board: BoardID?, until: Int64, now: Int64) throws(StoreError)
}

extension SQLConnection {
    func write(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try rows(sql, values) { _ in }
    }

    /// The first row's first column as an integer, or nil when there is no row or it is NULL.
    func intValue(_ sql: String, _ values: [SQLValue] = []) throws(StoreError) -> Int? {
        var result: Int?
        try rows(sql, values) { row in
            if result == nil, !row.isNull(0) { result = row.int(0) }
        }
        return result
    }
}

/// A store over either database: its connections, as the shared store methods use them.
protocol SQLStore {
    associatedtype Connection: SQLConnection & BoardRows
    /// Decoded snapshots for `board(_:at:)` (SnapshotCache.swift).
    var snapshots: SnapshotCache { get }
    /// Runs `body` on the writer connection (writer 0's in PostgreSQL), under its lock.
    func onWriter<Result: Sendable>(
        _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result
    /// Runs `body` in a read transaction on the reader connection.
    func onReadOnly<Result: Sendable>(
        _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result
}

extension SQLiteStore: SQLStore {}

extension PostgresStore: SQLStore {}

/// A connection or writer a store closes once, at `close`.
protocol Closing: AnyObject {
    func close()
}

/// Closes what `slot` holds and empties it: whoever takes the lock later finds the store closed.
func closeAndEmpty<Value: Closing>(_ slot: borrowing Mutex<Value?>) {
    slot.withLock { value in
        value?.close()
        value = nil
    }
}

extension SQLiteConnection: Closing {}

extension SQLiteWriter: Closing {}

extension PostgresConnection: Closing {}

extension PostgresWriter: Closing {}

extension Mutex {
    /// Runs `body` with the connection (or writer) this lock guards, under the lock; once the
    /// store has closed it (nil), throws `closed` instead.
    func whileOpen<Connection, Result: Sendable>(
        orThrow closed: () -> StoreError, _ body: (Connection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result where Value == Connection? {
        try withLock { (value: inout Connection?) throws(StoreError) -> Result in
            guard let value else { throw closed() }
            return try body(value)
        }
    }
}
