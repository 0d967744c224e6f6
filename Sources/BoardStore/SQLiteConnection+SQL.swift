internal import BoardCore

/// SQLite as the shared statements use it (SQLDatabase.swift).
extension SQLiteConnection: SQLConnection {
    func rows(_ sql: String, _ values: [SQLValue], row: (SQLiteRow) throws(StoreError) -> Void) throws(StoreError) {
        try query(sql, values.map(Self.value), row: row)
    }

    func writing<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try transaction(.immediate, body)
    }

    /// Bytes, not characters: length() of TEXT counts characters; of a BLOB, bytes.
    static func byteCount(of column: String) -> String { "length(CAST(\(column) AS BLOB))" }

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

    // MARK: Notices (the rest of the inbox: SQLStore+Inbox.swift)

    func putNotice(_ notice: Notice) throws(StoreError) {
        // A member is told of one comment once: an edit that mentions them again adds nothing.
        try write(
            "INSERT INTO notices (member, kind, board, item, label, by_member, by_name, at, seq, comment, read) "
                + "SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0 WHERE $10 = 0 OR NOT EXISTS "
                + "(SELECT 1 FROM notices WHERE member = $1 AND board = $3 AND comment = $10)", Self.values(of: notice))
        try trimNotices(of: notice.member)
    }

    func latestNotice() throws(StoreError) -> Int {
        try int("SELECT coalesce(max(id), 0) FROM notices") ?? 0
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

extension SQLiteStore: InboxStore {}

extension SQLiteConnection: InboxRows {}
