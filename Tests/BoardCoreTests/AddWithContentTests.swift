import BoardCore
import Testing

/// An `add` request may carry a card's content (the web client's undo of a `remove` brings the
/// card back whole): read with the bounds of the ops that change it, its checks given fresh ids
/// by the server, its tags under the rules of `tag`.
@Suite struct AddWithContentTests {
    func parse(_ text: String) -> Result<ClientMessage, ProtocolError> { ClientMessage.parse(Array(text.utf8)) }

    func problem(_ text: String) -> String? {
        if case .failure(let error) = parse(text) { return error.message }
        return nil
    }

    /// What a removed card held, as the undo of its remove sends it back.
    static let whole = Item(
        id: .unassigned, label: "Fix the login page", color: "#123456", detail: "auth",
        description: "# Why\n\n- it breaks",
        tags: [tagID("g1")], assignees: [person("ann")], due: "2026-12-24",
        checklist: [
            Check(id: .unassigned, text: "Write the tests", done: true), Check(id: .unassigned, text: "Ship it"),
        ])

    @Test func aRequestCarriesContentAndWritesItBack() throws {
        let text = ##"""
            {"type":"add","op":"o","base":2,"zone":"tray","before":null,"item":{"label":"Fix the login page",\##
            "color":"#123456","detail":"auth","description":"# Why\n\n- it breaks","tags":["g1"],\##
            "assignees":[{"member":"ann","name":"Ann"}],"due":"2026-12-24",\##
            "checklist":[{"text":"Write the tests","done":true},{"text":"Ship it"}]}}
            """##
        let want = ClientMessage.op(
            OpRequest(opID: opID("o"), base: 2, op: .add(zone: zone("tray"), before: nil, item: Self.whole)))
        #expect(parse(text) == .success(want))
        // The client's encoding (no check ids) reads back as the same request.
        #expect(ClientMessage.parse(want.encoded()) == .success(want))
    }

    @Test func badContentIsABadMessageNamingTheMember() {
        func add(_ content: String) -> String {
            #"{"type":"add","op":"o","base":2,"zone":"tray","before":null,"item":{"label":"A",\#(content)}}"#
        }
        #expect(problem(add(#""description":"a\u0007b""#))?.contains("\"item.description\"") == true)
        #expect(problem(add(#""due":"2026-02-30""#))?.contains("\"item.due\"") == true)
        #expect(problem(add(#""tags":["g1","g1"]"#))?.contains("\"item.tags\"") == true)
        #expect(problem(add(#""tags":["a b"]"#))?.contains("\"item.tags[0]\"") == true)
        #expect(problem(add(#""assignees":[{"member":"ann","name":""}]"#))?.contains("\"item.assignees[0]") == true)
        #expect(problem(add(#""checklist":[{"text":""}]"#))?.contains("\"item.checklist[0].text\"") == true)
        #expect(
            problem(add(#""checklist":[{"text":"a","done":"yes"}]"#))?.contains("\"item.checklist[0].done\"") == true)
        #expect(problem(add(#""checklist":["a"]"#))?.contains("\"item.checklist[0]\"") == true)
        let long = String(repeating: "x", count: 201)
        #expect(problem(add(#""checklist":[{"text":"\#(long)"}]"#)) != nil)
        #expect(problem(add(#""checklist":[{"text":"a","done":false}]"#)) == nil)
    }

    @Test func theCardComesBackWholeWithFreshCheckIDs() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        var n = 0
        func submit(_ op: Op) -> Sequencer.Outcome {
            n += 1
            return s.submit(OpRequest(opID: opID("o\(n)"), base: s.seq, op: op), by: alice, time: wall) { _ in nil }
        }
        for op in [newTag("Bug"), newCheck("Write the tests"), newCheck("Ship it")] {
            guard case .committed = submit(op) else { Issue.record("\(op)"); return }
        }
        let old = s.board.item(item("t1"))!.checklist.map(\.id)
        guard case .committed = submit(.remove(item: item("t1"))) else { Issue.record("remove"); return }
        guard case .committed(let c) = submit(.add(zone: zone("tray"), before: nil, item: Self.whole)),
            case .add(_, _, let added) = c.op
        else {
            Issue.record("add")
            return
        }
        // The content as sent; the checks under ids the board never had.
        #expect(added.checklist.map(\.text) == ["Write the tests", "Ship it"])
        #expect(added.checklist.map(\.done) == [true, false])
        #expect(added.checklist.map(\.id) == [checkID("k5"), checkID("k5-2")])
        #expect(Set(added.checklist.map(\.id)).isDisjoint(with: old))
        let card = s.board.item(added.id)!
        #expect(card.description == Self.whole.description && card.due == "2026-12-24" && card.detail == "auth")
        #expect(card.tags == [tagID("g1")] && card.assignees == [person("ann")])
        #expect(card.checklist == added.checklist)
        // The committed op and the board keep it through JSON (a store's row, an archive).
        var w = JSONWriter()
        c.encode(into: &w, withTime: true)
        #expect(try CommittedOp(json: JSON.parse(w.bytes)) == c)
        #expect(try Board(json: JSON.parse(s.board.encoded())) == s.board)
        // Its checks are the board's: they can be ticked.
        let tick = Op.editCheck(item: added.id, check: checkID("k5-2"), changes: CheckEdit(done: true))
        guard case .committed = submit(tick) else { Issue.record("tick"); return }
    }
}

/// An `addTag` may name cards to put the new tag on at once: the web client's undo of a
/// `removeTag` makes the tag again on the cards that had it, in one op.
@Suite struct AddTagOnCardsTests {
    @Test func aRequestNamesTheCardsOnce() {
        let text = ##"{"type":"addTag","op":"o","base":2,"tag":{"name":"Bug","color":"#d32f2f"},"items":["t1","t2"]}"##
        let want = ClientMessage.op(
            OpRequest(
                opID: opID("o"), base: 2,
                op: .addTag(tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t1"), item("t2")])))
        #expect(ClientMessage.parse(Array(text.utf8)) == .success(want))
        #expect(ClientMessage.parse(want.encoded()) == .success(want))
        let twice = ##"{"type":"addTag","op":"o","base":2,"tag":{"name":"Bug","color":"red"},"items":["t1","t1"]}"##
        guard case .failure(let error) = ClientMessage.parse(Array(twice.utf8)) else {
            Issue.record("an item named twice was read")
            return
        }
        #expect(error.message.contains("\"items\""))
    }

    @Test func theTagComesBackOnTheCardsThatHadIt() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        var n = 0
        func submit(_ op: Op) -> Sequencer.Outcome {
            n += 1
            return s.submit(OpRequest(opID: opID("o\(n)"), base: s.seq, op: op), by: alice, time: wall) { _ in nil }
        }
        let steps: [Op] = [
            newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: []),
            .tag(item: item("t3"), add: [tagID("g1")], remove: []), .removeTag(tag: tagID("g1")),
        ]
        for op in steps {
            guard case .committed = submit(op) else { Issue.record("\(op)"); return }
        }
        let again = Op.addTag(
            tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t1"), item("t3")])
        guard case .committed(let c) = submit(again) else { Issue.record("addTag"); return }
        #expect(s.board.tags.map(\.id) == [tagID("g5")])
        #expect(s.board.item(item("t1"))!.tags == [tagID("g5")] && s.board.item(item("t3"))!.tags == [tagID("g5")])
        #expect(s.board.item(item("t2"))!.tags.isEmpty)
        var w = JSONWriter()
        c.encode(into: &w, withTime: true)
        #expect(try CommittedOp(json: JSON.parse(w.bytes)) == c)
        #expect(String(decoding: w.bytes, as: UTF8.self).contains(#""items":["t1","t3"]"#))
    }
}

extension SequencerTests {
    /// The conflict rows of an `add` that carries content (docs/conflicts.md): its tags follow
    /// the rules of `tag`, its counts the bounds of one card.
    static let addWithContentCases: [Case] = [
        Case(
            name: "addTag carrying cards commits",
            history: [
                newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: []), .removeTag(tag: tagID("g1")),
            ],
            base: 3, op: .addTag(tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t1")])),
        Case(
            name: "addTag naming a card removed after base", history: [.remove(item: item("t2"))], base: 0,
            op: .addTag(tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t2")]),
            expected: .conflict),
        Case(
            name: "addTag naming a card with 20 tags",
            history: (1...20).map { newTag("T\($0)") } + [
                .tag(item: item("t1"), add: (1...20).map { tagID("g\($0)") }, remove: [])
            ], base: 21, op: .addTag(tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t1")]),
            expected: .boardFull),
        Case(
            name: "remove of a card after a concurrent addTag that named it",
            history: [.addTag(tag: Tag(id: .unassigned, name: "Bug", color: "#d32f2f"), items: [item("t1")])], base: 0,
            op: .remove(item: item("t1")), expected: .conflict),
        Case(
            name: "add carrying content commits", history: [newTag("Bug")], base: 1,
            op: .add(zone: zone("tray"), before: nil, item: AddWithContentTests.whole)),
        Case(
            name: "add carrying an unknown tag", base: 0,
            op: .add(zone: zone("tray"), before: nil, item: AddWithContentTests.whole), expected: .unknownTag),
        Case(
            name: "add carrying a tag removed after base", history: [newTag("Bug"), .removeTag(tag: tagID("g1"))],
            base: 1, op: .add(zone: zone("tray"), before: nil, item: AddWithContentTests.whole), expected: .conflict),
        Case(
            name: "add carrying over 20 tags", history: (1...21).map { newTag("T\($0)") }, base: 21,
            op: .add(
                zone: zone("tray"), before: nil,
                item: Item(id: .unassigned, label: "A", color: "#123456", tags: (1...21).map { tagID("g\($0)") })),
            expected: .boardFull),
        Case(
            name: "add carrying over 100 checks", base: 0,
            op: .add(
                zone: zone("tray"), before: nil,
                item: Item(
                    id: .unassigned, label: "A", color: "#123456",
                    checklist: (1...101).map { Check(id: .unassigned, text: "C\($0)") })),
            expected: .boardFull),
    ]
}
