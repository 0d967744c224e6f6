import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Issue 34 through the hub: comment ops are durable before they are visible, only the author
/// edits, the store keeps the texts and `GET …/items/{item}/comments` pages them.
@Suite struct CommentsHubTests {
    @Test func commentsAreDurableBeforeVisibleAuthorOnlyAndPagedFromTheStore() throws {
        let h = HubHarness()
        let store = MemoryStore()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        /// Sends `text` as `who`, makes its writes durable in `store`, and returns what `who` heard.
        func step(_ who: ConnectionID, _ text: String) throws -> [ServerMessage] {
            let sent = h.send(who, text)
            for action in sent {
                if case .persist(let write, _) = action { try store.write([write]) }
            }
            let durable = h.makeDurable()
            return messages(to: who, in: sent) + messages(to: who, in: durable)
        }
        let made = try step(
            ada,
            #"{"type":"comment","op":"a1","base":0,"item":"t1","text":"Ready? @Bo","mentions":[{"member":"bo","name":"Bo"}]}"#
        )
        guard case .committed(let op)? = made.first, case .comment(let item, let comment) = op.op else {
            Issue.record("\(types(made))")
            return
        }
        #expect(item == ItemID("t1") && comment.id == CommentID("n1") && comment.name == "Ada")
        #expect(comment.at == h.wall.milliseconds && comment.mentions.map(\.member) == [MemberID("bo")!])
        // Bo may not edit Ada's comment; Ada may.
        let refused = try step(
            bo, #"{"type":"editComment","op":"b1","base":1,"item":"t1","comment":"n1","text":"Mine"}"#)
        #expect(types(refused) == ["reject:forbidden"])
        let edited = try step(
            ada, #"{"type":"editComment","op":"a2","base":1,"item":"t1","comment":"n1","text":"Ready!"}"#)
        #expect(types(edited) == ["editComment"])
        for n in 3...27 {
            _ = try step(ada, #"{"type":"comment","op":"a\#(n)","base":\#(n - 1),"item":"t1","text":"C\#(n)"}"#)
        }
        let unknown = try step(bo, #"{"type":"removeComment","op":"b2","base":27,"item":"t1","comment":"n2"}"#)
        #expect(types(unknown) == ["reject:unknown_comment"])

        func get(_ target: String, _ query: [String: String]) -> HTTPResponse? {
            let actions = h.on(.request(ExchangeID(7), HTTPRequest(method: .get, path: target, query: query)))
            if let answer = responses(in: actions).first { return answer.1 }
            guard let (id, read) = h.read(in: actions) else { return nil }
            return responses(in: h.on(.answered(id, read.run(on: store)))).first?.1
        }
        let first = try JSON.parse(#require(get("/api/boards/demo/items/t1/comments", [:])).body)
        let ids = first["comments"]?.arrayValue?.compactMap { $0["id"]?.stringValue }
        #expect(ids == (8...27).reversed().map { "n\($0)" })
        #expect(first["more"] == .bool(true) && first["next"]?.stringValue == "n8")
        let last = try JSON.parse(
            #require(get("/api/boards/demo/items/t1/comments", ["before": "n8", "limit": "100"])).body)
        let older = last["comments"]?.arrayValue ?? []
        #expect(older.compactMap { $0["id"]?.stringValue } == (3...7).reversed().map { "n\($0)" } + ["n1"])
        #expect(older.last?["text"]?.stringValue == "Ready!" && older.last?["edited"]?.intValue != nil)
        #expect(last["more"] == .bool(false) && last["next"] == .null)
        #expect(get("/api/boards/demo/items/t1/comments", ["limit": "101"])?.status == 400)
        #expect(get("/api/boards/demo/items/t1/comments", ["before": "12"])?.status == 400)
        #expect(get("/api/boards/demo/items/no%20id/comments", [:])?.status == 404)
        #expect(get("/api/boards/nope/items/t1/comments", [:])?.status == 404)
        // The board's snapshot carries only the count.
        let snapshot = try JSON.parse(#require(h.hub.boards[board("demo")]).room.published.encoded())
        #expect(snapshot["items"]?.arrayValue?.first { $0["id"]?.stringValue == "t1" }?["comments"]?.intValue == 26)
    }
}
