import BoardCore
import BoardReads
import BoardStore
import Foundation
import Testing

@testable import BoardHub

/// The Trello import and the exports in the hub (issue 37): the export is parsed on the reader
/// thread (a read), the board waits for the store to say its id is free as a create does, is
/// persisted as one `restore` write and answered 201 only once durable; the exports are reads.
@Suite struct TransferTests {
    let x1 = ExchangeID(1)
    let x2 = ExchangeID(2)

    static func fixture() throws -> [UInt8] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        return [UInt8](try Data(contentsOf: root.appendingPathComponent("fixtures/trello-export.json")))
    }

    func post(_ h: HubHarness, _ body: [UInt8], id: String = "launch", exchange: ExchangeID) -> [Hub.Action] {
        h.on(
            .request(
                exchange,
                HTTPRequest(
                    method: .post, path: "/api/boards/import/trello", query: ["id": id], body: body,
                    contentType: "application/json")))
    }

    @Test func anImportIsParsedOffTheServiceThreadAndAnswered201OnceDurable() throws {
        let h = HubHarness()
        let body = try Self.fixture()
        guard let (parse, job) = h.read(in: post(h, body, exchange: x1)) else { return }
        guard case .parseTrello(let id, let bytes, _, _) = job else {
            Issue.record("not a parse: \(job)")
            return
        }
        #expect(id == board("launch") && bytes == body)
        // The parse's answer, as the reader thread gives it: then the store is asked whether the id is free.
        guard let (exists, question) = h.read(in: h.on(.answered(parse, job.run(on: MemoryStore())))) else { return }
        #expect(question == .exists(board("launch"), .any))
        let made = h.on(.answered(exists, .exists(false)))
        #expect(responses(in: made).isEmpty, "not before it is durable")
        let writes = made.compactMap { action -> BoardArchive? in
            if case .persist(.restore(let archive), _?) = action { archive } else { nil }
        }
        #expect(writes.count == 1 && writes.first?.seq == 3 && writes.first?.comments.count == 3)
        let answer = responses(in: h.makeDurable())
        #expect(answer.map(\.1.status) == [201])
        let json = try JSON.parse(answer.first?.1.body ?? [])
        #expect(json["seq"]?.intValue == 3)
        #expect(json["report"]?["imported"]?["comments"]?.intValue == 3)
        #expect(json["board"]?["title"]?.stringValue == "Launch")
        // Made: a second import of the id is parsed, then refused by what the store says.
        guard let (again, againJob) = h.read(in: post(h, body, exchange: x2)) else { return }
        guard let (stored, _) = h.read(in: h.on(.answered(again, againJob.run(on: MemoryStore())))) else { return }
        #expect(responses(in: h.on(.answered(stored, .exists(true)))).map(\.1.status) == [409])
    }

    @Test func anIdTheStoreHasIs409AndWhatIsNotTrelloIs400And413OverALimit() throws {
        let h = HubHarness()
        guard let (parse, job) = h.read(in: post(h, try Self.fixture(), exchange: x1)) else { return }
        guard let (exists, _) = h.read(in: h.on(.answered(parse, job.run(on: MemoryStore())))) else { return }
        #expect(responses(in: h.on(.answered(exists, .exists(true)))).map(\.1.status) == [409])
        #expect(!h.log.contains { if case .persist = $0 { true } else { false } }, "nothing was made")

        guard let (bad, badJob) = h.read(in: post(h, Array(#"{"name":"x"}"#.utf8), id: "other", exchange: x2))
        else { return }
        let refused = responses(in: h.on(.answered(bad, badJob.run(on: MemoryStore()))))
        #expect(refused.map(\.1.status) == [400])
        #expect(refused.first?.1.text.contains(#"\"lists\" must be an array"#) == true)

        let lists = (0...BoardLimits.zones).map { #"{"id":"l\#($0)","name":"L","pos":\#($0)}"# }.joined(separator: ",")
        let big = Array(#"{"name":"a","lists":[\#(lists)],"cards":[]}"#.utf8)
        guard let (over, overJob) = h.read(in: post(h, big, id: "big", exchange: ExchangeID(3))) else { return }
        let tooLarge = responses(in: h.on(.answered(over, overJob.run(on: MemoryStore()))))
        #expect(tooLarge.map(\.1.status) == [413])
        #expect(tooLarge.first?.1.text.contains("\(BoardLimits.zones) zones") == true)
    }

    @Test func theImportNeedsAnIdAndPost() {
        let h = HubHarness()
        let none = h.on(
            .request(
                x1,
                HTTPRequest(
                    method: .post, path: "/api/boards/import/trello", body: [0x7B, 0x7D],
                    contentType: "application/json")))
        #expect(responses(in: none).map(\.1.status) == [400])
        let get = h.on(.request(x2, HTTPRequest(method: .get, path: "/api/boards/import/trello", query: ["id": "a"])))
        #expect(responses(in: get).map(\.1.status) == [405])
    }

    @Test func exportsAreReadsAnsweredAsEncoded() throws {
        let h = HubHarness()
        let store = MemoryStore()
        let made = try TrelloImport(json: try Self.fixture(), id: board("launch"), maxBoardBytes: 1 << 22)
        try store.restore(made.archive, replace: false)
        for (path, type) in [
            ("/api/boards/launch/export", "application/json"),
            ("/api/boards/launch/export.csv", "text/csv; charset=utf-8"),
        ] {
            guard let (read, job) = h.read(in: h.on(.request(x1, HTTPRequest(method: .get, path: path)))) else {
                return
            }
            let answer = responses(in: h.on(.answered(read, job.run(on: store))))
            #expect(answer.map(\.1.status) == [200] && answer.first?.1.contentType == type, "\(path)")
        }
        guard
            let (read, job) = h.read(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/none/export"))))
        else { return }
        #expect(responses(in: h.on(.answered(read, job.run(on: store)))).map(\.1.status) == [404])
    }
}
