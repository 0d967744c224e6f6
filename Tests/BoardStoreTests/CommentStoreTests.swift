import BoardCore
import Testing

@testable import BoardStore

/// Comments in the store (issue 34), on SQLite, PostgreSQL (with a test server) and memory: their
/// texts are written with the ops that make, edit and remove them, read page by page newest
/// first, kept across a restart and a compaction of the ops, and carried by export and import.
@Suite struct CommentStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    /// Commits `ops` (alice's) on a sequencer, as the hub would, and returns what it committed.
    static func commit(_ ops: [Op], on s: inout Sequencer, by user: String = "ann") -> [CommittedOp] {
        ops.compactMap { op in
            let outcome = s.submit(
                OpRequest(opID: OpID("o\(s.seq)")!, base: s.seq, op: op), by: UserID(user), name: "Ann",
                member: MemberID(user), time: UnixTime(milliseconds: 1_000 + Int64(s.seq)), holder: { _ in nil })
            guard case .committed(let committed) = outcome else { return nil }
            return committed
        }
    }

    static func comment(_ text: String, on card: String = "t1") -> Op {
        .comment(
            item: ItemID(card)!,
            comment: BoardCore.Comment(
                id: .unassigned, text: text, member: MemberID("x")!, name: "x", at: 0,
                mentions: [Mention(member: MemberID("bo")!, name: "Bo")]))
    }

    @Test(arguments: stores)
    func commentsArePagedNewestFirstAndSurviveARestartACompactionAndAnArchive(_ backend: Backend) throws {
        try withSpace(backend) { space in
            var s = Sequencer(board: .defaultTemplate(id: boardA))
            var ops = Self.commit((1...25).map { Self.comment("C\($0)") } + [Self.comment("Other", on: "t2")], on: &s)
            ops += Self.commit(
                [
                    .editComment(
                        item: ItemID("t1")!, comment: CommentID("n3")!, text: "C3, edited", mentions: [], edited: 0),
                    .removeComment(item: ItemID("t1")!, comment: CommentID("n5")!),
                ], on: &s)
            #expect(ops.count == 28)
            var store = try space.open(snapshotEvery: 10, keepOps: 5)
            try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, ops)])
            // Enough toggles after them that the comment ops themselves are compacted away.
            let toggles = Self.commit((0..<30).map { .toggle(item: ItemID("t3")!, on: $0 % 2 == 0) }, on: &s)
            try store.write([.append(boardA, toggles)])
            let t1 = ItemID("t1")!

            func check(_ store: any BoardStore) throws {
                guard
                    case .comments(let first, let more) = try store.comments(
                        of: boardA, item: t1, before: nil, limit: 10)
                else { Issue.record("no page"); return }
                #expect(first.map(\.id.rawValue) == (16...25).reversed().map { "n\($0)" })
                #expect(more)
                #expect(first[0].text == "C25" && first[0].member == MemberID("ann") && first[0].name == "Ann")
                #expect(first[0].mentions == [Mention(member: MemberID("bo")!, name: "Bo")])
                guard case .comments(let last, let end) = try store.comments(of: boardA, item: t1, before: 5, limit: 10)
                else { Issue.record("no page"); return }
                // n5 was removed; n3 edited.
                #expect(last.map(\.id.rawValue) == ["n4", "n3", "n2", "n1"])
                #expect(!end)
                #expect(last[1].text == "C3, edited" && last[1].edited != nil && last[0].edited == nil)
                guard
                    case .comments(let other, _) = try store.comments(
                        of: boardA, item: ItemID("t2")!, before: nil, limit: 100)
                else { Issue.record("no page"); return }
                #expect(other.map(\.text) == ["Other"])
                #expect(try store.comments(of: boardB, item: t1, before: nil, limit: 10) == .unknownBoard)
                let loaded = try #require(try store.load(boardA, recentLimit: 0))
                #expect(loaded.board.item(t1)?.comments == 24)
                #expect(loaded.board.commentRefs.count == 25)
                #expect(loaded.board == s.board)
            }
            try check(store)
            if backend != .memory {
                store.close()
                store = try space.open(snapshotEvery: 10, keepOps: 5)
                try check(store)
            }
            // Export and import into a fresh space: the comments come along.
            let archive = try #require(try store.archive(of: boardA))
            let parsed = try BoardArchive(json: archive.encoded())
            #expect(parsed == archive)
            try withSpace(backend) { other in
                let fresh = try other.open()
                try fresh.restore(parsed, replace: false)
                try check(fresh)
                fresh.close()
            }
            // Deleting the board deletes its comments.
            try store.write([.delete(boardA)])
            #expect(try store.comments(of: boardA, item: t1, before: nil, limit: 10) == .unknownBoard)
            if backend != .memory { #expect(try space.count("comments") == 0) }
            store.close()
        }
    }
}
