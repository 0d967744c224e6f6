import BoardCore
import Foundation
import Testing

@testable import BoardStore

/// The Trello import (issue 37): the fixture Tests/process/trello_export.py builds as Trello's
/// "Export as JSON" writes it, mapped as the issue says, and stored by `StoreWrite.restore` in
/// one write with its comments on SQLite, PostgreSQL (with a test server) and memory.
@Suite struct TrelloImportTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func fixture() throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("fixtures/trello-export.json")))
    }

    static func made() throws -> TrelloImport {
        try TrelloImport(json: try fixture(), id: BoardID("launch")!, maxBoardBytes: BoardLimits.defaultMaxBoardBytes)
    }

    @Test func theFixtureMapsAsTheIssueSays() throws {
        let made = try Self.made()
        let board = made.archive.current
        #expect(made.archive.baseSeq == 3 && made.archive.ops.isEmpty)
        #expect(board.title == "Launch")
        #expect(board.zones.map(\.title) == ["To do", "Doing", "Done"])
        let label = { (id: ItemID) in board.item(id)?.label ?? "?" }
        #expect(
            board.zones.map { $0.items.map(label) } == [
                ["First in To do", "Second in To do"], ["=SUM(A1:A9)"], ["Shipped"],
            ])
        #expect(board.archived.map(label) == ["In a closed list", "Closed card"])
        let first = try #require(board.items.first { $0.label == "First in To do" })
        #expect(first.checklist.map(\.text) == ["Steps: Write it", "Steps: Test it", "Later: Tell people"])
        #expect(first.assignees.map(\.member.rawValue) == ["trello-annlee", "trello-bo_k"])
        #expect(first.comments == 2)
        #expect(
            made.archive.comments.map(\.comment.text) == [
                "Can you look?\nThanks", "=cmd|' /C calc'!A0", "Done, see the PR",
            ])
        // 2026-11-20T10:00:00.123Z
        #expect(made.archive.comments[0].comment.at == 1_795_168_800_123)
        #expect(made.report.imported("comments") == 3 && made.report.imported("archived") == 2)
        #expect(made.report.dropped("attachments") == 3 && made.report.dropped("customFields") == 4)
        #expect(
            made.report.dropped.prefix(5).map(\.0) == ["attachments", "customFields", "stickers", "votes", "plugins"])
    }

    @Test func refusalsSayWhatIsWrong() throws {
        let id = BoardID("x")!
        func refusal(_ text: String, maxBoardBytes: Int = 1 << 20) -> TrelloImport.Refusal? {
            do {
                _ = try TrelloImport(json: Array(text.utf8), id: id, maxBoardBytes: maxBoardBytes)
                return nil
            } catch { return error }
        }
        guard case .notTrello(let notJSON) = refusal("{") else { Issue.record("not refused"); return }
        #expect(notJSON.hasPrefix("not JSON: "))
        #expect(refusal(#"{"name":"a","lists":[]}"#) == .notTrello(#""cards" must be an array"#))
        let lists = (0...BoardLimits.zones).map { #"{"id":"l\#($0)","name":"L","pos":\#($0)}"# }.joined(separator: ",")
        #expect(
            refusal(#"{"name":"a","lists":[\#(lists)],"cards":[]}"#)
                == .tooLarge("a board has at most \(BoardLimits.zones) zones (open lists)"))
        // A board whose snapshot would pass the server's limit.
        let big = (0..<200).map {
            #"{"id":"c\#($0)","name":"\#(String(repeating: "x", count: 200))","idList":"l","pos":\#($0)}"#
        }
        let json = #"{"name":"a","lists":[{"id":"l","name":"L","pos":1}],"cards":[\#(big.joined(separator: ","))]}"#
        #expect(refusal(json, maxBoardBytes: 100_000) == nil)
        guard case .tooLarge(let message) = refusal(json, maxBoardBytes: 30_000) else {
            Issue.record("not refused")
            return
        }
        #expect(message.contains("the server's limit is 30000"))
    }

    @Test(arguments: stores) func anImportIsStoredInOneWriteWithItsComments(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let made = try Self.made()
            let id = made.archive.id
            var store = try space.open()
            try store.write([.restore(made.archive)])
            store.close()
            store = try space.open()
            defer { store.close() }
            let loaded = try #require(try store.load(id, recentLimit: 10))
            #expect(loaded.seq == 3 && loaded.board == made.archive.current)
            let first = try #require(made.archive.current.items.first { $0.label == "First in To do" })
            guard case .comments(let page, _) = try store.comments(of: id, item: first.id, before: nil, limit: 10)
            else {
                Issue.record("no comments")
                return
            }
            #expect(page.map(\.text) == ["Done, see the PR", "Can you look?\nThanks"])
            #expect(page.map(\.member.rawValue) == ["trello-bo_k", "trello-annlee"])
            // The export is the archive imported, and it imports back equal.
            let archive = try #require(try store.archive(of: id))
            #expect(archive == made.archive)
            #expect(try BoardArchive(json: archive.encoded()) == made.archive)
        }
    }
}
