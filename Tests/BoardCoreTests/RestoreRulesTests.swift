import BoardCore
import Testing

/// The template board, as a restore to seq 0 carries it.
let template = Board.defaultTemplate(id: demo)

extension SequencerTests {
    /// The rules of `restore` (docs/conflicts.md, rows 46–54), run through `conflictRules`. A
    /// restore without its board that passes comes back `needsBoard`; the test then gives it the
    /// board as of `to`, as the hub does after reading the store.
    static let restoreCases: [Case] = [
        Case(
            name: "restore over Bo's swap commits", history: [.swap(a: item("t1"), b: item("t2"))], base: 1,
            op: .restore(to: 0, board: nil)),
        Case(
            name: "restore while Bo drags a card", base: 0, op: .restore(to: 0, board: nil), heldByBob: ["t5"],
            expected: .held),
        Case(
            name: "restore after Bo's restore", history: [.restore(to: 0, board: template)], base: 0,
            op: .restore(to: 0, board: nil), expected: .conflict),
        Case(
            name: "restore with ops after its base is rebased", history: [.swap(a: item("t3"), b: item("t4"))],
            base: 0, op: .restore(to: 0, board: nil)),
        Case(
            name: "restore to a seq after its base", history: [.swap(a: item("t3"), b: item("t4"))], base: 0,
            op: .restore(to: 1, board: nil), expected: .invalid),
        Case(
            name: "restore with a base ahead of the board", base: 5, op: .restore(to: 0, board: nil), expected: .badBase
        ),
        Case(
            name: "op based before Bo's restore", history: [.restore(to: 0, board: template)], base: 0,
            op: .toggle(item: item("t1"), on: true), expected: .conflict),
        Case(
            name: "op based on Bo's restore commits", history: [.restore(to: 0, board: template)], base: 1,
            op: .toggle(item: item("t1"), on: true)),
        Case(
            name: "add before a card Bo's restore took away",
            history: [
                .add(zone: zone("tray"), before: nil, item: Item(id: item("c1"), label: "New", color: "#fff")),
                .restore(to: 0, board: template),
            ], base: 1,
            op: .add(zone: zone("tray"), before: item("c1"), item: Item(id: .unassigned, label: "x", color: "#fff")),
            expected: .conflict),
    ]
}

@Suite struct RestoreTests {
    func submit(_ s: inout Sequencer, _ op: Op, id: String, by user: UserID = alice, boards: [Board]) -> CommittedOp? {
        var request = OpRequest(opID: opID(id), base: s.seq, op: op)
        var outcome = s.submit(request, by: user, name: "Ann", time: wall) { _ in nil }
        if case .needsBoard(let to) = outcome {
            request.op = .restore(to: to, board: boards[to])
            outcome = s.submit(request, by: user, name: "Ann", time: wall) { _ in nil }
        }
        guard case .committed(let op) = outcome else {
            Issue.record("\(id): \(outcome)")
            return nil
        }
        return op
    }

    @Test func restoreThenUndoGivesBackTheBoardBefore() {
        var s = Sequencer(board: template)
        var boards = [s.board]
        let ops: [Op] = [
            .swap(a: item("t1"), b: item("t2")), .move(item: item("t3"), zone: zone("tray"), before: nil),
            .retitle(title: "Sprint"), .remove(item: item("t4")),
        ]
        for (i, op) in ops.enumerated() {
            _ = submit(&s, op, id: "o\(i)", boards: boards)
            boards.append(s.board)
        }
        let before = s.board
        // Restore to seq 1, then undo it as the web client does: restore the seq before the restore.
        guard let restore = submit(&s, .restore(to: 1, board: nil), id: "r", boards: boards) else { return }
        boards.append(s.board)
        #expect(s.board == boards[1])
        #expect(restore.name == "Ann")
        guard let undo = submit(&s, .restore(to: restore.seq - 1, board: nil), id: "u", boards: boards) else { return }
        #expect(s.board == before)
        #expect(undo.seq == restore.seq + 1)
    }

    @Test func aResendOfACommittedRestoreIsAcknowledged() {
        var s = Sequencer(board: template)
        let boards = [s.board]
        _ = submit(&s, .swap(a: item("t1"), b: item("t2")), id: "o", boards: boards)
        guard submit(&s, .restore(to: 0, board: nil), id: "r", boards: boards + [s.board]) != nil else { return }
        let request = OpRequest(opID: opID("r"), base: 0, op: .restore(to: 0, board: nil))
        #expect(s.submit(request, by: alice, time: wall) { _ in nil } == .duplicate(2))
    }

    @Test func aResumeAcrossARestoreGetsNoOps() {
        var s = Sequencer(board: template)
        let boards = [s.board]
        _ = submit(&s, .swap(a: item("t1"), b: item("t2")), id: "o", boards: boards)
        _ = submit(&s, .restore(to: 0, board: nil), id: "r", boards: boards + [s.board])
        _ = submit(&s, .toggle(item: item("t1"), on: true), id: "t", boards: boards)
        #expect(s.ops(after: 1) == nil)
        #expect(s.ops(after: 2)?.map(\.seq) == [3])
    }

    @Test func theCommittedRestoreCarriesItsBoardOnTheWireAndInTheStore() throws {
        let op = CommittedOp(
            seq: 3, opID: opID("r"), by: alice, op: .restore(to: 1, board: template), time: wall, name: "Ann")
        let broadcast = ServerMessage.committed(op).encoded()
        let json = try JSON.parse(broadcast)
        #expect(json["type"]?.stringValue == "restore")
        #expect(json["to"]?.intValue == 1)
        #expect(json["name"] == nil)
        #expect(try Board(json: json["board"]!) == template)
        #expect(
            try CommittedOp(json: json)
                == CommittedOp(seq: 3, opID: opID("r"), by: alice, op: op.op, time: .init(milliseconds: 0)))
        // A client's restore names only the seq: any board it sends is ignored.
        let parsed = ClientMessage.parse(
            Array(#"{"type":"restore","op":"x","base":3,"to":1,"board":{"id":"evil"}}"#.utf8))
        #expect(parsed == .success(.op(OpRequest(opID: opID("x"), base: 3, op: .restore(to: 1, board: nil)))))
    }
}
