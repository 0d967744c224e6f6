internal import BoardCore

/// SQLite as the shared statements use it (SQLDatabase.swift).
extension SQLiteConnection: SQLConnection {
    static let greatest = "max"

    func rows(_ sql: String, _ values: [SQLValue], row: (SQLiteRow) throws(StoreError) -> Void) throws(StoreError) {
        try query(sql, values.map(Self.value), row: row)
    }

    func write(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try query(sql, values.map(Self.value))
    }

    func changing(_ sql: String, _ values: [SQLValue]) throws(StoreError) -> Int {
        try query(sql, values.map(Self.value))
        return changes
    }

    func writing<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try transaction(.immediate, body)
    }

    /// Nothing: the write transaction (BEGIN IMMEDIATE) already holds the file's one write lock.
    func lockCount(_ name: String, of board: BoardID) throws(StoreError) {}

    /// Client text and JSON as TEXT: SQLite binds text by its UTF-8 byte count, NUL included.
    private static func value(_ value: SQLValue) -> SQLiteValue {
        switch value {
        case .int(let n): .int(n)
        case .text(let text), .utf8(let text): .text(text)
        case .json(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        }
    }
}

extension SQLiteRow: SQLRow {}
