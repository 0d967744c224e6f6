internal import CPostgres
import Glibc

/// One libpq connection (`PGconn`).
///
/// Not thread-safe: its owner serialises every use (`PostgresStore` keeps each connection inside
/// its own `Mutex`). Every libpq result goes through `check`, which turns failures into a
/// `StoreError` naming the server (never its password) and classified by SQLSTATE. A connection
/// that broke is opened again (`PQreset`) before the next transaction or statement outside one.
final class PostgresConnection {
    /// The server and database, for messages: `postgresql://USER@HOST:PORT/DB`, without a password.
    let location: String
    private(set) var conn: OpaquePointer?
    /// Set when a COMMIT got no answer because the connection broke: it may or may not have committed.
    /// (Set here and in PostgresConnection+Pipeline.swift only.)
    var commitUncertain = false
    /// True between BEGIN and COMMIT or ROLLBACK: a connection that breaks then must not be opened
    /// again behind the transaction's back (the rest of it would run, and commit, on its own).
    var inTransactionBlock = false
    /// The open transaction's pipeline, when it is pipelined (PostgresConnection+Pipeline.swift).
    var pipeline: Pipeline?
    /// Transactions sent whole and not yet answered, oldest first (PostgresConnection+Pipeline.swift).
    var sent: [SentTransaction] = []
    /// Session settings, made again after a reconnect.
    private let settings: [(name: String, value: String)]

    /// Connects to the server `url` names (a libpq connection URI or key=value string).
    ///
    /// Unless the URL says otherwise, connecting gives up after 10 seconds and TCP keepalives
    /// notice a dead server within about 30; the client encoding is always UTF-8.
    ///
    /// `settings` (name, value) are set for the session (`set_config`) at once and again each time
    /// the connection is opened again.
    init(url: String, settings: [(name: String, value: String)] = []) throws(StoreError) {
        location = try Self.describe(url)
        self.settings = settings
        let keywords = [
            "connect_timeout", "keepalives_idle", "keepalives_interval", "keepalives_count", "application_name",
            "dbname", "client_encoding",
        ]
        let values = ["10", "15", "5", "3", "shuffleboard", url, "UTF8"]
        conn = withCStrings(keywords) { keys in
            withCStrings(values) { values in PQconnectdbParams(keys, values, 1) }
        }
        guard let conn else { throw StoreError("\(location): out of memory while connecting", kind: .transient) }
        shuffleboard_pg_silence_notices(conn)
        guard PQstatus(conn) == CONNECTION_OK else {
            let reason = Self.redacting(url, in: Self.message(PQerrorMessage(conn)))
            let error = StoreError("\(location): cannot connect: \(reason)", kind: Self.connectKind(conn))
            close()
            throw error
        }
        do throws(StoreError) {
            try configure()
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Sets `settings` for the session.
    func configure() throws(StoreError) {
        for setting in settings {
            try query("SELECT set_config($1, $2, false)", [.text(setting.name), .text(setting.value)])
        }
    }

    /// Closes the connection; safe to call twice.
    func close() {
        if let conn { PQfinish(conn) }
        conn = nil
    }

    /// `postgresql://USER@HOST:PORT/DB` for `url`, or an error saying why libpq cannot read it.
    /// Never includes the password.
    static func describe(_ url: String) throws(StoreError) -> String {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &error) else {
            let reason = error.map { message(UnsafePointer($0)) } ?? "out of memory"
            if let error { PQfreemem(error) }
            // Some of libpq's parse errors quote the URL.
            throw StoreError("not a PostgreSQL connection URL: \(redacting(url, in: reason))")
        }
        defer { PQconninfoFree(options) }
        var found: [String: String] = [:]
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val { found[String(cString: keyword)] = String(cString: value) }
            option += 1
        }
        let user = found["user"].map { $0 + "@" } ?? ""
        let host = found["host"] ?? found["hostaddr"] ?? "localhost"
        let port = found["port"].map { ":" + $0 } ?? ""
        let database = found["dbname"].map { "/" + $0 } ?? ""
        return "postgresql://\(user)\(host)\(port)\(database)"
    }

