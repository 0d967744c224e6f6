import BoardCore
import BoardServer
import TestSupport
import Testing

/// The send bound (`--max-pending-bytes`) holds for every frame, and a resume never outgrows the board.
@Suite struct SendBoundTests {
    /// A `POST /api/boards` body: one zone `grid` of `items` items labelled `label` and a number.
    func boardBody(id: String, items: Int, label: String) -> String {
        let list = (0..<items).map { ##"{"label":"\##(label) \##($0)","color":"#123456"}"## }
        return #"{"id":"\#(id)","title":"\#(id)","columns":8,"zones":[{"id":"grid","items":["#
            + list.joined(separator: ",") + "]}]}"
    }

    @Test func frameOverTheBoundClosesWith1008EvenOnAnEmptyQueue() async throws {
        try await withTestServer({ $0.maxPendingBytes = 4096 }) { server in
            // About 8 KB of snapshot: its welcome alone is over the 4096-byte bound.
            let body = boardBody(id: "wide", items: 100, label: String(repeating: "w", count: 40))
            #expect(try server.http("POST", "/api/boards", body: body).status == 201)
            let (other, _) = try await server.join("demo", as: "Other")
            let big = try await server.connect()
            big.send(#"{"type":"hello","board":"wide","name":"Big"}"#)
            #expect(try await big.connection.waitForClose().code == 1008)
            try await other.expectNothingPending()
            // Nor is its snapshot held for an HTTP client: 503 `too_large` (the answer to the POST
            // that made it was sent whole: the write had taken effect).
            let snapshot = try server.http("GET", "/api/boards/wide")
            #expect(snapshot.status == 503 && snapshot.body.contains("too_large"))
            #expect(try server.http("GET", "/api/boards/demo").status == 200)
        }
    }

    @Test func resumeLargerThanTheBoardGetsTheBoardInstead() async throws {
        try await withTestServer { server in
            let (ada, _) = try await server.join("long", as: "Ada")
            // 40 ops with 128-character ids: about 7 KB of ops against a 1.3 KB board.
            for i in 0..<40 {
                let id = String(repeating: "o", count: 124) + String(1000 + i)
                ada.send(#"{"type":"toggle","op":"\#(id)","base":\#(i),"item":"t1","on":\#(i % 2 == 0)}"#)
                #expect(try await ada.expect("toggle")["seq"]?.intValue == i + 1)
            }
            let (_, fromStart) = try await server.join("long", as: "Bo", since: 0)
            #expect(fromStart["seq"]?.intValue == 40)
            #expect(fromStart["ops"] == nil)
            let snapshot = try JSON.parse(server.http("GET", "/api/boards/long").body)
            #expect(fromStart["board"] == snapshot["board"])
            // A short resume is still a resume.
            let (_, recent) = try await server.join("long", as: "Cy", since: 38)
            #expect(recent["board"] == nil)
            #expect(recent["ops"]?.arrayValue?.map { $0["seq"]?.intValue } == [39, 40])
        }
    }

    @Test func welcomeLargerThanOneWriteArrivesWhole() async throws {
        try await withTestServer { server in
            // About 60 KB of snapshot: several writes of at most 16 KiB each.
            let body = boardBody(id: "big", items: 1000, label: String(repeating: "b", count: 30))
            #expect(try server.http("POST", "/api/boards", body: body).status == 201)
            let (client, welcome) = try await server.join("big", as: "Ada")
            let snapshot = try JSON.parse(server.http("GET", "/api/boards/big").body)
            #expect(welcome["board"] == snapshot["board"])
            #expect(welcome["board"]?["items"]?.arrayValue?.count == 1000)
            try await client.expectNothingPending()
        }
    }

    /// The largest welcome the limits allow: the largest board (1000 items, 16 zones, every id,
    /// label, title and color at its limit, in characters that JSON escapes to 6 bytes), a
    /// thousand users with the longest names, every item held.
    @Test func largestLegitimateWelcomeFitsUnderTheDefaultBound() throws {
        func id(_ prefix: String, _ n: Int) -> String {
            prefix + String(repeating: "0", count: 64 - prefix.count - String(n).count) + String(n)
        }
        let escaped = String(repeating: "<", count: 200)  // `<` is written as \u003c: 6 bytes.
        let items = (0..<1000).map {
            Item(id: ItemID(id("i", $0))!, label: escaped, color: String(repeating: "a", count: 64))
        }
        let zones = (0..<16).map { z in
            Zone(id: ZoneID(id("z", z))!, items: stride(from: z, to: 1000, by: 16).map { items[$0].id })
        }
        let board = Board(id: BoardID(id("b", 0))!, title: escaped, columns: 64, zones: zones, items: items)
        #expect(Board.validate(title: board.title, columns: 64, zones: zones, items: items) == nil)
        let users = (0..<1000).map {
            User(
                id: UserID(number: UInt64(1_000_000 + $0)),
                name: String(repeating: "<", count: Text.maximumNameScalars), color: "#1976d2")
        }
        let welcome = ServerMessage.Welcome(
            you: users[0].id, seq: 1_000_000_000, drags: zip(items, users).map { ($0.id, $1.id) }, users: users,
            state: .board(board))
        let frameBytes = ServerMessage.welcome(welcome).encoded().count + 10  // the largest frame header
        let bound = ServerConfig().maxPendingBytes
        #expect(frameBytes <= bound, "\(frameBytes) bytes against \(bound)")
        #expect(frameBytes > 1_500_000, "the board is not as large as it should be: \(frameBytes) bytes")
    }
}
