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
}
