import BoardCore
import Testing

@Suite struct SequencerTests {
    /// One row of the conflict-rule table: history committed first (by bob), then alice's request.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var history: [Op] = []
        var base: Seq
        var op: Op
        var heldByBob: [String] = []
        var expected: RejectReason?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "swap of fresh items commits", base: 0, op: .swap(a: item("t1"), b: item("t2"))),
        Case(name: "unknown item", base: 0, op: .swap(a: item("t1"), b: item("nope")), expected: .unknownItem),
        Case(
            name: "unknown zone", base: 0, op: .move(item: item("t1"), zone: zone("attic"), before: nil),
            expected: .unknownZone),
        Case(name: "base ahead of the board", base: 5, op: .toggle(item: item("t1"), on: true), expected: .badBase),
        Case(
            name: "unknown item beats bad base", base: 5, op: .toggle(item: item("zz"), on: true),
            expected: .unknownItem),
        Case(
            name: "item held by another user", base: 0, op: .swap(a: item("t1"), b: item("t2")), heldByBob: ["t2"],
            expected: .held),
        Case(
            name: "held beats conflict", history: [.toggle(item: item("t2"), on: true)], base: 0,
            op: .swap(a: item("t1"), b: item("t2")), heldByBob: ["t2"], expected: .held),
        Case(
            name: "same item touched after base", history: [.swap(a: item("t1"), b: item("t3"))], base: 0,
            op: .swap(a: item("t1"), b: item("t2")), expected: .conflict),
        Case(
            name: "move anchor touched after base", history: [.toggle(item: item("t9"), on: true)], base: 0,
            op: .move(item: item("t1"), zone: zone("grid"), before: item("t9")), expected: .conflict),
        Case(
            name: "stale base on other items is rebased", history: [.swap(a: item("t3"), b: item("t4"))], base: 0,
            op: .swap(a: item("t1"), b: item("t2"))),
        Case(
            name: "touch at or before base is no conflict", history: [.swap(a: item("t1"), b: item("t3"))], base: 1,
            op: .swap(a: item("t1"), b: item("t2"))),
        Case(name: "self swap", base: 0, op: .swap(a: item("t1"), b: item("t1")), expected: .invalid),
        Case(
            name: "move before itself", base: 0, op: .move(item: item("t1"), zone: zone("grid"), before: item("t1")),
            expected: .invalid),
        Case(
            name: "anchor not in target zone", base: 0,
            op: .move(item: item("t1"), zone: zone("tray"), before: item("t2")), expected: .invalid),
        Case(
            name: "conflict beats invalid", history: [.toggle(item: item("t1"), on: true)], base: 0,
            op: .swap(a: item("t1"), b: item("t1")), expected: .conflict),
        Case(
            name: "move to the end of the tray", base: 0, op: .move(item: item("t1"), zone: zone("tray"), before: nil)),
    ]

    @Test(
        arguments: cases + editingCases + restoreCases + contentCases + addWithContentCases + commentCases
            + bulkCases)
    func conflictRules(_ c: Case) {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        var boards = [s.board]
        for (i, op) in c.history.enumerated() {
            guard
                case .committed = s.submit(
                    OpRequest(opID: opID("h\(i)"), base: s.seq, op: op), by: bob, time: wall, holder: { _ in nil })
            else {
                Issue.record("history op \(i) did not commit")
                return
            }
            boards.append(s.board)
        }
        let held = Set(c.heldByBob)
        var request = OpRequest(opID: opID("mine"), base: c.base, op: c.op)
        var outcome = s.submit(request, by: alice, time: wall) { held.contains($0.rawValue) ? bob : nil }
        if case .needsBoard(let to) = outcome {
            // What the hub does: the board as of `to` from the store, and the restore again with it.
            request.op = .restore(to: to, board: boards[to])
            outcome = s.submit(request, by: alice, time: wall) { held.contains($0.rawValue) ? bob : nil }
        }
        switch (outcome, c.expected) {
        case (.committed(let op), nil):
            #expect(op.seq == c.history.count + 1)
        case (.rejected(let r), let expected?):
            #expect(r.reason == expected)
            #expect(r.opID == opID("mine"))
            if expected == .held || expected == .conflict { #expect(r.by == bob) }
        default:
            Issue.record("\(c.name): got \(outcome), expected \(String(describing: c.expected))")
        }
    }

    @Test func ownHoldDoesNotBlockOwnOp() {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let outcome = s.submit(
            OpRequest(opID: opID("o"), base: 0, op: .swap(a: item("t1"), b: item("t2"))), by: alice, time: wall
        ) { _ in alice }
        guard case .committed = outcome else { Issue.record("\(outcome)"); return }
    }

    @Test func repeatedOpIDIsAcknowledgedNotReapplied() {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let request = OpRequest(opID: opID("once"), base: 0, op: .swap(a: item("t1"), b: item("t2")))
        _ = s.submit(request, by: alice, time: wall) { _ in nil }
        let board = s.board
        #expect(s.submit(request, by: alice, time: wall) { _ in nil } == .duplicate(1))
        #expect(s.seq == 1)
        #expect(s.board == board)
    }

    @Test func baseOlderThanHistoryIsStale() {
        var s = Sequencer(board: .defaultTemplate(id: demo), historyLimit: 3)
        for i in 0..<5 {
            _ = s.submit(
                OpRequest(opID: opID("o\(i)"), base: s.seq, op: .toggle(item: item("t1"), on: i % 2 == 0)), by: bob,
                time: wall
            ) { _ in nil }
        }
        #expect(s.oldestHeldSeq == 3)
        let old = s.submit(
            OpRequest(opID: opID("x"), base: 1, op: .toggle(item: item("t2"), on: true)), by: alice, time: wall
        ) { _ in nil }
        #expect(old == .rejected(Rejection(.stale, opID: opID("x"))))
        let edge = s.submit(
            OpRequest(opID: opID("y"), base: 2, op: .toggle(item: item("t2"), on: true)), by: alice, time: wall
        ) { _ in nil }
        guard case .committed = edge else { Issue.record("\(edge)"); return }
    }

    @Test func opsAfterSinceAreServedFromHistory() {
        var s = Sequencer(board: .defaultTemplate(id: demo), historyLimit: 3)
        for i in 0..<5 {
            _ = s.submit(
                OpRequest(opID: opID("o\(i)"), base: s.seq, op: .toggle(item: item("t\(i + 1)"), on: true)), by: bob,
                time: wall
            ) { _ in nil }
        }
        #expect(s.ops(after: 2)?.map(\.seq) == [3, 4, 5])
        #expect(s.ops(after: 5)?.isEmpty == true)
        #expect(s.ops(after: 1) == nil)
        #expect(s.ops(after: 6) == nil)
    }

    @Test func moveInsertsBeforeAnchorAcrossZones() {
        var b = Board.defaultTemplate(id: demo)
        b.apply(.move(item: item("t1"), zone: zone("tray"), before: nil))
        b.apply(.move(item: item("t2"), zone: zone("tray"), before: item("t1")))
        #expect(order(b, "tray") == ["t2", "t1"])
        b.apply(.swap(a: item("t2"), b: item("t12")))
        #expect(order(b, "tray") == ["t12", "t1"])
        #expect(order(b).last == "t2")
    }
}

@Suite struct OpProblemTests {
    /// The one validity check: unknown ids first, then what makes no sense on this board.
    @Test(
        arguments: [
            (Op.swap(a: item("t1"), b: item("zz")), OpProblem.unknownItem(item("zz"))),
            (.move(item: item("t1"), zone: zone("attic"), before: item("t1")), .unknownZone(zone("attic"))),
            (.move(item: item("zz"), zone: zone("attic"), before: nil), .unknownItem(item("zz"))),
            (.swap(a: item("t1"), b: item("t1")), .selfSwap(item("t1"))),
            (.move(item: item("t1"), zone: zone("grid"), before: item("t1")), .beforeItself(item("t1"))),
            (
                .move(item: item("t1"), zone: zone("tray"), before: item("t2")),
                .anchorOutsideZone(anchor: item("t2"), zone: zone("tray"))
            ),
            (.toggle(item: item("t1"), on: true), nil),
            (.move(item: item("t1"), zone: zone("tray"), before: nil), nil),
        ] as [(Op, OpProblem?)])
    func problemsApplyingAnOp(_ op: Op, _ problem: OpProblem?) {
        #expect(Board.defaultTemplate(id: demo).problem(applying: op) == problem)
    }
}
