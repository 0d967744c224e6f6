package import BoardCore

// The inbox in the store (issue 34): the notices of each member, in a table of their own
// (a migration of its own in each database). `BoardLog` writes a committed op's notices
// (`Notice.made`) in the transaction that appends the op, so a notice is durable exactly when its
// op is, and keeps the newest `Notice.keptPerMember` of each member it wrote to. Ids count up in
// the order notices commit (SQLite has one writer; PostgreSQL takes them from one counter row,
// locked until the transaction ends), so a node that has seen every notice up to an id has
// missed none below it (`notices(after:limit:)`, how every node learns of new ones).

/// A member's inbox, newest first.
package struct InboxPage: Equatable, Sendable {
    /// Up to the asked-for number of notices, newest first.
    package var notices: [Notice]
    /// How many of the member's notices are unread (all of them, not only those on the page).
    package var unread: Int
}

/// Notices committed after some id, oldest first, for the hub to tell connected clients.
package struct NoticeFeed: Equatable, Sendable {
    /// The notices with greater ids than asked for (none when asked from nil), oldest first.
    package var notices: [Notice]
    /// The greatest id stored when read (0: none yet; from nil, of the notices made before the time asked).
    package var latest: Int64

    /// A feed page.
    package init(notices: [Notice], latest: Int64) {
        self.notices = notices
        self.latest = latest
    }
}

/// The most notices one `GET /api/inbox` page or one feed read holds.
package let maximumInboxPage = 500

/// A store that keeps members' inboxes (the notices themselves are written by `BoardLog`).
package protocol InboxStore: BoardStore {
    /// The member's newest `limit` notices (at most `maximumInboxPage`) and their unread count.
    func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage
    /// Marks the member's notices up to id `upTo` read (a write); returns how many stay unread.
    func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int
    /// Up to `limit` notices of every member with ids greater than `after`, oldest first, and the
    /// greatest id stored. From nil, none, and as `latest` the greatest id of the notices made
    /// before `madeBefore` (ms since 1970): where a server that starts then begins, so that a
    /// notice its own ops make while this read is on its way is not taken for an old one.
    func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed
}

extension InboxStore {
    /// This store: it keeps inboxes.
    package var asInboxStore: (any InboxStore)? { self }
}

extension BoardStore {
    /// Keeps no inboxes.
    package var asInboxStore: (any InboxStore)? { nil }
}

/// The notice rows both databases share.
protocol InboxRows {
    /// Stores a notice with the next id, unless it is a mention of a comment the member was
    /// already told of; then drops the member's notices past the newest `Notice.keptPerMember`.
    func putNotice(_ notice: Notice) throws(StoreError)
    /// The newest id given to a notice (0 before the first).
    func latestNotice() throws(StoreError) -> Int
}

extension Notice {
    /// A notice row read back (a damaged row names its id).
    static func row(
        id: Int, member: String, kind: String, board: String, item: String, label: String, byMember: String,
        byName: String, at: Int, seq: Int, comment: Int, read: Bool
    ) throws(StoreError) -> Notice {
        guard let member = MemberID(member), let kind = Kind(rawValue: kind), let board = BoardID(board),
            let item = ItemID(item), let by = MemberID(byMember)
        else { throw StoreError("notice \(id) is damaged") }
        return Notice(
            id: Int64(id), member: member, kind: kind, board: board, item: item, label: label,
            by: Assignee(member: by, name: byName), at: Int64(at), seq: seq, comment: comment, read: read)
    }
}
