import BoardCore
import Testing

@testable import BoardStore

/// Search (issue 36) on SQLite (FTS5), PostgreSQL (tsvector + GIN, with a test server) and memory:
/// the index follows each op batch (labels, descriptions, checklists, comments, titles), words
/// match as prefixes, results are ranked, archived cards say so, deleted boards and removed
/// comments are gone, and an index that is missing or behind is rebuilt from the log.
@Suite struct SearchStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func commit(_ ops: [Op], on s: inout Sequencer) -> [CommittedOp] {
        CommentStoreTests.commit(ops, on: &s)
    }

    static func card(_ id: String, _ label: String, description: String? = nil) -> Op {
        .add(
            zone: ZoneID("tray")!, before: nil,
            item: Item(id: ItemID(id)!, label: label, color: "#888888", description: description))
    }

    /// The id the sequencer gave the card labelled `label`.
    static func id(_ label: String, _ s: Sequencer) -> ItemID {
        s.board.items.first { $0.label == label }?.id ?? ItemID("missing")!
    }

    /// Board A ("Launch plan") with cards about logins, and board B ("Garden") with one too.
    static func fill(_ store: any BoardStore) throws -> (a: Sequencer, b: Sequencer) {
        var a = Sequencer(board: .defaultTemplate(id: boardA))
        var b = Sequencer(board: .defaultTemplate(id: boardB))
        try store.write([.create(a.board), .create(b.board)])
        var opsA = commit(
            [
                .retitle(title: "Launch plan"),
                card("c1", "Login page", description: "The form people sign in with"),
                card("c2", "Release notes", description: "Mention the new login flow, and the logo"),
                card("c3", "Catalogue"),
                card("c4", "Old login screen"),
            ], on: &a)
        let catalogue = id("Catalogue", a)
        opsA += commit(
            [
                .addCheck(item: catalogue, before: nil, check: Check(id: CheckID("k1")!, text: "Blogroll links")),
                CommentStoreTests.comment("Zebra crossing near the office", on: catalogue.rawValue),
                .archive(items: [id("Old login screen", a)]),
            ], on: &a)
        #expect(opsA.count == 8)
        let opsB = commit([.retitle(title: "Garden"), card("g1", "Water the login plants")], on: &b)
        #expect(opsB.count == 2)
        try store.write([.append(boardA, opsA), .append(boardB, opsB)])
        return (a, b)
    }

    static func find(_ store: any BoardStore, _ text: String, board: BoardID? = nil, limit: Int = 50) throws
        -> [SearchHit]
    {
        try store.search(try #require(SearchQuery(text)), board: board, limit: limit).hits
    }

    /// Each hit as board/label (board/- for a title), and #comment for a comment.
    static func keys(_ hits: [SearchHit]) -> [String] {
        hits.map { "\($0.board)/\($0.item == nil ? "-" : $0.label)\($0.comment.map { "#" + $0.rawValue } ?? "")" }
    }

    @Test(arguments: stores)
    func wordsMatchAsPrefixesRankedWithTitlesCommentsAndTheArchivedFlag(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            defer { store.close() }
            _ = try Self.fill(store)

            // "log" begins login, logo; not blogroll or catalogue (inside a word).
            let log = try Self.find(store, "log")
            #expect(
                Set(Self.keys(log)) == [
                    "alpha/Login page", "alpha/Release notes", "alpha/Old login screen", "beta/Water the login plants",
                ])
            // A word in a label ranks above the same word only in a description.
            let login = Self.keys(try Self.find(store, "login"))
            #expect(login.count == 4 && login.last == "alpha/Release notes")
            // Every word is needed; case does not matter.
            #expect(Self.keys(try Self.find(store, "LOGIN Pag")) == ["alpha/Login page"])
            #expect(try Self.find(store, "login zebra").isEmpty)

            let c1 = try #require(try Self.find(store, "login page").first)
            #expect(c1.boardTitle == "Launch plan" && c1.label == "Login page" && !c1.archived)
            #expect(c1.comment == nil)

            // A description's words, with the snippet from it.
            let notes = try #require(try Self.find(store, "flow").first)
            #expect(notes.label == "Release notes")
            #expect(notes.snippet.contains("new login flow"))

            // A checklist text; a comment, shown with its card's label.
            #expect(Self.keys(try Self.find(store, "blogroll")) == ["alpha/Catalogue"])
            let zebra = try #require(try Self.find(store, "zebra").first)
            #expect(zebra.comment == CommentID("n7") && zebra.label == "Catalogue")
            #expect(zebra.snippet == "Zebra crossing near the office")

            // The archived card is found, and says so.
            let old = try #require(try Self.find(store, "old login").first)
            #expect(old.label == "Old login screen" && old.archived)

            // Board titles.
            let garden = try #require(try Self.find(store, "gard").first)
            #expect(garden.board == boardB && garden.item == nil && garden.label == "Garden")

            // One board only; a limit, with more.
            #expect(Self.keys(try Self.find(store, "login", board: boardB)) == ["beta/Water the login plants"])
            let two = try store.search(try #require(SearchQuery("log")), board: nil, limit: 2)
            #expect(two.hits.count == 2 && two.more)
        }
    }

    @Test(arguments: stores)
    func editsRemovalsAndDeletesFollowEachBatch(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            defer { store.close() }
            var (a, _) = try Self.fill(store)
            let catalogue = Self.id("Catalogue", a)
            let ops = Self.commit(
                [
                    .edit(item: Self.id("Login page", a), changes: ItemEdit(label: "Sign-in page")),
                    .remove(item: Self.id("Release notes", a)),
                    .removeComment(item: catalogue, comment: CommentID("n7")!),
                    .unarchive(items: [Self.id("Old login screen", a)], zone: ZoneID("tray")!, before: nil),
                    .editCheck(
                        item: catalogue, check: a.board.item(catalogue)?.checklist.first?.id ?? CheckID("k1")!,
                        changes: CheckEdit(text: "Weblog links")),
                ], on: &a)
            #expect(ops.count == 5)
            try store.write([.append(boardA, ops)])
            #expect(
                Set(Self.keys(try Self.find(store, "login"))) == [
                    "alpha/Old login screen", "beta/Water the login plants",
                ])
            #expect(
                try Self.find(store, "login")
                    .first { $0.label == "Old login screen" }?.archived == false)
            #expect(Self.keys(try Self.find(store, "sign")) == ["alpha/Sign-in page"])
            #expect(try Self.find(store, "zebra").isEmpty)
            #expect(try Self.find(store, "blogroll").isEmpty)
            #expect(Self.keys(try Self.find(store, "weblog")) == ["alpha/Catalogue"])

            try store.write([.delete(boardB)])
            #expect(try Self.find(store, "garden").isEmpty)
            #expect(Self.keys(try Self.find(store, "login")) == ["alpha/Old login screen"])
        }
    }

    @Test(arguments: StoreContractTests.stores)
    func anIndexMissingOrBehindTheLogIsRebuiltFromItAtOpenAndByReindex(_ backend: Backend) throws {
        try withSpace(backend) { space in
            var store = try space.open(snapshotEvery: 3, keepOps: 2)
            let (a, _) = try Self.fill(store)
            // The comment is in the comments table, which the rebuild reads (on PostgreSQL the
            // batch of two boards goes the pipelined way, which once left comments out).
            guard
                case .comments(let comments, _) = try store.comments(
                    of: boardA, item: Self.id("Catalogue", a), before: nil, limit: 10)
            else { Issue.record("no comments page"); return }
            #expect(comments.map(\.text) == ["Zebra crossing near the office"])
            store.close()
            // As a database from before the index: no documents, every board behind.
            try space.execute("DELETE FROM search_docs")
            try space.execute("UPDATE boards SET indexed = -1")
            #expect(try space.count("search_docs") == 0)
            store = try space.open(snapshotEvery: 3, keepOps: 2)
            #expect(
                Set(Self.keys(try Self.find(store, "log"))) == [
                    "alpha/Login page", "alpha/Release notes", "alpha/Old login screen", "beta/Water the login plants",
                ])
            #expect(Self.keys(try Self.find(store, "zebra")) == ["alpha/Catalogue#n7"])
            #expect(try Self.find(store, "old").first?.archived == true)
            store.close()
            // One board behind (its documents of an older seq): only it is rebuilt.
            try space.execute("DELETE FROM search_docs WHERE board = 'beta'")
            try space.execute("UPDATE boards SET indexed = 0 WHERE id = 'beta'")
            store = try space.open(snapshotEvery: 3, keepOps: 2)
            #expect(Self.keys(try Self.find(store, "garden")) == ["beta/-"])
            // `shuffleboard reindex` rebuilds every board.
            #expect(try store.reindex(all: true) == 2)
            #expect(
                Set(Self.keys(try Self.find(store, "log"))) == [
                    "alpha/Login page", "alpha/Release notes", "alpha/Old login screen", "beta/Water the login plants",
                ])
            store.close()
        }
    }

    @Test(arguments: stores)
    func hostileQueriesFindNothingWithoutFailing(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            defer { store.close() }
            _ = try Self.fill(store)
            for text in [
                "\"", "log\"*", "log OR zebra", "NEAR(log zebra)", "label:login", "log* AND -x", "'log':* | zebra",
                "!log & (zebra", "\\", "log\\'", "^login", "\u{0}login", "c3\u{301}", "ﬁx", "🙂 login", "login)",
            ] {
                guard let query = SearchQuery(text) else { continue }
                _ = try store.search(query, board: nil, limit: 10)
            }
            // 300 texts of scalars from every plane (a fixed seed: the same ones each run).
            var seed: UInt64 = 0x5eed
            let planes: [ClosedRange<UInt32>] = [
                0x20...0x7e, 0xa0...0x2fff, 0x3000...0xd7ff, 0xe000...0xffff, 0x1_0000...0x1_ffff,
            ]
            for _ in 0..<300 {
                var text = ""
                for _ in 0..<12 {
                    seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    let plane = planes[Int(seed >> 60) % planes.count]
                    let span = UInt64(plane.upperBound - plane.lowerBound + 1)
                    if let scalar = Unicode.Scalar(plane.lowerBound + UInt32((seed >> 20) % span)) {
                        text.unicodeScalars.append(scalar)
                    }
                }
                guard let query = SearchQuery(text) else { continue }
                _ = try store.search(query, board: nil, limit: 5)
            }
            #expect(SearchQuery("\" * : ( ) ' !") == nil)
            // Operators are words like any other: "OR" does not widen the search.
            #expect(try Self.find(store, "login OR zebra").isEmpty)
            #expect(SearchQuery(String(repeating: "w ", count: 40))?.words.count == SearchQuery.maximumWords)
        }
    }
}
