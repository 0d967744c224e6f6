import BoardCore
import Testing

/// Shorthands for the bulk ops.
func items(_ ids: String...) -> [ItemID] { ids.map(item) }
func moveMany(_ ids: [ItemID], to z: String = "tray", before: String? = nil) -> Op {
    .moveMany(items: ids, zone: zone(z), before: before.map(item))
}
func unarchive(_ ids: [ItemID], to z: String = "grid", before: String? = nil) -> Op {
    .unarchive(items: ids, zone: zone(z), before: before.map(item))
}

extension SequencerTests {
    /// The conflict rows of moveMany, archive and unarchive (docs/conflicts.md, "Many cards at
    /// once"), on the colors board (t1–t12 in `grid`, `tray` empty); history is bob's.
    static let bulkCases: [Case] = [
        // moveMany
        Case(name: "moveMany commits", base: 0, op: moveMany(items("t3", "t1", "t2"))),
        Case(
            name: "moveMany before an anchor commits", base: 0,
            op: moveMany(items("t3", "t1"), to: "grid", before: "t9")),
        Case(
            name: "moveMany with an item held by another", base: 0, op: moveMany(items("t1", "t2")), heldByBob: ["t2"],
            expected: .held),
        Case(
            name: "moveMany with its anchor held by another", base: 0,
            op: moveMany(items("t1", "t2"), to: "grid", before: "t9"), heldByBob: ["t9"], expected: .held),
        Case(
            name: "moveMany with one item moved after base",
            history: [.move(item: item("t5"), zone: zone("tray"), before: nil)],
            base: 0, op: moveMany(items("t1", "t5")), expected: .conflict),
        Case(
            name: "moveMany with its anchor moved after base", history: [.swap(a: item("t9"), b: item("t10"))], base: 0,
            op: moveMany(items("t1", "t2"), to: "grid", before: "t9"), expected: .conflict),
        Case(
            name: "moveMany after a concurrent edit of an item commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))], base: 0,
            op: moveMany(items("t1", "t2"))),
        Case(
            name: "moveMany after a move of other items commits",
            history: [.move(item: item("t7"), zone: zone("tray"), before: nil)], base: 0,
            op: moveMany(items("t1", "t2"))),
        Case(name: "moveMany with an unknown item", base: 0, op: moveMany(items("t1", "nope")), expected: .unknownItem),
        Case(
            name: "moveMany with an item removed after base", history: [.remove(item: item("t2"))], base: 0,
            op: moveMany(items("t1", "t2")), expected: .conflict),
        Case(
            name: "moveMany before one of its items", base: 0,
            op: moveMany(items("t1", "t2"), to: "grid", before: "t2"),
            expected: .invalid),
        Case(
            name: "moveMany before an anchor in another zone", base: 0,
            op: moveMany(items("t1"), to: "tray", before: "t5"),
            expected: .invalid),
        Case(
            name: "moveMany of an archived item", history: [.archive(items: items("t2"))], base: 1,
            op: moveMany(items("t1", "t2")), expected: .archived),
        // archive
        Case(name: "archive commits", base: 0, op: .archive(items: items("t1", "t2"))),
        Case(
            name: "archive of an item held by another", base: 0, op: .archive(items: items("t1", "t2")),
            heldByBob: ["t1"], expected: .held),
        Case(
            name: "archive of an item moved after base",
            history: [.move(item: item("t2"), zone: zone("tray"), before: nil)],
            base: 0, op: .archive(items: items("t1", "t2")), expected: .conflict),
        Case(
            name: "archive after a concurrent archive of the same item", history: [.archive(items: items("t2"))],
            base: 0,
            op: .archive(items: items("t1", "t2")), expected: .conflict),
        Case(
            name: "archive of an item archived at or before base", history: [.archive(items: items("t2"))], base: 1,
            op: .archive(items: items("t2")), expected: .archived),
        Case(
            name: "archive after a concurrent tag of the item commits",
            history: [newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: [])], base: 1,
            op: .archive(items: items("t1"))),
        // unarchive
        Case(
            name: "unarchive commits", history: [.archive(items: items("t1", "t2"))], base: 1,
            op: unarchive(items("t2", "t1"), to: "tray")),
        Case(
            name: "unarchive before an anchor commits", history: [.archive(items: items("t1", "t2"))], base: 1,
            op: unarchive(items("t1"), before: "t5")),
        Case(name: "unarchive of an item not archived", base: 0, op: unarchive(items("t1")), expected: .invalid),
        Case(
            name: "unarchive after a concurrent unarchive",
            history: [.archive(items: items("t1")), unarchive(items("t1"))], base: 1, op: unarchive(items("t1")),
            expected: .conflict),
        Case(
            name: "unarchive before an anchor moved after base",
            history: [.archive(items: items("t1")), .swap(a: item("t5"), b: item("t6"))], base: 1,
            op: unarchive(items("t1"), before: "t5"), expected: .conflict),
        // the single-item ops on archived items
        Case(
            name: "move of an archived item", history: [.archive(items: items("t1"))], base: 1,
            op: .move(item: item("t1"), zone: zone("tray"), before: nil), expected: .archived),
        Case(
            name: "swap with an archived item", history: [.archive(items: items("t1"))], base: 1,
            op: .swap(a: item("t2"), b: item("t1")), expected: .archived),
        Case(
            name: "move before an archived anchor", history: [.archive(items: items("t1"))], base: 1,
            op: .move(item: item("t2"), zone: zone("grid"), before: item("t1")), expected: .invalid),
        Case(
            name: "edit of an archived item commits", history: [.archive(items: items("t1"))], base: 1,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Old"))),
        Case(
            name: "tag of an archived item commits", history: [newTag("Bug"), .archive(items: items("t1"))], base: 2,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: [])),
        Case(
            name: "remove of an archived item commits", history: [.archive(items: items("t1"))], base: 1,
            op: .remove(item: item("t1"))),
    ]
}

