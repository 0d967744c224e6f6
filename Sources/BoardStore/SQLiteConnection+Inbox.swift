package import BoardCore

/// The notice rows in SQLite (the notices table of its migrations).
extension SQLiteConnection: InboxRows {
    func putNotice(_ notice: Notice) throws(StoreError) {
        // A member is told of one comment once: an edit that mentions them again adds nothing.
        try query(
            "INSERT INTO notices (member, kind, board, item, label, by_member, by_name, at, seq, comment, read) "
                + "SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0 WHERE ?10 = 0 OR NOT EXISTS "
                + "(SELECT 1 FROM notices WHERE member = ?1 AND board = ?3 AND comment = ?10)",
            [
                .text(notice.member.rawValue), .text(notice.kind.rawValue), .text(notice.board.rawValue),
                .text(notice.item.rawValue), .text(notice.label), .text(notice.by.member.rawValue),
                .text(notice.by.name), .int(Int(notice.at)), .int(notice.seq), .int(notice.comment),
            ])
        try query(
            "DELETE FROM notices WHERE member = ?1 AND id <= "
                + "(SELECT id FROM notices WHERE member = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)",
            [.text(notice.member.rawValue), .int(Notice.keptPerMember)])
    }

    /// The member's newest `limit` notices.
    func noticeRows(of member: MemberID, limit: Int) throws(StoreError) -> [Notice] {
        try noticeRows(
            where: "member = ?1 ORDER BY id DESC LIMIT ?2", [.text(member.rawValue), .int(limit)])
    }

    /// Up to `limit` notices after id `after`, oldest first.
    func noticeRows(after: Int64, limit: Int) throws(StoreError) -> [Notice] {
        try noticeRows(where: "id > ?1 ORDER BY id LIMIT ?2", [.int(Int(after)), .int(limit)])
    }

    private func noticeRows(where clause: String, _ parameters: [SQLiteValue]) throws(StoreError) -> [Notice] {
        var rows: [(Int, String, String, String, String, String, String, String, Int, Int, Int, Int)] = []
        try query(
            "SELECT id, member, kind, board, item, label, by_member, by_name, at, seq, comment, read FROM notices WHERE "
                + clause, parameters
        ) { row in
            rows.append(
                (
                    row.int(0), row.text(1), row.text(2), row.text(3), row.text(4), row.text(5), row.text(6),
                    row.text(7), row.int(8), row.int(9), row.int(10), row.int(11)
                ))
        }
        var notices: [Notice] = []
        for r in rows {
            notices.append(
                try Notice.row(
                    id: r.0, member: r.1, kind: r.2, board: r.3, item: r.4, label: r.5, byMember: r.6, byName: r.7,
                    at: r.8, seq: r.9, comment: r.10, read: r.11 != 0))
        }
        return notices
    }
}

extension SQLiteStore: InboxStore {
    package func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage {
        // One read transaction (`onReader`): the page and the count agree.
        try onReader { (db: SQLiteConnection) throws(StoreError) -> InboxPage in
            let notices = try db.noticeRows(of: member, limit: min(max(limit, 1), maximumInboxPage))
            let unread =
                try db.int("SELECT count(*) FROM notices WHERE member = ? AND read = 0", [.text(member.rawValue)])
                ?? 0
            return InboxPage(notices: notices, unread: unread)
        }
    }

    package func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> Int in
            try db.transaction(.immediate) { () throws(StoreError) -> Int in
                try db.query(
                    "UPDATE notices SET read = 1 WHERE member = ? AND id <= ? AND read = 0",
                    [.text(member.rawValue), .int(Int(upTo))])
                return try db.int(
                    "SELECT count(*) FROM notices WHERE member = ? AND read = 0", [.text(member.rawValue)]) ?? 0
            }
        }
    }

    package func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed {
        try onReader { (db: SQLiteConnection) throws(StoreError) -> NoticeFeed in
            guard let after else {
                let old = try db.int(
                    "SELECT id FROM notices WHERE at < ? ORDER BY id DESC LIMIT 1", [.int(Int(madeBefore))])
                return NoticeFeed(notices: [], latest: Int64(old ?? 0))
            }
            let latest = Int64(try db.int("SELECT coalesce(max(id), 0) FROM notices") ?? 0)
            let notices = try db.noticeRows(after: after, limit: min(max(limit, 1), maximumInboxPage))
            return NoticeFeed(notices: notices, latest: latest)
        }
    }
}
