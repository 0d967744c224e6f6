internal import BoardCore

/// The notice rows in SQLite (the notices table of its migrations); the rest of the inbox is
/// SQLStore+Inbox.swift.
extension SQLiteConnection: InboxRows {
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
}

extension SQLiteStore: InboxStore {}
