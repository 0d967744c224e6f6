package import BoardCore

/// Every member's notices in memory, by the same rules as the databases' (Inbox.swift).
struct MemoryInbox {
    /// The last id given.
    private var last: Int64 = 0
    /// Each member's notices, oldest first.
    private var byMember: [MemberID: [Notice]] = [:]
    /// Every notice's member by id, for the feed (trimmed with the inboxes).
    private var members: [Int64: MemberID] = [:]

    /// Stores notices with the next ids (a mention of a comment the member was told of is dropped)
    /// and keeps the newest `Notice.keptPerMember` of each member.
    mutating func put(_ notices: [Notice]) {
        for var notice in notices {
            var list = byMember[notice.member, default: []]
            if notice.comment != 0,
                list.contains(where: { $0.board == notice.board && $0.comment == notice.comment })
            {
                continue
            }
            last += 1
            notice.id = last
            list.append(notice)
            members[last] = notice.member
            if list.count > Notice.keptPerMember {
                for old in list.prefix(list.count - Notice.keptPerMember) { members[old.id] = nil }
                list.removeFirst(list.count - Notice.keptPerMember)
            }
            byMember[notice.member] = list
        }
    }

    func page(of member: MemberID, limit: Int) -> InboxPage {
        let list = byMember[member, default: []]
        return InboxPage(
            notices: Array(list.reversed().prefix(min(max(limit, 1), maximumInboxPage))),
            unread: list.count(where: { !$0.read }))
    }

    mutating func markRead(_ member: MemberID, upTo: Int64) -> Int {
        guard var list = byMember[member] else { return 0 }
        for i in list.indices where list[i].id <= upTo { list[i].read = true }
        byMember[member] = list
        return list.count(where: { !$0.read })
    }

    func feed(after: Int64?, madeBefore: Int64, limit: Int) -> NoticeFeed {
        guard let after else {
            let old = byMember.values.joined().filter { $0.at < madeBefore }.map(\.id).max() ?? 0
            return NoticeFeed(notices: [], latest: old)
        }
        var found: [Notice] = []
        for (id, member) in members.filter({ $0.key > after }).sorted(by: { $0.key < $1.key })
            .prefix(min(max(limit, 1), maximumInboxPage))
        {
            if let notice = byMember[member]?.first(where: { $0.id == id }) { found.append(notice) }
        }
        return NoticeFeed(notices: found, latest: last)
    }
}

extension MemoryStore: InboxStore {
    package func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage {
        inbox.withLock { $0.page(of: member, limit: limit) }
    }

    package func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int {
        inbox.withLock { $0.markRead(member, upTo: upTo) }
    }

    package func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed {
        inbox.withLock { $0.feed(after: after, madeBefore: madeBefore, limit: limit) }
    }
}
