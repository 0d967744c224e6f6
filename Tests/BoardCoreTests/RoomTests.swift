import BoardCore
import Testing

@Suite struct RoomTests {
    let ada = User(id: alice, name: "Ada", color: "#111")
    let bo = User(id: bob, name: "Bo", color: "#222")

    func room() -> Room {
        var r = Room(board: .defaultTemplate(id: demo), holdTimeout: 30_000)
        _ = r.join(ada, since: nil)
        _ = r.join(bo, since: nil)
        return r
    }

    /// Plays the store: marks every persisted op durable at once.
    func durable(_ room: inout Room, _ effects: [Room.Effect]) -> [Room.Effect] {
        var out: [Room.Effect] = []
        for e in effects {
            if case .persist(let op) = e { out += room.markDurable(upTo: op.seq) } else { out.append(e) }
        }
        return out
    }

    @Test func dragFlowHoldsHoversAndSwapsOnDrop() {
        var r = room()
        #expect(
            r.handle(.dragStart(item: item("t1")), from: alice, now: at(0), wall: wall)
                == [.broadcast(.dragStart(item: item("t1"), by: alice, at: 0), except: nil)])
        #expect(
            r.handle(.dragStart(item: item("t1")), from: bob, now: at(1), wall: wall)
                == [.send(bob, .reject(Rejection(.held, by: alice, item: item("t1")), seq: 0))])
        #expect(
            r.handle(
                .hover(item: item("t1"), over: item("t2"), zone: nil, mode: .swap), from: alice, now: at(2), wall: wall)
                == [
                    .broadcast(
                        .hover(item: item("t1"), over: item("t2"), zone: zone("grid"), mode: .swap, by: alice, at: 0),
                        except: alice)
                ])
        #expect(
            r.handle(
                .hover(item: item("t1"), over: item("t2"), zone: nil, mode: nil), from: bob, now: at(2), wall: wall)
                == [.send(bob, .reject(Rejection(.notHolding, item: item("t1")), seq: 0))])
        let request = OpRequest(opID: opID("d1"), base: 0, op: .swap(a: item("t1"), b: item("t2")))
        let effects = durable(
            &r, r.handle(.drop(item: item("t1"), action: request), from: alice, now: at(3), wall: wall))
        guard effects.count == 2, case .broadcast(.drop(item("t1"), alice, 0, nil), nil) = effects[0],
            case .broadcast(.committed(let op), nil) = effects[1]
        else {
            Issue.record("\(effects)")
            return
        }
        #expect(op.seq == 1 && op.op == request.op && op.by == alice)
        #expect(op.time == wall, "a committed op records the wall clock, not the monotonic one")
        #expect(r.holds.isEmpty)
        #expect(order(r.published).prefix(2) == ["t2", "t1"])
    }

    @Test func liftingAnotherItemReleasesTheFirst() {
        var r = room()
        _ = r.handle(.dragStart(item: item("t1")), from: alice, now: at(0), wall: wall)
        let effects = r.handle(.dragStart(item: item("t2")), from: alice, now: at(1), wall: wall)
        #expect(
            effects == [
                .broadcast(.drop(item: item("t1"), by: alice, at: 0, reason: nil), except: nil),
                .broadcast(.dragStart(item: item("t2"), by: alice, at: 0), except: nil),
            ])
        #expect(r.holds[item("t1")] == nil && r.holds[item("t2")]?.by == alice)
    }

    @Test func holderLeavingDropsWithReasonLeftThenLeaves() {
        var r = room()
        _ = r.handle(.dragStart(item: item("t4")), from: bob, now: at(0), wall: wall)
        #expect(
            r.leave(bob, now: at(0)) == [
                .broadcast(.drop(item: item("t4"), by: bob, at: 0, reason: .left), except: nil),
                .broadcast(.leave(bo), except: nil),
            ])
        #expect(r.holds.isEmpty && r.users == [ada])
    }

    @Test func idleHoldExpires() {
        var r = room()
        _ = r.handle(.dragStart(item: item("t4")), from: bob, now: at(0), wall: wall)
        _ = r.handle(
            .hover(item: item("t4"), over: nil, zone: zone("tray"), mode: nil), from: bob, now: at(10_000), wall: wall)
        #expect(r.expireHolds(now: at(39_999)).isEmpty)
        #expect(
            r.expireHolds(now: at(40_000)) == [
                .broadcast(.drop(item: item("t4"), by: bob, at: 0, reason: .expired), except: nil)
            ])
        #expect(r.holds.isEmpty)
    }

    @Test func aBusyHoldStillEndsAtItsLifetime() {
        var r = room()
        r.holdLifetime = 60_000
        _ = r.handle(.dragStart(item: item("t4")), from: bob, now: at(0), wall: wall)
        for t in stride(from: Int64(1_000), through: 59_000, by: 1_000) {
            // Hovers keep it active, but do not make it younger (lifting it again is refused).
            _ = r.handle(.hover(item: item("t4"), over: nil, zone: nil, mode: nil), from: bob, now: at(t), wall: wall)
            _ = r.handle(.dragStart(item: item("t4")), from: bob, now: at(t), wall: wall)
            #expect(r.expireHolds(now: at(t)).isEmpty)
        }
        #expect(
            r.expireHolds(now: at(60_000)) == [
                .broadcast(.drop(item: item("t4"), by: bob, at: 0, reason: .expired), except: nil)
            ])
    }

    @Test func opsArePublishedOnlyWhenDurableAndRepliesWaitForThem() {
        var r = room()
        let first = r.handle(
            .op(OpRequest(opID: opID("a"), base: 0, op: .swap(a: item("t1"), b: item("t2")))), from: alice, now: at(0),
            wall: wall)
        guard case .persist(let op)? = first.first, first.count == 1 else { Issue.record("\(first)"); return }
        #expect(r.visibleSeq == 0 && r.sequencer.seq == 1)
        // Bob's conflicting op is rejected, but the reject names seq 1 and so waits for it.
        let second = r.handle(
            .op(OpRequest(opID: opID("b"), base: 0, op: .toggle(item: item("t1"), on: true))), from: bob, now: at(0),
            wall: wall)
        #expect(second.isEmpty)
        // A late joiner sees the published board at seq 0.
        let carol = User(id: UserID("u3"), name: "Cy", color: "#333")
        guard case .send(_, .welcome(let welcome))? = r.join(carol, since: nil).first else {
            Issue.record("no welcome"); return
        }
        #expect(welcome.seq == 0 && welcome.state == .board(.defaultTemplate(id: demo)))
        #expect(
            r.markDurable(upTo: op.seq) == [
                .broadcast(.committed(op), except: nil),
                .send(bob, .reject(Rejection(.conflict, by: alice, opID: opID("b")), seq: 1)),
            ])
        #expect(r.visibleSeq == 1 && r.isIdle == false)
    }

    @Test func resumeSendsMissedOpsOrTheBoard() {
        var r = room()
        for i in 0..<3 {
            _ = durable(
                &r,
                r.handle(
                    .op(OpRequest(opID: opID("o\(i)"), base: i, op: .toggle(item: item("t1"), on: i % 2 == 0))),
                    from: alice, now: at(0), wall: wall))
        }
        let dee = User(id: UserID("u4"), name: "Dee", color: "#444")
        guard case .send(_, .welcome(let w))? = r.join(dee, since: 1).first, case .ops(let ops) = w.state else {
            Issue.record("no ops welcome")
            return
        }
        #expect(ops.map(\.seq) == [2, 3] && w.seq == 3)
        let eve = User(id: UserID("u5"), name: "Eve", color: "#555")
        guard case .send(_, .welcome(let w2))? = r.join(eve, since: 9).first, case .board = w2.state else {
            Issue.record("expected a board for a since ahead of the board")
            return
        }
    }

    /// The bytes of `ops` as a welcome's `ops` array, and of `board` as its snapshot.
    func encodedSize(_ ops: [CommittedOp]) -> Int {
        var w = JSONWriter()
        w.beginArray()
        for op in ops { op.encode(into: &w) }
        w.endArray()
        return w.bytes.count
    }

    @Test func resumeIsSentOnlyWhileItIsNoLargerThanTheBoard() {
        var r = room()
        let boardBytes = r.published.encoded().count
        // Long op ids make each op about a tenth of the default board: a resume from 0 outgrows
        // the snapshot after a few ops, and from then on the joiner gets the board instead.
        var sawOps = false
        var sawBoard = false
        for i in 0..<40 {
            let id = opID(String(repeating: "x", count: 120) + "-\(i)")
            _ = durable(
                &r,
                r.handle(
                    .op(OpRequest(opID: id, base: i, op: .toggle(item: item("t1"), on: i % 2 == 0))),
                    from: alice, now: at(0), wall: wall))
            let joiner = User(id: UserID(number: UInt64(100 + i)), name: "J", color: "#999")
            guard case .send(_, .welcome(let w))? = r.join(joiner, since: 0).first else {
                Issue.record("no welcome")
                return
            }
            _ = r.leave(joiner.id, now: at(0))
            let ops = r.publishedOps(after: 0)!
            #expect(ops.count == i + 1)
            let sizes = "\(i + 1) ops: \(encodedSize(ops)) bytes against a board of \(boardBytes)"
            switch w.state {
            case .ops(let sent):
                #expect(encodedSize(ops) <= boardBytes, "a resume larger than the board: \(sizes)")
                #expect(sent == ops)
                sawOps = true
            case .board(let board):
                #expect(encodedSize(ops) > boardBytes, "the board instead of a smaller resume: \(sizes)")
                #expect(board == r.published)
                sawBoard = true
            }
            #expect(w.seq == i + 1)
        }
        #expect(sawOps && sawBoard)
        // A short resume is still a resume.
        let late = User(id: UserID("u9"), name: "Late", color: "#999")
        guard case .send(_, .welcome(let w))? = r.join(late, since: 38).first, case .ops(let ops) = w.state else {
            Issue.record("expected ops for a short resume")
            return
        }
        #expect(ops.map(\.seq) == [39, 40])
    }

    @Test func resentOpIsAcknowledgedWithItsOriginalSeq() {
        var r = room()
        let request = OpRequest(opID: opID("same"), base: 0, op: .toggle(item: item("t3"), on: true))
        _ = durable(&r, r.handle(.op(request), from: alice, now: at(0), wall: wall))
        #expect(
            r.handle(.op(request), from: alice, now: at(1), wall: wall) == [.send(alice, .ack(opID("same"), seq: 1))])
    }

    @Test func aLargeBoardFoldsJoinsAndLeavesIntoAPresenceCount() {
        var r = Room(board: .defaultTemplate(id: demo))
        r.presenceLimit = 3
        func user(_ n: UInt64) -> User { User(id: UserID(number: n), name: "U\(n)", color: "#000") }
        // Up to the limit: exactly as a small board, every join to everyone.
        for n: UInt64 in 1...3 {
            let effects = r.join(user(n), since: nil)
            #expect(effects.count == 2 && effects[1] == .broadcast(.join(user(n)), except: UserID(number: n)))
        }
        #expect(r.presence(now: at(0)).isEmpty, "nothing to report on a small board")
        _ = r.handle(.dragStart(item: item("t1")), from: UserID(number: 3), now: at(0), wall: wall)
        // The fourth joiner: no join broadcast, a welcome listing the holder first and a count.
        let big = r.join(user(4), since: nil)
        guard big.count == 1, case .send(_, .welcome(let welcome)) = big[0] else {
            Issue.record("\(big)")
            return
        }
        #expect(welcome.userCount == 4 && welcome.users.map(\.name) == ["U3", "U4", "U1"])
        #expect(r.join(user(5), since: nil).count == 1)
        #expect(r.presence(now: at(1_000)) == [.broadcast(.presence(userCount: 5, users: nil), except: nil)])
        #expect(r.presence(now: at(1_500)).isEmpty, "nothing changed")
        #expect(r.leave(UserID(number: 5), now: at(0)).isEmpty, "a leave on a large board is counted, not broadcast")
        #expect(r.presence(now: at(1_700)).isEmpty, "at most one a second")
        // A hand on a large board says whose it is.
        let lift = r.handle(.dragStart(item: item("t2")), from: UserID(number: 4), now: at(1_800), wall: wall)
        #expect(
            lift == [.broadcast(.dragStart(item: item("t2"), by: UserID(number: 4), at: 0, user: user(4)), except: nil)]
        )
        _ = r.leave(UserID(number: 4), now: at(0))
        // Small again: the next presence lists everyone, and joins go to everyone again.
        #expect(
            r.presence(now: at(2_000)) == [
                .broadcast(.presence(userCount: 3, users: [user(1), user(2), user(3)]), except: nil)
            ])
        #expect(r.leave(UserID(number: 1), now: at(0)).contains(.broadcast(.leave(user(1)), except: nil)))
    }
}
