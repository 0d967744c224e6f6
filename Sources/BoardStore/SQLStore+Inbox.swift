internal import BoardCore

/// The inboxes, the same in SQLite and PostgreSQL but for how a notice gets its id
/// (`InboxRows.putNotice`, `latestNotice`).
extension SQLStore {
    package func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage {
        // One read transaction: the page and the count agree.
        try onReadOnly { (db: Connection) throws(StoreError) -> InboxPage in
            let notices = try db.noticeRows(
                where: "member = $1 ORDER BY id DESC LIMIT $2",
                [.text(member.rawValue), .int(min(max(limit, 1), maximumInboxPage))])
            return InboxPage(notices: notices, unread: try db.unread(of: member))
        }
    }

    package func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int {
        try onWriter { (db: Connection) throws(StoreError) -> Int in
            try db.writing { () throws(StoreError) -> Int in
                try db.write(
                    "UPDATE notices SET read = 1 WHERE member = $1 AND id <= $2 AND read = 0",
                    [.text(member.rawValue), .int(Int(upTo))])
                return try db.unread(of: member)
            }
        }
    }

    package func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed {
        try onReadOnly { (db: Connection) throws(StoreError) -> NoticeFeed in
            guard let after else {
                let old = try db.intValue(
                    "SELECT id FROM notices WHERE at < $1 ORDER BY id DESC LIMIT 1", [.int(Int(madeBefore))])
                return NoticeFeed(notices: [], latest: Int64(old ?? 0))
            }
            let latest = Int64(try db.latestNotice())
            let notices = try db.noticeRows(
                where: "id > $1 ORDER BY id LIMIT $2", [.int(Int(after)), .int(min(max(limit, 1), maximumInboxPage))])
            return NoticeFeed(notices: notices, latest: latest)
        }
    }
}

extension SQLConnection {
    /// Notices chosen by `clause` (after WHERE: this module's own SQL), in its order.
    func noticeRows(where clause: String, _ values: [SQLValue]) throws(StoreError) -> [Notice] {
        var notices: [Notice] = []
        try rows(
            "SELECT id, member, kind, board, item, label, by_member, by_name, at, seq, comment, read FROM notices WHERE "
                + clause, values
        ) { row throws(StoreError) in
            notices.append(
                try Notice.row(
                    id: row.int(0), member: row.text(1), kind: row.text(2), board: row.text(3), item: row.text(4),
                    label: row.text(5), byMember: row.text(6), byName: row.text(7), at: row.int(8), seq: row.int(9),
                    comment: row.int(10), read: row.int(11) != 0))
        }
        return notices
    }

    /// A notice's columns: member, kind, board, item, label, by_member, by_name, at, seq, comment.
    static func values(of notice: Notice) -> [SQLValue] {
        [
            .text(notice.member.rawValue), .text(notice.kind.rawValue), .text(notice.board.rawValue),
            .text(notice.item.rawValue), .utf8(notice.label), .text(notice.by.member.rawValue),
            .utf8(notice.by.name), .int(Int(notice.at)), .int(notice.seq), .int(notice.comment),
        ]
    }

    /// How many of the member's notices are unread.
    func unread(of member: MemberID) throws(StoreError) -> Int {
        try intValue("SELECT count(*) FROM notices WHERE member = $1 AND read = 0", [.text(member.rawValue)]) ?? 0
    }

    /// Drops the member's notices past the newest `Notice.keptPerMember` (after `putNotice`).
    func trimNotices(of member: MemberID) throws(StoreError) {
        try write(
            "DELETE FROM notices WHERE member = $1 AND id <= "
                + "(SELECT id FROM notices WHERE member = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)",
            [.text(member.rawValue), .int(Notice.keptPerMember)])
    }
}
