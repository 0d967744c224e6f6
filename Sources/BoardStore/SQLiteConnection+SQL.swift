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

    /// The write transaction (BEGIN IMMEDIATE) already keeps every other writer out.
    func holdBoard(_ id: BoardID) throws(StoreError) -> Bool {
        try boardSeq(of: id) != nil
    }

    /// A revocation of no board keeps NULL there.
    func putRevocation(_ id: String, of board: BoardID?, until: Int64, now: Int64) throws(StoreError) {
        try query("DELETE FROM revocations WHERE until <= ?", [.int(Int(now))])
        try query(
            "INSERT INTO revocations (id, board, until) VALUES (?, ?, ?) "
                + "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)",
            [.text(id), board.map { .text($0.rawValue) } ?? .null, .int(Int(until))])
    }

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
