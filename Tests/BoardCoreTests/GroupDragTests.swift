import BoardCore
import Testing

/// Drags of a selection (issue 36): a group is held all or none, moves as one `moveMany`, and
/// ends as one hold.
@Suite struct GroupDragTests {
    let ada = User(id: alice, name: "Ada", color: "#111")
    let bo = User(id: bob, name: "Bo", color: "#222")

    func room() -> Room {
        var r = Room(board: .defaultTemplate(id: demo), holdTimeout: 30_000)
        _ = r.join(ada, since: nil)
        _ = r.join(bo, since: nil)
        return r
    }

    func durable(_ room: inout Room, _ effects: [Room.Effect]) -> [Room.Effect] {
        var out: [Room.Effect] = []
        for e in effects {
            if case .persist(let op) = e { out += room.markDurable(upTo: op.seq) } else { out.append(e) }
        }
        return out
    }

    @Test func aGroupIsHeldWholeAndItsDropCommitsOneMoveMany() {
        var r = room()
        #expect(
            r.handle(.dragStart(item: item("t1"), with: items("t5", "t3")), from: alice, now: at(0), wall: wall)
                == [.broadcast(.dragStart(item: item("t1"), by: alice, at: 0, with: items("t5", "t3")), except: nil)])
        #expect(Set(r.holds.keys) == Set(items("t1", "t5", "t3")))
        // Another's op on any of them is refused; so is their dragStart of any of them.
        #expect(
            r.handle(.dragStart(item: item("t3")), from: bob, now: at(1), wall: wall)
                == [.send(bob, .reject(Rejection(.held, by: alice, item: item("t3")), seq: 0))])
        let bobs = OpRequest(opID: opID("b1"), base: 0, op: .toggle(item: item("t5"), on: true))
        #expect(
            r.handle(.op(bobs), from: bob, now: at(1), wall: wall)
                == [.send(bob, .reject(Rejection(.held, by: alice, opID: opID("b1")), seq: 0))])
        // Hovers of the lead are relayed as a single drag's.
        #expect(
            r.handle(
                .hover(item: item("t1"), over: nil, zone: zone("tray"), mode: .move), from: alice, now: at(2),
                wall: wall)
                == [
                    .broadcast(
                        .hover(item: item("t1"), over: nil, zone: zone("tray"), mode: .move, by: alice, at: 0),
                        except: alice)
                ])
        let drop = OpRequest(opID: opID("d1"), base: 0, op: .move(item: item("t1"), zone: zone("tray"), before: nil))
        let effects = durable(&r, r.handle(.drop(item: item("t1"), action: drop), from: alice, now: at(3), wall: wall))
        guard effects.count == 2, case .broadcast(.drop(item("t1"), alice, 0, nil), nil) = effects[0],
            case .broadcast(.committed(let op), nil) = effects[1]
        else {
            Issue.record("\(effects)")
            return
        }
        #expect(op.op == .moveMany(items: items("t1", "t5", "t3"), zone: zone("tray"), before: nil))
        #expect(r.holds.isEmpty)
        #expect(order(r.published, "tray") == ["t1", "t5", "t3"])
    }

    @Test func aGroupWithOneHeldItemIsRefusedWhole() {
        var r = room()
        _ = r.handle(.dragStart(item: item("t4")), from: bob, now: at(0), wall: wall)
        #expect(
            r.handle(.dragStart(item: item("t1"), with: items("t4", "t2")), from: alice, now: at(1), wall: wall)
                == [.send(alice, .reject(Rejection(.held, by: bob, item: item("t4")), seq: 0))])
        #expect(Set(r.holds.keys) == [item("t4")])
        // Unknown or archived members refuse it too, and nothing is held.
        #expect(
            r.handle(.dragStart(item: item("t1"), with: items("nope")), from: alice, now: at(1), wall: wall)
                == [.send(alice, .reject(Rejection(.unknownItem, item: item("nope")), seq: 0))])
        let archive = OpRequest(opID: opID("a1"), base: 0, op: .archive(items: items("t2")))
        _ = durable(&r, r.handle(.op(archive), from: alice, now: at(2), wall: wall))
        #expect(
            r.handle(.dragStart(item: item("t1"), with: items("t2")), from: alice, now: at(3), wall: wall)
                == [.send(alice, .reject(Rejection(.archived, item: item("t2")), seq: 1))])
        #expect(
            r.handle(.dragStart(item: item("t2")), from: alice, now: at(3), wall: wall)
                == [.send(alice, .reject(Rejection(.archived, item: item("t2")), seq: 1))])
        #expect(Set(r.holds.keys) == [item("t4")])
    }

    @Test func aGroupEndsAsOneHoldWhenItExpiresOrItsHolderLeaves() {
        var r = room()
        _ = r.handle(.dragStart(item: item("t1"), with: items("t2", "t3")), from: alice, now: at(0), wall: wall)
        #expect(
            r.expireHolds(now: at(30_000))
                == [.broadcast(.drop(item: item("t1"), by: alice, at: 0, reason: .expired), except: nil)])
        #expect(r.holds.isEmpty)
        _ = r.handle(.dragStart(item: item("t4"), with: items("t5")), from: bob, now: at(30_001), wall: wall)
        #expect(
            r.leave(bob, now: at(30_002)).first
                == .broadcast(.drop(item: item("t4"), by: bob, at: 0, reason: .left), except: nil))
        #expect(r.holds.isEmpty)
    }

    @Test func aGroupDragStartReadsAndWritesBack() throws {
        let text = #"{"type":"dragStart","items":["t1","t2"]}"#
        let parsed = try ClientMessage.parse(Array(text.utf8)).get()
        #expect(parsed == .dragStart(item: item("t1"), with: items("t2")))
        #expect(String(decoding: parsed.encoded(), as: UTF8.self) == text)
        for bad in [#"{"type":"dragStart","items":[]}"#, #"{"type":"dragStart","items":["t1","t1"]}"#] {
            #expect(throws: ProtocolError.self) { try ClientMessage.parse(Array(bad.utf8)).get() }
        }
        var w = JSONWriter()
        ServerMessage.dragStart(item: item("t1"), by: alice, at: 3, with: items("t2")).encode(into: &w)
        #expect(
            String(decoding: w.bytes, as: UTF8.self)
                == #"{"type":"dragStart","item":"t1","items":["t1","t2"],"by":"u1","at":3}"#)
    }
}
