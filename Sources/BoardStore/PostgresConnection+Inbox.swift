package import BoardCore

/// The notice rows in PostgreSQL (the notices table of its migrations), every value a bound parameter. Both
/// statements are only sent (`send`), so a pipelined batch of appends stays one round trip.
extension PostgresConnection: InboxRows {
    func putNotice(_ notice: Notice) throws(StoreError) {
        // The id from the counter row, which stays locked until this transaction ends: ids count
        // up in commit order on every node. A member is told of one comment once.
        try send(
            "WITH c AS (UPDATE inbox_counter SET next = next + 1 RETURNING next) "
                + "INSERT INTO notices (id, member, kind, board, item, label, by_member, by_name, at, seq, comment, read) "
                + "SELECT c.next, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 0 FROM c WHERE $10 = 0 OR NOT EXISTS "
                + "(SELECT 1 FROM notices WHERE member = $1 AND board = $3 AND comment = $10)",
            [
                .text(notice.member.rawValue), .text(notice.kind.rawValue), .text(notice.board.rawValue),
                .text(notice.item.rawValue), .utf8(notice.label), .text(notice.by.member.rawValue),
                .utf8(notice.by.name), .int(Int(notice.at)), .int(notice.seq), .int(notice.comment),
            ])
        try send(
            "DELETE FROM notices WHERE member = $1 AND id <= "
                + "(SELECT id FROM notices WHERE member = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
            [.text(notice.member.rawValue), .int(Notice.keptPerMember)])
    }

    /// Notices chosen by `clause` (after WHERE), in its order.
    func noticeRows(where clause: String, _ parameters: [PostgresValue]) throws(StoreError) -> [Notice] {
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

/// The inboxes in the database every node of a cluster shares.
extension PostgresStore: InboxStore {
    package func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> InboxPage in
            let notices = try db.noticeRows(
                where: "member = $1 ORDER BY id DESC LIMIT $2",
                [.text(member.rawValue), .int(min(max(limit, 1), maximumInboxPage))])
            let unread =
                try db.int("SELECT count(*) FROM notices WHERE member = $1 AND read = 0", [.text(member.rawValue)]) ?? 0
            return InboxPage(notices: notices, unread: unread)
        }
    }

    package func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> Int in
            try db.transaction { () throws(StoreError) -> Int in
                try db.query(
                    "UPDATE notices SET read = 1 WHERE member = $1 AND id <= $2 AND read = 0",
                    [.text(member.rawValue), .int(Int(upTo))])
                return try db.int(
                    "SELECT count(*) FROM notices WHERE member = $1 AND read = 0", [.text(member.rawValue)]) ?? 0
            }
        }
    }

    package func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> NoticeFeed in
            guard let after else {
                let old = try db.int(
                    "SELECT id FROM notices WHERE at < $1 ORDER BY id DESC LIMIT 1", [.int(Int(madeBefore))])
                return NoticeFeed(notices: [], latest: Int64(old ?? 0))
            }
            let latest = Int64(try db.int("SELECT next FROM inbox_counter") ?? 0)
            let notices = try db.noticeRows(
                where: "id > $1 ORDER BY id LIMIT $2", [.int(Int(after)), .int(min(max(limit, 1), maximumInboxPage))])
            return NoticeFeed(notices: notices, latest: latest)
        }
    }
}