@Suite struct BulkOpTests {
    @Test func moveManyPutsTheItemsInOrderBeforeTheAnchor() {
        var b = Board.defaultTemplate(id: demo)
        b.apply(moveMany(items("t1", "t12", "t6"), to: "grid", before: "t3"))
        #expect(order(b) == ["t2", "t1", "t12", "t6", "t3", "t4", "t5", "t7", "t8", "t9", "t10", "t11"])
        b.apply(moveMany(items("t2", "t3"), to: "tray", before: nil))
        #expect(order(b, "tray") == ["t2", "t3"])
    }

    @Test func archivedItemsKeepTheirContentAndComeBack() throws {
        var b = Board.defaultTemplate(id: demo)
        b.apply(.edit(item: item("t2"), changes: ItemEdit(description: "kept")))
        b.apply(.archive(items: items("t2", "t1")))
        #expect(b.archived == items("t2", "t1"))
        #expect(b.item(item("t2"))?.description == "kept")
        #expect(b.location(of: item("t2")) == nil)
        #expect(b.items.count == 12)
        // The snapshot lists them and reads back; one without them keeps its JSON.
        let json = String(decoding: b.encoded(), as: UTF8.self)
        #expect(json.hasSuffix(#","archived":["t2","t1"],"template":"colors"}"#))
        #expect(try Board(json: JSON.parse(b.encoded())) == b)
        #expect(!String(decoding: Board.defaultTemplate(id: demo).encoded(), as: UTF8.self).contains("archived"))
        b.apply(unarchive(items("t1"), to: "grid", before: "t3"))
        #expect(b.archived == items("t2"))
        #expect(order(b).prefix(2) == ["t1", "t3"])
        b.apply(.remove(item: item("t2")))
        #expect(b.archived.isEmpty && b.items.count == 11)
    }

    @Test func aSnapshotWithAnItemBothPlacedAndArchivedIsRefused() throws {
        var b = Board.defaultTemplate(id: demo)
        b.apply(.archive(items: items("t1")))
        let text = String(decoding: b.encoded(), as: UTF8.self).replacingOccurrences(
            of: #""archived":["t1"]"#, with: #""archived":["t1","t2"]"#)
        #expect(throws: JSON.DecodingError.self) { try Board(json: JSON.parse(Array(text.utf8))) }
    }

    @Test func bulkRequestsReadAndWriteBack() throws {
        for text in [
            #"{"type":"moveMany","op":"o","base":0,"items":["t1","t2"],"zone":"tray","before":null}"#,
            #"{"type":"archive","op":"o","base":0,"items":["t1"]}"#,
            #"{"type":"unarchive","op":"o","base":0,"items":["t1"],"zone":"grid","before":"t3"}"#,
        ] {
            let json = try JSON.parse(Array(text.utf8))
            let op = try Op(type: json["type"]?.stringValue ?? "", fields: json, assigned: false)
            #expect(try Op(type: op.kind, fields: JSON.parse(op.encodedFields())) == op)
        }
        let bad = [
            #"{"items":[],"zone":"tray","before":null}"#, #"{"items":["t1","t1"],"zone":"tray","before":null}"#,
            #"{"items":["t1"],"zone":"tray"}"#, #"{"items":"t1","zone":"tray","before":null}"#,
            "{\"items\":[" + (0...200).map { "\"c\($0)\"" }.joined(separator: ",")
                + "],\"zone\":\"tray\",\"before\":null}",
        ]
        for text in bad {
            #expect(throws: JSON.DecodingError.self) { try Op(type: "moveMany", fields: JSON.parse(Array(text.utf8))) }
        }
    }
}
