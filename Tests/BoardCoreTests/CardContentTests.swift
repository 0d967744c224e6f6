import BoardCore
import Testing

/// Card content on the wire and in snapshots, its bounds, and the board's size bound.
@Suite struct CardContentTests {
    func parse(_ text: String) -> Result<ClientMessage, ProtocolError> { ClientMessage.parse(Array(text.utf8)) }

    func request(_ op: Op, base: Seq = 2) -> Result<ClientMessage, ProtocolError> {
        .success(.op(OpRequest(opID: opID("o"), base: base, op: op)))
    }

    /// The `bad_message` text for `text`, or nil when it parsed.
    func problem(_ text: String) -> String? {
        if case .failure(let error) = parse(text) { return error.message }
        return nil
    }

    @Test func parsesEveryContentOp() {
        #expect(
            parse(##"{"type":"edit","op":"o","base":2,"item":"t1","description":"# A\n\tb","due":"2024-02-29"}"##)
                == request(.edit(item: item("t1"), changes: ItemEdit(description: "# A\n\tb", due: "2024-02-29"))))
        #expect(
            parse(#"{"type":"edit","op":"o","base":2,"item":"t1","description":null,"due":null}"#)
                == request(.edit(item: item("t1"), changes: ItemEdit(description: .some(nil), due: .some(nil)))))
        #expect(
            parse(#"{"type":"tag","op":"o","base":2,"item":"t1","add":["g1"],"remove":["g2"]}"#)
                == request(.tag(item: item("t1"), add: [tagID("g1")], remove: [tagID("g2")])))
        #expect(
            parse(#"{"type":"assign","op":"o","base":2,"item":"t1","add":[{"member":"ann","name":"Ann"}]}"#)
                == request(.assign(item: item("t1"), add: [person("ann")], remove: [])))
        #expect(
            parse(##"{"type":"addTag","op":"o","base":2,"tag":{"name":"Bug","color":"#d32f2f"}}"##)
                == request(newTag("Bug")))
        #expect(
            parse(#"{"type":"editTag","op":"o","base":2,"tag":"g1","color":"red"}"#)
                == request(.editTag(tag: tagID("g1"), changes: TagEdit(color: "red"))))
        #expect(parse(#"{"type":"removeTag","op":"o","base":2,"tag":"g1"}"#) == request(.removeTag(tag: tagID("g1"))))
        #expect(
            parse(#"{"type":"addCheck","op":"o","base":2,"item":"t1","before":"k1","text":"Write"}"#)
                == request(newCheck("Write", before: "k1")))
        #expect(
            parse(#"{"type":"editCheck","op":"o","base":2,"item":"t1","check":"k1","done":true}"#)
                == request(.editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true))))
        #expect(
            parse(#"{"type":"removeCheck","op":"o","base":2,"item":"t1","check":"k1"}"#)
                == request(.removeCheck(item: item("t1"), check: checkID("k1"))))
    }

    @Test func refusesBadContentNamingTheMember() {
        let controls = #"{"type":"edit","op":"o","base":2,"item":"t1","description":"a\u0007b"}"#
        #expect(problem(controls)?.contains("\"description\"") == true)
        let long = String(repeating: "é", count: 10_001)
        #expect(problem(#"{"type":"edit","op":"o","base":2,"item":"t1","description":"\#(long)"}"#) != nil)
        let most = String(repeating: "😀", count: 10_000)
        #expect(problem(#"{"type":"edit","op":"o","base":2,"item":"t1","description":"\#(most)"}"#) == nil)
        for due in ["2026-02-29", "2026-13-01", "2026-1-01", "2026-04-31", "2026-04-30T24:00Z", "2026-04-30T10:00"] {
            #expect(
                problem(#"{"type":"edit","op":"o","base":2,"item":"t1","due":"\#(due)"}"#)?.contains("\"due\"") == true,
                "\(due)")
        }
        #expect(problem(#"{"type":"edit","op":"o","base":2,"item":"t1","due":"2000-02-29T23:59Z"}"#) == nil)
        let name = String(repeating: "x", count: 51)
        #expect(
            problem(#"{"type":"addTag","op":"o","base":2,"tag":{"name":"\#(name)","color":"red"}}"#)?
                .contains("\"tag.name\"") == true)
        #expect(
            problem(#"{"type":"addTag","op":"o","base":2,"tag":{"name":"Bug","color":"red;x"}}"#)?
                .contains("\"tag.color\"") == true)
        #expect(problem(#"{"type":"tag","op":"o","base":2,"item":"t1"}"#) != nil)
        #expect(problem(#"{"type":"tag","op":"o","base":2,"item":"t1","add":["g1"],"remove":["g1"]}"#) != nil)
        #expect(
            problem(#"{"type":"assign","op":"o","base":2,"item":"t1","add":[{"member":"a b","name":"A"}]}"#)?
                .contains("member") == true)
        #expect(problem(#"{"type":"addCheck","op":"o","base":2,"item":"t1","before":null,"text":""}"#) != nil)
        #expect(problem(#"{"type":"editCheck","op":"o","base":2,"item":"t1","check":"k1"}"#) != nil)
    }

    @Test func committedContentOpsRoundTrip() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let ops: [Op] = [
            newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: []),
            .assign(item: item("t1"), add: [person("ann")], remove: []),
            .edit(item: item("t1"), changes: ItemEdit(description: "**Now**", due: "2026-12-24T17:00Z")),
            newCheck("Write"), newCheck("Read", before: "k5"),
            .editCheck(item: item("t1"), check: checkID("k5"), changes: CheckEdit(text: "Write it", done: true)),
            .editTag(tag: tagID("g1"), changes: TagEdit(name: "Defect")),
            .removeCheck(item: item("t1"), check: checkID("k6")),
        ]
        for (i, op) in ops.enumerated() {
            let outcome = s.submit(OpRequest(opID: opID("o\(i)"), base: s.seq, op: op), by: alice, time: wall) { _ in
                nil
            }
            guard case .committed(let c) = outcome else {
                Issue.record("op \(i) \(op): \(outcome)")
                return
            }
            var w = JSONWriter()
            c.encode(into: &w, withTime: true)
            #expect(try CommittedOp(json: JSON.parse(w.bytes)) == c, "\(String(decoding: w.bytes, as: UTF8.self))")
        }
        let board = s.board
        #expect(board.tags == [Tag(id: tagID("g1"), name: "Defect", color: "#d32f2f")])
        let card = board.item(item("t1"))!
        #expect(card.checklist == [Check(id: checkID("k5"), text: "Write it", done: true)])
        #expect(card.tags == [tagID("g1")] && card.assignees == [person("ann")] && card.due == "2026-12-24T17:00Z")
        #expect(try Board(json: JSON.parse(board.encoded())) == board)
        // Removing the tag takes it off the card too.
        _ = s.submit(OpRequest(opID: opID("rm"), base: s.seq, op: .removeTag(tag: tagID("g1"))), by: alice, time: wall)
        {
            _ in nil
        }
        #expect(s.board.tags.isEmpty && s.board.item(item("t1"))!.tags.isEmpty)
    }

    @Test func boardsWithoutContentKeepTheirJSON() throws {
        let board = Board.defaultTemplate(id: demo)
        let text = String(decoding: board.encoded(), as: UTF8.self)
        for key in ["\"tags\"", "\"description\"", "\"assignees\"", "\"due\"", "\"checklist\""] {
            #expect(!text.contains(key))
        }
        #expect(try Board(json: JSON.parse(board.encoded())) == board)
    }

    @Test func snapshotsWithBadContentAreRefused() throws {
        var board = Board.defaultTemplate(id: demo)
        board.items[0].tags = [tagID("g9")]
        #expect(throws: JSON.DecodingError.self) { try Board(json: JSON.parse(board.encoded())) }
        board.items[0].tags = []
        board.items[0].due = "2026-02-30"
        #expect(throws: JSON.DecodingError.self) { try Board(json: JSON.parse(board.encoded())) }
    }

    @Test func opsThatWouldPassTheBoardsByteBoundAreRefused() {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let start = s.snapshotBytes()
        s.maxBoardBytes = start + 100
        func submit(_ op: Op, _ id: String) -> Sequencer.Outcome {
            s.submit(OpRequest(opID: opID(id), base: s.seq, op: op), by: alice, time: wall) { _ in nil }
        }
        let big = String(repeating: "x", count: 200)
        guard case .rejected(let r) = submit(.edit(item: item("t1"), changes: ItemEdit(description: big)), "big") else {
            Issue.record("a description past the bound committed")
            return
        }
        #expect(r.reason == .boardFull)
        guard case .committed = submit(.edit(item: item("t1"), changes: ItemEdit(description: "short")), "small") else {
            Issue.record("a description within the bound was refused")
            return
        }
        guard case .committed = submit(.edit(item: item("t2"), changes: ItemEdit(description: "x")), "fill") else {
            Issue.record("a description within the bound was refused")
            return
        }
        s.maxBoardBytes = s.snapshotBytes()
        // Full: drags still work, anything that grows it does not, shrinking does.
        guard case .committed = submit(.move(item: item("t1"), zone: zone("tray"), before: nil), "move") else {
            Issue.record("a move on a full board was refused")
            return
        }
        guard case .rejected(let again) = submit(newCheck("one more"), "check") else {
            Issue.record("a check past the bound committed")
            return
        }
        #expect(again.reason == .boardFull)
        guard case .committed = submit(.edit(item: item("t1"), changes: ItemEdit(description: .some(nil))), "clear")
        else {
            Issue.record("a shrinking edit was refused")
            return
        }
        #expect(s.snapshotBytes() == s.board.encoded().count)
    }
}
