import BoardCore
import Testing

/// A new card's content, as an `add` request carries it.
func card(_ label: String, color: String = "#123456", detail: String? = nil) -> Item {
    Item(id: .unassigned, label: label, color: color, detail: detail)
}

/// A new zone, as an `addZone` request carries it.
func column(_ title: String, layout: Zone.Layout = .list) -> Zone {
    Zone(id: .unassigned, items: [], title: title, layout: layout)
}

extension SequencerTests {
    /// The conflict rows of the editing ops (docs/conflicts.md, "Editing"), on the colors board:
    /// `grid` holds t1…t12, `tray` is empty; history is bob's, the request alice's.
    static let editingCases: [Case] = [
        // add
        Case(name: "add to a zone commits", base: 0, op: .add(zone: zone("tray"), before: nil, item: card("New"))),
        Case(
            name: "add of a card that is on commits (the undo of a remove)", base: 0,
            op: .add(
                zone: zone("tray"), before: nil, item: Item(id: .unassigned, label: "New", color: "#000", on: true))),
        Case(
            name: "add of a card that is on, before an anchor toggled after base",
            history: [.toggle(item: item("t1"), on: true)], base: 0,
            op: .add(
                zone: zone("grid"), before: item("t1"),
                item: Item(id: .unassigned, label: "New", color: "#000", on: true)),
            expected: .conflict),
        Case(
            name: "add to an unknown zone", base: 0, op: .add(zone: zone("attic"), before: nil, item: card("New")),
            expected: .unknownZone),
        Case(
            name: "add before an anchor in another zone", base: 0,
            op: .add(zone: zone("tray"), before: item("t1"), item: card("New")), expected: .invalid),
        Case(
            name: "add before an anchor moved after base",
            history: [.move(item: item("t1"), zone: zone("grid"), before: nil)], base: 0,
            op: .add(zone: zone("grid"), before: item("t1"), item: card("New")), expected: .conflict),
        Case(
            name: "add before an anchor removed after base", history: [.remove(item: item("t1"))], base: 0,
            op: .add(zone: zone("grid"), before: item("t1"), item: card("New")), expected: .conflict),
        Case(
            name: "add before an anchor removed at or before base", history: [.remove(item: item("t1"))], base: 1,
            op: .add(zone: zone("grid"), before: item("t1"), item: card("New")), expected: .unknownItem),
        Case(
            name: "add before an anchor edited after base commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))], base: 0,
            op: .add(zone: zone("grid"), before: item("t1"), item: card("New"))),
        Case(
            name: "add to a zone removed after base", history: [.removeZone(zone: zone("tray"))], base: 0,
            op: .add(zone: zone("tray"), before: nil, item: card("New")), expected: .conflict),
        Case(
            name: "add to a full board",
            history: Array(
                repeating: .add(zone: zone("tray"), before: nil, item: card("x")),
                count: BoardLimits.items - 12), base: BoardLimits.items - 12,
            op: .add(zone: zone("tray"), before: nil, item: card("one too many")), expected: .boardFull),
        // edit
        Case(
            name: "edit of a fresh item commits", base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge", detail: .some(nil)))),
        Case(
            name: "edit of an unknown item", base: 0, op: .edit(item: item("zz"), changes: ItemEdit(label: "x")),
            expected: .unknownItem),
        Case(
            name: "edit of an item held by another commits", base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge")), heldByBob: ["t1"]),
        Case(
            name: "edit of an item moved after base commits",
            history: [.move(item: item("t1"), zone: zone("tray"), before: nil)], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))),
        Case(
            name: "edit of an item toggled after base commits", history: [.toggle(item: item("t1"), on: true)],
            base: 0, op: .edit(item: item("t1"), changes: ItemEdit(color: "#000"))),
        Case(
            name: "edit of the same field after base",
            history: [.edit(item: item("t1"), changes: ItemEdit(label: "Scarlet"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge")), expected: .conflict),
        Case(
            name: "edit of another field after base commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(color: "#f00"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))),
        Case(
            name: "edit of one changed field among several",
            history: [.edit(item: item("t1"), changes: ItemEdit(detail: "note"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge", detail: .some(nil))), expected: .conflict),
        Case(
            name: "edit of an item removed after base", history: [.remove(item: item("t1"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge")), expected: .conflict),
        Case(
            name: "edit of an item removed at or before base", history: [.remove(item: item("t1"))], base: 1,
            op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge")), expected: .unknownItem),
        Case(
            name: "move of an item edited after base commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))], base: 0,
            op: .move(item: item("t1"), zone: zone("tray"), before: nil)),
        // remove
        Case(name: "remove of a fresh item commits", base: 0, op: .remove(item: item("t1"))),
        Case(
            name: "remove of an item held by another", base: 0, op: .remove(item: item("t1")), heldByBob: ["t1"],
            expected: .held),
        Case(
            name: "remove after a concurrent edit",
            history: [.edit(item: item("t1"), changes: ItemEdit(detail: "note"))], base: 0,
            op: .remove(item: item("t1")), expected: .conflict),
        Case(
            name: "remove after a concurrent move",
            history: [.move(item: item("t1"), zone: zone("tray"), before: nil)], base: 0,
            op: .remove(item: item("t1")), expected: .conflict),
        Case(
            name: "remove after a concurrent toggle", history: [.toggle(item: item("t1"), on: true)], base: 0,
            op: .remove(item: item("t1")), expected: .conflict),
        Case(
            name: "remove after a concurrent remove", history: [.remove(item: item("t1"))], base: 0,
            op: .remove(item: item("t1")), expected: .conflict),
        Case(
            name: "remove after an edit it has seen commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))], base: 1,
            op: .remove(item: item("t1"))),
        Case(
            name: "swap with an item removed after base", history: [.remove(item: item("t2"))], base: 0,
            op: .swap(a: item("t1"), b: item("t2")), expected: .conflict),
        // zones
        Case(name: "addZone commits", base: 0, op: .addZone(before: zone("tray"), zone: column("Blocked"))),
        Case(
            name: "addZone before an unknown zone", base: 0, op: .addZone(before: zone("attic"), zone: column("B")),
            expected: .unknownZone),
        Case(
            name: "addZone before a zone removed after base", history: [.removeZone(zone: zone("tray"))], base: 0,
            op: .addZone(before: zone("tray"), zone: column("B")), expected: .conflict),
        Case(
            name: "addZone on a board with 64 zones",
            history: Array(repeating: .addZone(before: nil, zone: column("Z")), count: BoardLimits.zones - 2),
            base: BoardLimits.zones - 2, op: .addZone(before: nil, zone: column("one too many")), expected: .boardFull),
        Case(
            name: "editZone commits", base: 0, op: .editZone(zone: zone("tray"), changes: ZoneEdit(title: "Done"))),
        Case(
            name: "editZone of the same field after base",
            history: [.editZone(zone: zone("tray"), changes: ZoneEdit(title: "Later"))], base: 0,
            op: .editZone(zone: zone("tray"), changes: ZoneEdit(title: "Done")), expected: .conflict),
        Case(
            name: "editZone of another field after base commits",
            history: [.editZone(zone: zone("tray"), changes: ZoneEdit(layout: .list))], base: 0,
            op: .editZone(zone: zone("tray"), changes: ZoneEdit(title: "Done"))),
        Case(
            name: "editZone columns of a zone that is not a grid", base: 0,
            op: .editZone(zone: zone("tray"), changes: ZoneEdit(columns: 4)), expected: .invalid),
        Case(
            name: "editZone columns of an old board's first zone commits", base: 0,
            op: .editZone(zone: zone("grid"), changes: ZoneEdit(columns: 4))),
        Case(
            name: "editZone of a zone removed after base", history: [.removeZone(zone: zone("tray"))], base: 0,
            op: .editZone(zone: zone("tray"), changes: ZoneEdit(title: "Done")), expected: .conflict),
        Case(
            name: "removeZone of an empty zone commits", base: 0, op: .removeZone(zone: zone("tray"))),
        Case(
            name: "removeZone of a zone with items", base: 0, op: .removeZone(zone: zone("grid")),
            expected: .notEmpty),
        Case(
            name: "removeZone after a concurrent rename",
            history: [.editZone(zone: zone("tray"), changes: ZoneEdit(title: "Later"))], base: 0,
            op: .removeZone(zone: zone("tray")), expected: .conflict),
        Case(
            name: "removeZone of a zone emptied after base commits",
            history: [.move(item: item("t1"), zone: zone("tray"), before: nil), .remove(item: item("t1"))], base: 0,
            op: .removeZone(zone: zone("tray"))),
        Case(
            name: "removeZone of the only zone",
            history: (1...12).map { Op.remove(item: item("t\($0)")) } + [.removeZone(zone: zone("tray"))], base: 13,
            op: .removeZone(zone: zone("grid")), expected: .invalid),
        Case(
            name: "move into a zone removed after base", history: [.removeZone(zone: zone("tray"))], base: 0,
            op: .move(item: item("t1"), zone: zone("tray"), before: nil), expected: .conflict),
        // retitle
        Case(name: "retitle commits", base: 0, op: .retitle(title: "Sprint 12")),
        Case(
            name: "retitle after a concurrent retitle", history: [.retitle(title: "Sprint 11")], base: 0,
            op: .retitle(title: "Sprint 12"), expected: .conflict),
        Case(
            name: "retitle after other edits commits",
            history: [.editZone(zone: zone("tray"), changes: ZoneEdit(title: "Later")), .remove(item: item("t1"))],
            base: 0, op: .retitle(title: "Sprint 12")),
    ]
}

@Suite struct EditingTests {
    func submit(_ s: inout Sequencer, _ op: Op, base: Seq? = nil, id: String, by user: UserID = alice)
        -> Sequencer.Outcome
    {
        s.submit(OpRequest(opID: opID(id), base: base ?? s.seq, op: op), by: user, time: wall) { _ in nil }
    }

    @Test func addAssignsAFreshIDThatIsNeverReused() {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        guard case .committed(let first) = submit(&s, .add(zone: zone("tray"), before: nil, item: card("A")), id: "a")
        else { Issue.record("add did not commit"); return }
        guard case .add(_, _, let added) = first.op else { Issue.record("\(first.op)"); return }
        #expect(added.id == item("c1"))
        #expect(added.on == false)
        #expect(s.board.item(item("c1"))?.label == "A")
        #expect(order(s.board, "tray") == ["c1"])
        _ = submit(&s, .remove(item: item("c1")), id: "r")
        guard case .committed(let second) = submit(&s, .add(zone: zone("tray"), before: nil, item: card("B")), id: "b"),
            case .add(_, _, let again) = second.op
        else { Issue.record("second add did not commit"); return }
        #expect(again.id == item("c3"))
    }

    @Test func anAddKeepsThePaintStateItCarries() {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let lit = Item(id: .unassigned, label: "Lit", color: "#000", on: true, detail: "d")
        guard case .committed(let c) = submit(&s, .add(zone: zone("grid"), before: item("t3"), item: lit), id: "a"),
            case .add(_, _, let added) = c.op
        else { Issue.record("add did not commit"); return }
        #expect(added == Item(id: item("c1"), label: "Lit", color: "#000", on: true, detail: "d"))
        #expect(s.board.item(item("c1"))?.on == true)
        #expect(order(s.board).prefix(3) == ["t1", "t2", "c1"])
    }

    @Test func freshIDsStepAroundIDsAnImportedBoardUsed() {
        var board = Board.defaultTemplate(id: demo)
        board.apply(.add(zone: zone("tray"), before: nil, item: Item(id: item("c1"), label: "old", color: "#000")))
        board.apply(.addZone(before: nil, zone: Zone(id: zone("z1"), items: [], title: "Old", layout: .list)))
        var s = Sequencer(board: board)
        guard case .committed(let a) = submit(&s, .add(zone: zone("tray"), before: nil, item: card("A")), id: "a"),
            case .add(_, _, let added) = a.op
        else { Issue.record("add did not commit"); return }
        #expect(added.id == item("c1-2"))
        var t = Sequencer(board: board)
        guard case .committed(let z) = submit(&t, .addZone(before: nil, zone: column("B")), id: "z"),
            case .addZone(_, let zoneAdded) = z.op
        else { Issue.record("addZone did not commit"); return }
        #expect(zoneAdded.id == zone("z1-2"))
    }

    @Test func addInsertsBeforeItsAnchorAndRemoveTakesTheItemOut() {
        var b = Board.defaultTemplate(id: demo)
        b.apply(.add(zone: zone("grid"), before: item("t2"), item: Item(id: item("c1"), label: "N", color: "#000")))
        #expect(order(b).prefix(3) == ["t1", "c1", "t2"])
        b.apply(.remove(item: item("t1")))
        #expect(b.item(item("t1")) == nil)
        #expect(order(b).prefix(2) == ["c1", "t2"])
        #expect(b.items.count == 12)
        #expect(b.item(item("t12"))?.label == "Brown")
    }

    @Test func editChangesOnlyTheFieldsGiven() {
        var b = Board.defaultTemplate(id: demo)
        b.apply(.edit(item: item("t1"), changes: ItemEdit(detail: "warm")))
        b.apply(.edit(item: item("t1"), changes: ItemEdit(label: "Rouge")))
        #expect(b.item(item("t1")) == Item(id: item("t1"), label: "Rouge", color: "#e53935", detail: "warm"))
        b.apply(.edit(item: item("t1"), changes: ItemEdit(color: "#000", detail: .some(nil))))
        #expect(b.item(item("t1")) == Item(id: item("t1"), label: "Rouge", color: "#000"))
    }

    @Test func zoneOpsKeepHowAnOldBoardIsDrawn() {
        var b = Board.defaultTemplate(id: demo)
        #expect(b.zones.map(\.layout) == [nil, nil])
        b.apply(.addZone(before: zone("grid"), zone: Zone(id: zone("z1"), items: [], title: "Top", layout: .list)))
        #expect(b.zones.map(\.id.rawValue) == ["z1", "grid", "tray"])
        #expect(b.zones.map(\.layout) == [.list, .grid, .row])
        b.apply(.editZone(zone: zone("tray"), changes: ZoneEdit(title: "Tray", layout: .grid, columns: 2)))
        #expect(b.zone(zone("tray")) == Zone(id: zone("tray"), items: [], title: "Tray", layout: .grid, columns: 2))
        b.apply(.editZone(zone: zone("tray"), changes: ZoneEdit(layout: .list)))
        #expect(b.zone(zone("tray"))?.columns == nil)
        b.apply(.removeZone(zone: zone("tray")))
        b.apply(.retitle(title: "Mine"))
        #expect(b.zones.map(\.id.rawValue) == ["z1", "grid"])
        #expect(b.title == "Mine")
        #expect(Board.validate(title: b.title, columns: b.columns, zones: b.zones, items: b.items) == nil)
    }

    @Test func removedIDsAreForgottenWithTheirHistory() {
        var s = Sequencer(board: .defaultTemplate(id: demo), historyLimit: 2)
        _ = submit(&s, .remove(item: item("t1")), id: "r")
        _ = submit(&s, .toggle(item: item("t2"), on: true), id: "a")
        _ = submit(&s, .toggle(item: item("t3"), on: true), id: "b")
        // The remove left the history: a base before it is stale, one after it sees the item gone.
        #expect(
            submit(&s, .edit(item: item("t1"), changes: ItemEdit(label: "x")), base: 0, id: "e")
                == .rejected(Rejection(.unknownItem, opID: opID("e"))))
        #expect(
            submit(&s, .edit(item: item("t4"), changes: ItemEdit(label: "x")), base: 0, id: "f")
                == .rejected(Rejection(.stale, opID: opID("f"))))
    }
}

@Suite struct EditingRoomTests {
    @Test func removingTheItemYouHoldEndsTheHoldAndLaterDragsAreRefused() {
        var room = Room(board: .defaultTemplate(id: demo))
        _ = room.join(User(id: alice, name: "Alice", color: "#111"), since: nil)
        _ = room.handle(.dragStart(item: item("t1")), from: alice, now: at(0), wall: wall)
        let effects = room.handle(
            .op(OpRequest(opID: opID("r"), base: 0, op: .remove(item: item("t1")))), from: alice, now: at(1), wall: wall
        )
        #expect(effects.count == 2)
        #expect(effects.last == .broadcast(.drop(item: item("t1"), by: alice, at: 0, reason: nil), except: nil))
        #expect(room.holds.isEmpty)
        _ = room.markDurable(upTo: 1)
        #expect(
            room.handle(.dragStart(item: item("t1")), from: alice, now: at(2), wall: wall)
                == [.send(alice, .reject(Rejection(.unknownItem, item: item("t1")), seq: 1))])
    }

    @Test func removeOfAnItemAnotherHoldsIsRefusedButAnEditCommits() {
        var room = Room(board: .defaultTemplate(id: demo))
        _ = room.join(User(id: alice, name: "Alice", color: "#111"), since: nil)
        _ = room.join(User(id: bob, name: "Bob", color: "#222"), since: nil)
        _ = room.handle(.dragStart(item: item("t1")), from: bob, now: at(0), wall: wall)
        let refused = room.handle(
            .op(OpRequest(opID: opID("r"), base: 0, op: .remove(item: item("t1")))), from: alice, now: at(1), wall: wall
        )
        #expect(refused == [.send(alice, .reject(Rejection(.held, by: bob, opID: opID("r")), seq: 0))])
        let edit = room.handle(
            .op(OpRequest(opID: opID("e"), base: 0, op: .edit(item: item("t1"), changes: ItemEdit(label: "Rouge")))),
            from: alice, now: at(2), wall: wall)
        guard case .persist(let op)? = edit.first else { Issue.record("\(edit)"); return }
        #expect(op.seq == 1)
        #expect(room.holds[item("t1")]?.by == bob)
    }
}
