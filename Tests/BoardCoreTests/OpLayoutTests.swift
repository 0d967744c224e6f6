import Testing

@testable import BoardCore

/// An op is copied several times between the socket and every reader (the room's effects, the
/// hub's actions, the persist queue, the in-memory history): the common ops must stay small values.
/// The cases with a whole item, zone, edit or board are boxed (`indirect`), so an `Op` is no
/// larger than a `move`'s fields and its tag.
@Suite struct OpLayoutTests {
    @Test func anOpIsNoLargerThanAMovesFields() {
        let move = MemoryLayout<(ItemID, ZoneID, ItemID?)>.size
        #expect(MemoryLayout<Op>.size <= move + 1, "Op is \(MemoryLayout<Op>.size) B, a move's fields \(move) B")
    }

    @Test func boxedOpsKeepTheirPayloadsAndCompareByValue() throws {
        let item = Item(id: ItemID("c1")!, label: "Write the docs", color: "#ff8800", on: false, detail: "by Friday")
        let add = Op.add(zone: ZoneID("todo")!, before: nil, item: item)
        var copy = add
        #expect(copy == add)
        guard case .add(let zone, _, var changed) = copy else {
            Issue.record("not an add: \(copy)")
            return
        }
        changed.label = "Write the tests"
        copy = .add(zone: zone, before: nil, item: changed)
        #expect(copy != add)
        guard case .add(_, _, let original) = add else {
            Issue.record("not an add: \(add)")
            return
        }
        #expect(original.label == "Write the docs")
    }

    /// `Op.Kind.index` reads the case's stored byte: it must be the kind's place in `allCases`
    /// (tables indexed by it, such as the metrics' labels, rely on it).
    @Test func anOpKindsIndexIsItsPlaceInAllCases() {
        #expect(MemoryLayout<Op.Kind>.size == 1)
        for (place, kind) in Op.Kind.allCases.enumerated() {
            #expect(kind.index == place, "\(kind) has index \(kind.index), place \(place)")
        }
    }
}
