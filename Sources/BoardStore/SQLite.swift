internal import CSQLite

/// A value bound to a statement parameter.
enum SQLiteValue {
    case int(Int)
    case text(String)
    case null
}

/// One SQLite connection with its cache of prepared statements.
///
/// Not thread-safe: it is opened with `SQLITE_OPEN_NOMUTEX` and its owner serialises every use
/// (`SQLiteStore` keeps each connection inside its own `Mutex`). Every SQLite return code goes
/// through `check`, which turns failures into a `StoreError` naming the database path.
final class SQLiteConnection {
    /// The database file.
    let path: String
    private var db: OpaquePointer?
    /// Statements prepared once and reused, keyed by their SQL text.
    private var statements: [String: OpaquePointer] = [:]

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    static let busyTimeoutMilliseconds: Int32 = 5_000

    /// Opens the database at `path`, creating it when missing if `create`.
    init(path: String, create: Bool = true) throws(StoreError) {
        self.path = path
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0)
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        db = handle
        do throws(StoreError) {
            try check(code, "open the database")
            try check(sqlite3_extended_result_codes(handle, 1), "enable extended result codes")
            try check(sqlite3_busy_timeout(handle, Self.busyTimeoutMilliseconds), "set the busy timeout")
        } catch {
            // sqlite3_open_v2 hands out a handle even when it fails; it must still be closed.
            close()
            throw error
        }
    }

    deinit { close() }

    /// True until `close`.
    var isOpen: Bool { db != nil }

    /// Finalizes the cached statements and closes the connection; safe to call twice.
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        // sqlite3_close_v2 cannot fail on a valid handle once every statement is finalized.
        if let db { sqlite3_close_v2(db) }
        db = nil
    }

    // MARK: The error funnel

    /// Returns `code` when it means success (`OK`, `ROW`, `DONE`); otherwise throws a `StoreError`
    /// saying what we were doing, what SQLite said, and which file it was.
    @discardableResult
    func check(_ code: Int32, _ doing: @autoclosure () -> String) throws(StoreError) -> Int32 {
        switch code & 0xFF {
        case SQLITE_OK, SQLITE_ROW, SQLITE_DONE:
            return code
        default:
            let detail =
                db.flatMap { sqlite3_errmsg($0) }.map { String(cString: $0) }
                ?? String(cString: sqlite3_errstr(code))
            throw Self.error(code: code, detail: detail, path: path, doing: doing())
        }
    }

    /// The message for a failed call, worded by the kind of failure a person can act on.
    static func error(code: Int32, detail: String, path: String, doing: String) -> StoreError {
        let kind = kind(of: code)
        return switch code & 0xFF {
        case SQLITE_CORRUPT, SQLITE_NOTADB:
            StoreError("\(path) is corrupt or is not a shuffleboard database (\(detail))", kind: kind)
        case SQLITE_BUSY, SQLITE_LOCKED:
            StoreError("\(path) is locked by another process (\(detail) while trying to \(doing))", kind: kind)
        case SQLITE_FULL:
            StoreError("\(path): the disk is full (\(detail))", kind: kind)
        case SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_READONLY, SQLITE_AUTH:
            StoreError("\(path): cannot \(doing): \(detail)", kind: kind)
        default:
            StoreError("\(path): could not \(doing): \(detail) (SQLite code \(code))", kind: kind)
        }
    }

    /// Whether a failure with this result code can go away by itself (or by an operator freeing
    /// space or fixing permissions) so that the same statement succeeds later.
    ///
    /// Transient: the database or the disk was not available (busy, locked, I/O, full, out of
    /// memory, could not open a file, read-only or permission problems, interrupted, a WAL
    /// protocol race, a changed schema). Everything else — constraint violations, corruption,
    /// too big, type mismatches, misuse, SQL errors — is about what was written or how, and
    /// fails the same way again; unknown codes count as permanent too, so that nothing whose
    /// retry cannot help wedges the writer.
    static func kind(of code: Int32) -> StoreError.Kind {
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL, SQLITE_NOMEM, SQLITE_CANTOPEN, SQLITE_PERM,
            SQLITE_READONLY, SQLITE_INTERRUPT, SQLITE_PROTOCOL, SQLITE_SCHEMA:
            .transient
        default:
            .permanent
        }
    }

    private func handle() throws(StoreError) -> OpaquePointer {
        guard let db else { throw StoreError("\(path): the store is closed") }
        return db
    }

    // MARK: Statements

    /// Runs SQL text that may hold several statements and returns no rows (schema, pragmas).
    func execute(_ sql: String) throws(StoreError) {
        let db = try handle()
        try check(sqlite3_exec(db, sql, nil, nil, nil), "run \(sql.prefix(60))")
    }

    /// Runs one statement with `bindings`, calling `row` for each result row.
    ///
    /// The statement is prepared on first use and kept; it is reset after every run, also on error.
    func query(
        _ sql: String, _ bindings: [SQLiteValue] = [], row: (SQLiteRow) throws(StoreError) -> Void = { _ in }
    ) throws(StoreError) {
        let statement = try prepared(sql)
        defer {
            // reset repeats the last step's error, which was already checked; clear_bindings cannot fail.
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        for (i, value) in bindings.enumerated() {
            let index = Int32(i + 1)
            let code: Int32
            switch value {
            case .int(let n): code = sqlite3_bind_int64(statement, index, sqlite3_int64(n))
            case .text(let s): code = Self.bind(s, to: statement, at: index)
            case .null: code = sqlite3_bind_null(statement, index)
            }
            try check(code, "bind parameter \(index) of \(sql.prefix(60))")
        }
        while try check(sqlite3_step(statement), "run \(sql.prefix(60))") == SQLITE_ROW {
            try row(SQLiteRow(statement: statement))
        }
    }

    /// Binds `text` by its UTF-8 byte count, never as a C string: client text may hold NUL, and a
    /// C string would end there (storing less than was committed).
    private static func bind(_ text: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { bytes in
            // An empty buffer may have no address, and a NULL pointer would bind SQL NULL.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(statement, index, "", 0, shuffleboard_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) { chars in
                sqlite3_bind_text64(
                    statement, index, chars, sqlite3_uint64(bytes.count), shuffleboard_sqlite_transient(),
                    UInt8(SQLITE_UTF8))
            }
        }
    }

    /// The first row's first column as an integer, or nil when there is no row or it is NULL.
    func int(_ sql: String, _ bindings: [SQLiteValue] = []) throws(StoreError) -> Int? {
        var result: Int?
        try query(sql, bindings) { row in
            if result == nil, !row.isNull(0) { result = row.int(0) }
        }
        return result
    }

    /// The first row's first column as text, or nil when there is no row or it is NULL.
    func text(_ sql: String, _ bindings: [SQLiteValue] = []) throws(StoreError) -> String? {
        var result: String?
        try query(sql, bindings) { row in
            if result == nil, !row.isNull(0) { result = row.text(0) }
        }
        return result
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int {
        db.map { Int(sqlite3_changes($0)) } ?? 0
    }

    private func prepared(_ sql: String) throws(StoreError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        let db = try handle()
        var statement: OpaquePointer?
        // SQL text is this module's own, never client text, so passing it as a C string is safe.
        // Shared SQL numbers parameters as PostgreSQL does: `$N` is SQLite's `?N` (SQLDatabase.swift).
        let text = String(sql.map { $0 == "$" ? "?" : $0 })
        try check(
            sqlite3_prepare_v3(db, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil),
            "prepare \(sql.prefix(60))")
        guard let statement else { throw StoreError("\(path): \(sql.prefix(60)) holds no statement") }
        statements[sql] = statement
        return statement
    }

    // MARK: Transactions

    /// How a transaction takes its locks.
    enum TransactionKind: String {
        /// Takes the write lock up front, so it never fails half-way with `SQLITE_BUSY` on upgrade.
        case immediate = "BEGIN IMMEDIATE"
        /// A read transaction: one consistent view across several statements.
        case deferred = "BEGIN DEFERRED"
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<Result>(
        _ kind: TransactionKind, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try query(kind.rawValue)
        let result: Result
        do throws(StoreError) {
            result = try body()
            try query("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    private func rollback() {
        // Some errors (SQLITE_FULL, SQLITE_IOERR, …) already rolled the transaction back.
        guard let db, sqlite3_get_autocommit(db) == 0 else { return }
        // A failing ROLLBACK leaves nothing better to do than report the original error.
        try? query("ROLLBACK")
    }
}

/// The current row of a stepping statement; valid only inside the `query` callback.
struct SQLiteRow {
    fileprivate let statement: OpaquePointer

    /// True when the column is NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(statement, column) == SQLITE_NULL }

    /// The column as an integer.
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(statement, column)) }

    /// The column as UTF-8 text (empty for NULL).
    func text(_ column: Int32) -> String {
        // column_text before column_bytes, so the byte count is of the UTF-8 form.
        guard let bytes = sqlite3_column_text(statement, column) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column's UTF-8 bytes (empty for NULL).
    func bytes(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_text(statement, column) else { return [] }
        let count = Int(sqlite3_column_bytes(statement, column))
        return Array(UnsafeBufferPointer(start: bytes, count: count))
    }
}
