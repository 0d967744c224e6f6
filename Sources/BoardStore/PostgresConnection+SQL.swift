internal import BoardCore

/// PostgreSQL as the shared statements use it (SQLDatabase.swift).
extension PostgresConnection: SQLConnection {
    func rows(_ sql: String, _ values: [SQLValue], row: (PostgresRow) throws(StoreError) -> Void) throws(StoreError) {
        try query(sql, values.map(Self.value), row: row)
    }

    /// Only sent in a pipelined transaction.
    func write(_ sql: String, _ values: [SQLValue]) throws(StoreError) {
        try send(sql, values.map(Self.value))
    }

    func writing<Result>(_ body: () throws(StoreError) -> Result) throws(StoreError) -> Result {
        try transaction(body)
    }

    /// `bytea` and `text` bytes.
    static func byteCount(of column: String) -> String { "octet_length(\(column))::int8" }

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

    // MARK: Notices (the rest of the inbox: SQLStore+Inbox.swift)

    /// Both statements are only sent (`write`): a pipelined batch of appends stays one round trip.
    func putNotice(_ notice: Notice) throws(StoreError) {
        // The id from the counter row, which stays locked until this transaction ends: ids count
        // up in commit order on every node. A member is told of one comment once.
        try write(
            "WITH c AS (UPDATE inbox_counter SET next = next + 1 RETURNING next) "
                + "INSERT INTO notices (id, member, kind, board, item, label, by_member, by_name, at, seq, comment, read) "
                + "SELECT c.next, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0 FROM c WHERE $10 = 0 OR NOT EXISTS "
                + "(SELECT 1 FROM notices WHERE member = $1 AND board = $3 AND comment = $10)", Self.values(of: notice))
        try trimNotices(of: notice.member)
    }

    func latestNotice() throws(StoreError) -> Int {
        try int("SELECT next FROM inbox_counter") ?? 0
    }

    /// Client text and JSON as the `bytea` of their UTF-8; this module's ids as `text`.
    static func value(_ value: SQLValue) -> PostgresValue {
        switch value {
        case .int(let n): .int(n)
        case .text(let text): .text(text)
        case .utf8(let text): .utf8(text)
        case .json(let bytes): .bytes(bytes)
        }
    }
}

extension PostgresRow: SQLRow {}

/// The inboxes in the database every node of a cluster shares (SQLStore+Inbox.swift).
extension PostgresStore: InboxStore {}

extension PostgresConnection: InboxRows {}
