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
