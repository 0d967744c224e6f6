import BoardCore
import Testing

@testable import BoardHub

/// Boards of 10,000 cards (issue 36): a full board is served whole, refuses one card more, and
/// still takes moves and a moveMany of 200.
@Suite struct BigBoardHubTests {
    /// A board at the limits: `BoardLimits.items` cards over `BoardLimits.zones` zones.
    static func fullBoard() -> Board {
        let items = (1...BoardLimits.items).map { Item(id: ItemID("c\($0)")!, label: "Card \($0)", color: "#ffe08a") }
        let per = BoardLimits.items / BoardLimits.zones + 1
        let zones = (0..<BoardLimits.zones).map { z in
            Zone(
                id: ZoneID("z\(z)")!,
                items: Array(items[min(z * per, items.count)..<min((z + 1) * per, items.count)].map(\.id)),
                title: "Z\(z)", layout: .list)
        }
        return Board(id: board("big"), title: "Big", columns: 4, zones: zones, items: items)
    }

    @Test func aFullBoardIsServedWholeRefusesOneMoreCardAndTakesMovesAndAMoveManyOf200() {
        let full = Self.fullBoard()
        #expect(Board.validate(title: full.title, columns: 4, zones: full.zones, items: full.items) == nil)
        let h = HubHarness()
        let c = h.open(1)
        guard let (read, _) = h.read(in: h.hello(c, board: "big")) else { return }
        let welcome = messages(to: c, in: h.encoding(h.on(.answered(read, .room(Room(board: full, seq: 0))))))
        guard case .welcome(let w)? = welcome.first, case .board(let got) = w.state else {
            Issue.record("no welcome with a board: \(types(welcome))")
            return
        }
        #expect(got.items.count == BoardLimits.items && got.zones.count == BoardLimits.zones)

        let add = h.send(
            c, #"{"type":"add","op":"a1","base":0,"zone":"z0","before":null,"item":{"label":"one more","color":"red"}}"#
        )
        #expect(types(messages(to: c, in: add)) == ["reject:board_full"])

        h.send(c, #"{"type":"move","op":"m1","base":0,"item":"c1","zone":"z63","before":null}"#)
        #expect(types(messages(to: c, in: h.makeDurable())) == ["move"])
        let ids = (2...201).map { #""c\#($0)""# }.joined(separator: ",")
        h.send(c, #"{"type":"moveMany","op":"m2","base":1,"items":[\#(ids)],"zone":"z40","before":null}"#)
        #expect(types(messages(to: c, in: h.makeDurable())) == ["moveMany"])
    }

    /// The board part of a welcome is encoded once per seq and shared by every joiner at that
    /// seq; each welcome's bytes are still exactly those of a welcome encoded whole.
    @Test func joinersAtOneSeqShareTheEncodedBoardAndGetTheSameBytesAsAWholeEncoding() throws {
        let full = Self.fullBoard()
        let h = HubHarness()
        let first = h.open(1)
        guard let (read, _) = h.read(in: h.hello(first, board: "big", name: "First")) else { return }
        let answered = h.on(.answered(read, .room(Room(board: full, seq: 0))))
        func welcome(to id: ConnectionID, in actions: [Hub.Action]) throws -> ServerMessage.Welcome {
            guard case .welcome(let w)? = messages(to: id, in: actions).first(where: { types([$0]) == ["welcome"] })
            else {
                throw WelcomeMissing()
            }
            return w
        }
        let welcomes =
            try [welcome(to: first, in: answered)]
            + (2...3).map { n in
                let c = h.open(UInt64(n))
                return try welcome(to: c, in: h.hello(c, board: "big", name: "J\(n)"))
            }
        let shared = try #require(welcomes[0].boardJSON)
        #expect(welcomes.allSatisfy { $0.boardJSON === shared && $0.seq == 0 })
        #expect(Set(welcomes.map(\.you)).count == 3 && welcomes.map(\.users.count) == [1, 2, 3])
        for w in welcomes {
            var whole = w
            whole.boardJSON = nil
            #expect(ServerMessage.welcome(w).encoded() == ServerMessage.welcome(whole).encoded())
        }
        #expect(shared.bytes == full.encoded())

        // The next op drops it: a joiner after the move gets the board as of the move.
        h.send(first, #"{"type":"move","op":"m1","base":0,"item":"c1","zone":"z63","before":null}"#)
        h.makeDurable()
        let late = h.open(4)
        let after = try welcome(to: late, in: h.hello(late, board: "big", name: "Late"))
        let text = try #require(after.boardJSON)
        #expect(text !== shared && after.seq == 1)
        guard case .board(let board) = after.state else { throw WelcomeMissing() }
        #expect(text.bytes == board.encoded() && board.zones.last?.items.last == ItemID("c1"))
    }
}

private struct WelcomeMissing: Error {}
