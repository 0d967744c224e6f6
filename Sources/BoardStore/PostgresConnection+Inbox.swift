internal import BoardCore

/// The notice rows in PostgreSQL (the notices table of its migrations), every value a bound
/// parameter; the rest of the inbox is SQLStore+Inbox.swift. Both statements are only sent
/// (`write`), so a pipelined batch of appends stays one round trip.
extension PostgresConnection: InboxRows {
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
}

/// The inboxes in the database every node of a cluster shares (SQLStore+Inbox.swift).
extension PostgresStore: InboxStore {}