    /// `text` with every password `url` holds (`USER:PASSWORD@`, `password=`) replaced by `***`.
    static func redacting(_ url: String, in text: String) -> String {
        var secrets: [Substring] = []
        if let scheme = url.firstRange(of: "://") {
            let authority = url[scheme.upperBound...].prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                secrets.append(authority[authority.index(after: colon)..<at])
            }
        }
        var rest = Substring(url)
        while let found = rest.firstRange(of: "password=") {
            let value = rest[found.upperBound...].prefix { $0 != "&" && $0 != " " }
            secrets.append(value)
            rest = rest[found.upperBound...]
        }
        var redacted = text
        for secret in secrets where !secret.isEmpty {
            redacted = redacted.split(separator: secret, omittingEmptySubsequences: false).joined(separator: "***")
        }
        return redacted
    }

    // MARK: The error funnel

    /// Returns `result` when it is a success (`COMMAND_OK`, `TUPLES_OK`); otherwise clears it and
    /// throws a `StoreError` saying what we were doing and what the server said.
    func check(_ result: OpaquePointer?, _ doing: @autoclosure () -> String) throws(StoreError)
        -> OpaquePointer
    {
        guard let result else {
            // No result at all: out of memory, or the connection is gone.
            throw StoreError(
                "\(location): could not \(doing()): \(Self.message(conn.map { PQerrorMessage($0) }))", kind: .transient)
        }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK { return result }
        defer { PQclear(result) }
        let sqlState = PQresultErrorField(result, shuffleboard_pg_diag_sqlstate()).map { String(cString: $0) }
        let primary =
            PQresultErrorField(result, shuffleboard_pg_diag_message_primary()).map { String(cString: $0) }
            ?? Self.message(PQresultErrorMessage(result))
        let broken = conn.map { PQstatus($0) != CONNECTION_OK } ?? true
        if sqlState == PostgresSchema.fencedState, !broken {
            // The fence's own error (PostgresSchema's shuffleboard_fence): its message names the board and why.
            throw StoreError("\(location): \(primary); nothing of it was stored", kind: .fenced)
        }
        let kind = broken ? .transient : Self.kind(sqlState: sqlState)
        let code = sqlState.map { " (SQLSTATE \($0))" } ?? ""
        throw StoreError("\(location): could not \(doing()): \(primary)\(code)", kind: kind)
    }

    /// Whether an error with this SQLSTATE can go away by itself, so that the same statement succeeds later.
    ///
    /// Transient: the connection or the server was not available (class 08 connection exceptions,
    /// 53 insufficient resources such as too many connections or a full disk, 57 operator
    /// intervention such as an admin shutdown, 58 system errors), or the transaction lost a race
    /// (40001 serialization failure, 40P01 deadlock, 55P03 lock not available). Everything else —
    /// constraints (23), data errors (22), SQL errors (42), unknown codes — is about what was
    /// written or how, and fails the same way again.
    static func kind(sqlState: String?) -> StoreError.Kind {
        guard let sqlState else { return .transient }
        switch sqlState.prefix(2) {
        case "08", "53", "57", "58": return .transient
        default: return ["40001", "40P01", "55P03"].contains(sqlState) ? .transient : .permanent
        }
    }

    /// A connection that failed to open: a bad password or database is permanent, an unreachable
    /// server or one starting up transient. libpq gives no SQLSTATE here, so the words decide.
    private static func connectKind(_ conn: OpaquePointer) -> StoreError.Kind {
        let text = message(PQerrorMessage(conn))
        let permanent = ["authentication failed", "does not exist", "no password supplied", "invalid"]
        return permanent.contains { text.contains($0) } ? .permanent : .transient
    }

    /// libpq's message text, trimmed, on one line.
    static func message(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        let lines = String(cString: text).split(whereSeparator: \.isNewline).map { line in
            line.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed()
        }
        return lines.filter { !$0.isEmpty }.map { String($0) }.joined(separator: "; ")
    }

    // MARK: Statements

    /// The connection, opened again first when it broke (outside a transaction only: a transaction
    /// that lost its connection is gone, and its caller must start over).
    func handle() throws(StoreError) -> OpaquePointer {
        guard let conn else { throw StoreError("\(location): the store is closed") }
        if PQstatus(conn) != CONNECTION_OK {
            guard !inTransactionBlock else {
                throw StoreError("\(location): lost the connection in a transaction", kind: .transient)
            }
            PQreset(conn)
            guard PQstatus(conn) == CONNECTION_OK else {
                throw StoreError(
                    "\(location): lost the connection and cannot connect again: \(Self.message(PQerrorMessage(conn)))",
                    kind: .transient)
            }
            shuffleboard_pg_silence_notices(conn)
            // A connection that broke in a pipeline is opened again out of it.
            if PQpipelineStatus(conn) != PQ_PIPELINE_OFF { PQexitPipelineMode(conn) }
            try configure()
        }
        return conn
    }

    /// Runs SQL text that may hold several statements and takes no parameters (schema changes).
    /// Only this module's own SQL, never text from a client.
    func execute(_ sql: String) throws(StoreError) {
        let conn = try handle()
        PQclear(try check(PQexec(conn, sql), "run \(sql.prefix(60))"))
    }

    /// Runs one statement with `parameters` ($1, $2, … in the SQL), calling `row` for each result
    /// row; returns how many rows it inserted, updated or deleted (or returned).
    ///
    /// In a pipelined transaction it waits for the answers of the statements sent before it too
    /// (one round trip for all of them), and throws the first of their errors.
    @discardableResult
    func query(
        _ sql: String, _ parameters: [PostgresValue] = [], row: (PostgresRow) throws(StoreError) -> Void = { _ in }
    ) throws(StoreError) -> Int {
        let conn = try handle()
        let checked: OpaquePointer
        if pipeline != nil {
            precondition(sent.isEmpty, "a query waits for the answers before it: read the transactions sent first")
            try send(sql, parameters)
            // A Flush message makes the server send what it has answered so far, without a Sync.
            guard PQsendFlushRequest(conn) == 1, PQflush(conn) == 0 else {
                throw StoreError(
                    "\(location): could not send \(sql.prefix(60)): \(Self.message(PQerrorMessage(conn)))",
                    kind: .transient)
            }
            while pipeline?.unanswered.count ?? 0 > 1 { try readAnswer() }
            checked = try nextResult()
        } else {
            let result = Self.withEncoded(parameters) { types, values, lengths, formats in
                // Results in binary too: integers as 8 bytes, bytea as its raw bytes.
                PQexecParams(conn, sql, Int32(parameters.count), types, values, lengths, formats, 1)
            }
            checked = try check(result, "run \(sql.prefix(60))")
        }
        defer { PQclear(checked) }
        let count = PQntuples(checked)
        for index in 0..<count { try row(PostgresRow(result: checked, index: index)) }
        if let tuples = PQcmdTuples(checked), let changed = Int(String(cString: tuples)) { return changed }
        return Int(count)
    }

    /// Runs one statement whose only answer is success or failure (an insert, an update, a
    /// delete). Outside a pipeline it is `query`; in a pipelined transaction it is only sent, and
    /// its answer is read with the next `query` or at COMMIT.
    func send(_ sql: String, _ parameters: [PostgresValue] = []) throws(StoreError) {
        guard pipeline != nil else {
            try query(sql, parameters)
            return
        }
        let conn = try handle()
        let sent = Self.withEncoded(parameters) { types, values, lengths, formats in
            PQsendQueryParams(conn, sql, Int32(parameters.count), types, values, lengths, formats, 1)
        }
        guard sent == 1 else {
            throw StoreError(
                "\(location): could not send \(sql.prefix(60)): \(Self.message(PQerrorMessage(conn)))", kind: .transient
            )
        }
        pipeline?.unanswered.append("run \(sql.prefix(60))")
    }

    /// Calls `body` with the parameters as libpq takes them: their types, pointers to their bytes,
    /// byte counts and formats. The pointers are valid only during the call.
    private static func withEncoded<R>(
        _ parameters: [PostgresValue],
        _ body: (
            _ types: [Oid], _ values: [UnsafePointer<CChar>?], _ lengths: [Int32], _ formats: [Int32]
        ) -> R
    ) -> R {
        // One buffer holds every parameter's bytes, so that one pointer per parameter stays valid
        // for the call; a trailing byte gives empty values an address (a NULL pointer means SQL NULL).
        // libpq reads a text-format value up to its NUL, not by its length: those end with one.
        var buffer: [UInt8] = []
        var offsets: [Int] = []
        var lengths: [Int32] = []
        for parameter in parameters {
            let bytes = parameter.encoded
            offsets.append(buffer.count)
            lengths.append(Int32(bytes.count))
            buffer += bytes
            if parameter.format == 0 { buffer.append(0) }
        }
        buffer.append(0)
        let types = parameters.map(\.type)
        let formats = parameters.map(\.format)
        return buffer.withUnsafeBufferPointer { bytes in
            let base = UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self)
            return body(types, offsets.map { base + $0 }, lengths, formats)
        }
    }

    /// The first row's first column as an integer, or nil when there is no row or it is NULL.
    func int(_ sql: String, _ parameters: [PostgresValue] = []) throws(StoreError) -> Int? {
        var result: Int?
        try query(sql, parameters) { row in
            if result == nil, !row.isNull(0) { result = row.int(0) }
        }
        return result
    }

    // MARK: Transactions

    /// Runs `body` in a transaction opened with `begin`: committed when it returns, rolled back when it throws.
    ///
    /// `pipelined` runs it in libpq's pipeline mode: BEGIN, every `send` and COMMIT go to the
    /// server together and their answers come back together, so that a transaction of statements
    /// whose results nobody waits for costs one round trip; a `query` in it waits for the answers
    /// so far. The first statement that fails makes the server skip the rest, COMMIT included,
    /// and its error is thrown. (The connection stays in blocking mode: a pipeline's answers here
    /// are a few small command tags, so the server never blocks on its output while we send.)
    ///
    /// When COMMIT itself fails because the connection broke, nobody can say whether it committed:
    /// `commitUncertain` is then true until the next transaction ends.
    func transaction<Result>(
        begin: String = "BEGIN", pipelined: Bool = false, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        precondition(!inTransactionBlock, "transactions do not nest")
        precondition(sent.isEmpty, "a transaction waits for those sent before it: read them first")
        if pipelined {
            try enterPipeline()
            do throws(StoreError) {
                try send(begin)
            } catch {
                endPipeline()
                throw error
            }
        } else {
            try query(begin)
        }
        inTransactionBlock = true
        defer { inTransactionBlock = false }
        let result: Result
        do throws(StoreError) {
            result = try body()
        } catch {
            endPipeline()
            rollback()
            throw error
        }
        do throws(StoreError) {
            if pipelined {
                try send("COMMIT")
                try finishPipeline()
            } else {
                try query("COMMIT")
            }
        } catch {
            // In a pipeline the error may be any statement's; COMMIT's fate is unknown only when
            // the connection broke, whichever it was.
            commitUncertain = conn.map { PQstatus($0) != CONNECTION_OK } ?? false
            endPipeline()
            rollback()
            throw error
        }
        commitUncertain = false
        return result
    }

    /// Whether the connection broke (the server went away, or its answer was cut off): its next
    /// use outside a transaction opens it again.
    var isBroken: Bool { conn.map { PQstatus($0) != CONNECTION_OK } ?? false }

    /// Whether the connection is inside a transaction (also a failed one).
    var inTransaction: Bool {
        guard let conn else { return false }
        let status = PQtransactionStatus(conn)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    func rollback() {
        // A broken connection has no transaction left; a failing ROLLBACK leaves nothing better
        // to do than report the original error.
        guard inTransaction, let conn, PQstatus(conn) == CONNECTION_OK else { return }
        PQclear(PQexec(conn, "ROLLBACK"))
    }
}
