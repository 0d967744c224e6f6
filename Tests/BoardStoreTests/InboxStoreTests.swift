import BoardCore
import Testing

@testable import BoardStore

/// Inboxes in the store (issue 34), on SQLite, PostgreSQL (with a test server) and memory: the
/// notices a committed op makes are written with it, newest first, never to the op's author,
/// once per comment and member, bounded to the newest 500 per member, marked read up to an id,
/// numbered in commit order for the feed, and kept across a restart.
@Suite struct InboxStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]
    static let (ann, bo, cy) = (MemberID("ann")!, MemberID("bo")!, MemberID("cy")!)

    static func comment(mentioning people: [MemberID], on card: String = "t1") -> Op {
        .comment(
            item: ItemID(card)!,
            comment: BoardCore.Comment(
                id: .unassigned, text: "hi", member: MemberID("x")!, name: "x", at: 0,
                mentions: people.map { Mention(member: $0, name: $0.rawValue.uppercased()) }))
    }

    static func assign(_ people: [MemberID], on card: String = "t1") -> Op {
        .assign(item: ItemID(card)!, add: people.map { Assignee(member: $0, name: $0.rawValue) }, remove: [])
    }

    static func inboxOf(_ store: any BoardStore) throws -> any InboxStore { try #require(store.asInboxStore) }

    @Test(arguments: stores)
    func opsNotifyTheMembersTheyMentionOrAddNewestFirstButNeverTheirAuthor(_ backend: Backend) throws {
        try withSpace(backend) { space in
            var s = Sequencer(board: .defaultTemplate(id: boardA))
            var ops = CommentStoreTests.commit(
                [
                    Self.comment(mentioning: [Self.bo, Self.ann, Self.bo]),  // n1: bo once, not ann herself
                    Self.assign([Self.bo, Self.cy], on: "t2"),  // bo and cy
                    Self.assign([Self.bo], on: "t2"),  // bo is assigned already: nothing
                ], on: &s)
            ops += CommentStoreTests.commit(
                [
                    // An edit that mentions bo again and cy newly: only cy.
                    .editComment(
                        item: ItemID("t1")!, comment: CommentID("n1")!, text: "hi all",
                        mentions: [Mention(member: Self.bo, name: "BO"), Mention(member: Self.cy, name: "CY")],
                        edited: 5)
                ], on: &s)
            // Cy's own comment mentioning bo.
            ops += CommentStoreTests.commit([Self.comment(mentioning: [Self.bo, Self.cy], on: "t3")], on: &s, by: "cy")
            var store = try space.open()
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, ops)])

            func check(_ store: any BoardStore) throws {
                let inbox = try Self.inboxOf(store)
                let bo = try inbox.inbox(of: Self.bo, limit: 50)
                #expect(bo.notices.map(\.kind) == [.mention, .assign, .mention])
                #expect(bo.notices.map(\.seq) == [5, 2, 1])
                #expect(bo.unread == 3)
                let first = try #require(bo.notices.last)
                #expect(first.board == boardA && first.item == ItemID("t1")! && first.by.member == Self.ann)
                #expect(first.by.name == "Ann" && first.at == 1_000 && !first.read)
                #expect(first.label == s.board.item(ItemID("t1")!)?.label)
                #expect(bo.notices[0].by.member == Self.cy)
                let ids = bo.notices.map(\.id)
                #expect(ids == ids.sorted(by: >) && Set(ids).count == 3)
                let cy = try inbox.inbox(of: Self.cy, limit: 50)
                #expect(cy.notices.map(\.kind) == [.mention, .assign])
                #expect(cy.notices.map(\.seq) == [4, 2])
                #expect(try inbox.inbox(of: Self.ann, limit: 50) == InboxPage(notices: [], unread: 0))
            }
            try check(store)
            if backend != .memory {
                store.close()
                store = try space.open()
                try check(store)
            }
            // Read marks: up to an id, the member's own only.
            let inbox = try Self.inboxOf(store)
            let bo = try inbox.inbox(of: Self.bo, limit: 50).notices
            #expect(try inbox.markRead(Self.bo, upTo: bo[1].id) == 1)
            let after = try inbox.inbox(of: Self.bo, limit: 50)
            #expect(after.notices.map(\.read) == [false, true, true] && after.unread == 1)
            #expect(try inbox.inbox(of: Self.cy, limit: 50).unread == 2)
            #expect(try inbox.inbox(of: Self.bo, limit: 2).notices.count == 2)
            // The feed: oldest first after an id; from nil, only the greatest id.
            let latest = try inbox.notices(after: nil, madeBefore: .max, limit: 10)
            #expect(latest.notices.isEmpty && latest.latest >= bo[0].id)
            let feed = try inbox.notices(after: 0, madeBefore: 0, limit: 10)
            #expect(feed.notices.map(\.seq) == [1, 2, 2, 4, 5])
            #expect(feed.notices.map(\.id) == feed.notices.map(\.id).sorted())
            #expect(try inbox.notices(after: feed.notices[2].id, madeBefore: 0, limit: 1).notices.map(\.seq) == [4])
            // From nil: the greatest id of the notices made before a time (ops 1 and 2, at 1,001 and 1,002 ms).
            #expect(try inbox.notices(after: nil, madeBefore: 1_003, limit: 10).latest == feed.notices[2].id)
            #expect(try inbox.notices(after: nil, madeBefore: 1_000, limit: 10).latest == 0)
            store.close()
        }
    }

    @Test(arguments: stores)
    func aMemberKeepsTheNewest500Notices(_ backend: Backend) throws {
        try withSpace(backend) { space in
            var s = Sequencer(board: .defaultTemplate(id: boardA))
            let ops = CommentStoreTests.commit(
                // Spread over cards: a card takes at most 500 comments.
                (0..<520).map { Self.comment(mentioning: [Self.bo], on: "t\($0 % 4 + 1)") }
                    + [Self.comment(mentioning: [Self.cy])],
                on: &s)
            #expect(ops.count == 521)
            let store = try space.open()
            try store.write([.create(.defaultTemplate(id: boardA))])
            // In several batches, as the writer would group them.
            for chunk in stride(from: 0, to: ops.count, by: 100) {
                try store.write([.append(boardA, Array(ops[chunk..<min(chunk + 100, ops.count)]))])
            }
            let inbox = try Self.inboxOf(store)
            let page = try inbox.inbox(of: Self.bo, limit: 500)
            #expect(page.notices.count == Notice.keptPerMember && page.unread == Notice.keptPerMember)
            #expect(page.notices.first?.seq == 520 && page.notices.last?.seq == 21)
            #expect(try inbox.inbox(of: Self.cy, limit: 500).notices.map(\.seq) == [521])
            if backend != .memory { #expect(try space.count("notices") == 501) }
            #expect(try inbox.markRead(Self.bo, upTo: page.notices[0].id) == 0)
            store.close()
        }
    }

    @Test(arguments: stores)
    func oneBatchForTwoBoardsStoresTheCommentsAndNoticesOfBoth(_ backend: Backend) throws {
        try withSpace(backend) { space in
            var a = Sequencer(board: .defaultTemplate(id: boardA))
            var b = Sequencer(board: .defaultTemplate(id: boardB))
            let store = try space.open()
            try store.write([.create(.defaultTemplate(id: boardA)), .create(.defaultTemplate(id: boardB))])
            // Warm the writer's replicas, then one batch with both boards' comments.
            try store.write([
                .append(boardA, CommentStoreTests.commit([.toggle(item: ItemID("t1")!, on: true)], on: &a)),
                .append(boardB, CommentStoreTests.commit([.toggle(item: ItemID("t1")!, on: true)], on: &b)),
            ])
            try store.write([
                .append(boardA, CommentStoreTests.commit([Self.comment(mentioning: [Self.bo])], on: &a)),
                .append(boardB, CommentStoreTests.commit([Self.comment(mentioning: [Self.bo])], on: &b)),
            ])
            let notices = try Self.inboxOf(store).inbox(of: Self.bo, limit: 10).notices
            #expect(Set(notices.map(\.board)) == [boardA, boardB])
            for board in [boardA, boardB] {
                guard
                    case .comments(let comments, _) = try store.comments(
                        of: board, item: ItemID("t1")!, before: nil, limit: 10)
                else { Issue.record("no comments on \(board)"); continue }
                #expect(comments.count == 1)
            }
            store.close()
        }
    }
}

extension ClaimingStore: InboxStore {}
