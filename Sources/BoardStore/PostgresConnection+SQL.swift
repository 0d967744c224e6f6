internal import BoardCore

/// PostgreSQL as the shared statements use it (SQLDatabase.swift).
extension PostgresConnection: SQLConnection {
    static let greatest = "greatest"

    func rows(_ sql: String, _ values: [SQLValue], row: (PostgresRow) throws(StoreError) -> Void) throws(StoreError) {
        try query(sql, values.map(Self.value), row: row)
    }

    func write(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try send(sql, values.map(Self.value))
    }

    func changing(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        try query(sql, values.map(Self.value))
    }

    func writing<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try transaction(body)
    }

    /// Another node's transaction sees none of this one's rows until it commits: an advisory
    /// lock on the name and board, held until this transaction ends, makes the two take turns.
    func lockCount(_ name: String, of board: BoardID) throws(StoreError) {
        try query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text(name + ":" + board.rawValue)])
    }

    /// The board row is held until this transaction commits: a deletion of the board waits, and
    /// then revokes what this one adds too (BoardLog.delete); one that went first leaves no row.
    func holdBoard(_ id: BoardID) throws(StoreError) -> Bool {
        try int("SELECT 1 FROM boards WHERE id = $1 FOR SHARE", [.text(id.rawValue)]) == 1
    }

    /// A revocation of no board keeps an empty board id there.
    func putRevocation(_ id: String, of board: BoardID?, until: Int64, now: Int64) throws(StoreError) {
        try query("DELETE FROM revocations WHERE until <= $1", [.int(Int(now))])
        try query(
            "INSERT INTO revocations (id, board, until) VALUES ($1, $2, $3) "
                + "ON CONFLICT (id) DO UPDATE SET until = greatest(revocations.until, EXCLUDED.until)",
            [.text(id), .text(board?.rawValue ?? ""), .int(Int(until))])
    }

    /// Client text and JSON as the `bytea` of their UTF-8; this module's ids as `text`.
    private static func value(_ value: SQLValue) -> PostgresValue {
        switch value {
        case .int(let n): .int(n)
        case .text(let text): .text(text)
        case .utf8(let text): .utf8(text)
        case .json(let bytes): .bytes(bytes)
        }
    }
}

extension PostgresRow: SQLRow {}
