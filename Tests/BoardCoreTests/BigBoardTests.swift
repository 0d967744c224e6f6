import BoardCore
import Testing

/// The bounds of a board (issue 36): 10,000 items and 64 zones, in a definition and op by op,
/// and the size of a snapshot kept right on a board of that many.
@Suite struct BigBoardTests {
    static func items(_ n: Int) -> [Item] {
        (1...n).map { Item(id: ItemID("c\($0)")!, label: "Card \($0)", color: "#ffe08a") }
    }

    @Test func aDefinitionHoldsUpTo10000ItemsAnd64Zones() {
        #expect(BoardLimits.items == 10_000 && BoardLimits.zones == 64)
        let many = Self.items(BoardLimits.items)
        let zones = (0..<BoardLimits.zones).map { Zone(id: ZoneID("z\($0)")!, items: $0 == 0 ? many.map(\.id) : []) }
        #expect(Board.validate(title: "t", columns: 3, zones: zones, items: many) == nil)
        let over = Self.items(BoardLimits.items + 1)
        #expect(
            Board.validate(title: "t", columns: 3, zones: [Zone(id: ZoneID("z")!, items: over.map(\.id))], items: over)
                == "a board has at most 10000 items")
        let tooMany = zones + [Zone(id: ZoneID("extra")!, items: [])]
        #expect(Board.validate(title: "t", columns: 3, zones: tooMany, items: many) == "a board has 1–64 zones")
    }

    @Test func theLastItemIsAddedAndTheNextRefusedAndMovesKeepTheSnapshotSizeRight() {
        let many = Self.items(BoardLimits.items - 1)
        let half = many.count / 2
        let board = Board(
            id: BoardID("b")!, title: "t", columns: 3,
            zones: [
                Zone(id: ZoneID("a")!, items: Array(many[..<half].map(\.id)), layout: .list),
                Zone(id: ZoneID("b")!, items: Array(many[half...].map(\.id)), layout: .list),
            ], items: many)
        var sequencer = Sequencer(board: board)
        func submit(_ op: Op, _ n: Int) -> Sequencer.Outcome {
            sequencer.submit(
                OpRequest(opID: OpID("o\(n)")!, base: sequencer.seq, op: op), by: UserID(number: 1),
                time: UnixTime(milliseconds: 0), holder: { _ in nil })
        }
        let card = Item(id: ItemID("new1")!, label: "last", color: "red")
        guard case .committed = submit(.add(zone: ZoneID("a")!, before: nil, item: card), 1) else {
            Issue.record("the 10,000th item was refused")
            return
        }
        let more = Item(id: ItemID("new2")!, label: "one more", color: "red")
        guard case .rejected(let r) = submit(.add(zone: ZoneID("a")!, before: nil, item: more), 2) else {
            Issue.record("the 10,001st item was not refused")
            return
        }
        #expect(r.reason == .boardFull)
        // A move across, a moveMany of 200: committed, and the kept size is the encoded one.
        _ = sequencer.snapshotBytes()
        let moved = submit(.move(item: ItemID("c1")!, zone: ZoneID("b")!, before: ItemID("c\(half + 10)")!), 3)
        let ids = (2...201).map { ItemID("c\($0)")! }
        let many200 = submit(.moveMany(items: ids, zone: ZoneID("b")!, before: nil), 4)
        guard case .committed = moved, case .committed = many200 else {
            Issue.record("\(moved) \(many200)")
            return
        }
        #expect(sequencer.snapshotBytes() == sequencer.board.encoded().count)
        #expect(sequencer.board.zones[1].items.suffix(200) == ids[...])
    }
}
