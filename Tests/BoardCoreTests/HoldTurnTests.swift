import BoardCore
import Testing

/// The rules that keep a hold from being kept for ever by taking it again at every expiry
/// (`HoldTurns`, issue 17): event by event, with the clock passed in.
@Suite struct HoldTurnTests {
    // Mal and Mo attack from one address; Ada and Bo are on two others.
    let mal = User(id: UserID("u3"), name: "Mal", color: "#333")
    let mo = User(id: UserID("u4"), name: "Mo", color: "#444")
    let ada = User(id: alice, name: "Ada", color: "#111")
    let bo = User(id: bob, name: "Bo", color: "#222")

    /// Holds expire after 1 s idle or 3 s however busy; the cooldown is 2 s.
    func room(maxHoldsPerAddress: Int = 8) -> Room {
        var settings = Room.Settings()
        settings.holdTimeout = 1_000
        settings.holdLifetime = 3_000
        settings.holdCooldown = 2_000
        settings.maxHoldsPerAddress = maxHoldsPerAddress
        var r = Room(board: .defaultTemplate(id: demo), settings: settings)
        for user in [mal, mo, ada, bo] { _ = r.join(user, since: nil) }
        return r
    }

    /// Each user's client address, which the server passes with each message.
    func address(_ user: UserID) -> String {
        switch user {
        case mal.id, mo.id: "10.0.0.66"
        case ada.id: "10.0.0.1"
        case bo.id: "10.0.0.2"
        default: "10.1.0.\((Int(user.rawValue.dropFirst()) ?? 0) % 12)"
        }
    }

    func lift(_ r: inout Room, _ user: User, _ id: String = "t1", at t: Int64) -> [Room.Effect] {
        r.handle(.dragStart(item: item(id)), from: user.id, address: address(user.id), now: at(t), wall: wall)
    }

    func taken(_ user: User, _ id: String = "t1") -> [Room.Effect] {
        [.broadcast(.dragStart(item: item(id), by: user.id, at: 0), except: nil)]
    }

    func refused(_ user: User, _ reason: RejectReason, by: UserID? = nil, _ id: String = "t1") -> [Room.Effect] {
        [.send(user.id, .reject(Rejection(reason, by: by, item: item(id)), seq: 0))]
    }

    func expired(_ user: User, _ id: String = "t1") -> Room.Effect {
        .broadcast(.drop(item: item(id), by: user.id, at: 0, reason: .expired), except: nil)
    }

    @Test func anExpiredHolderAndItsAddressWaitTheCooldownBeforeTakingTheItemAgain() {
        var r = room()
        #expect(lift(&r, mal, at: 0) == taken(mal))
        #expect(r.expireHolds(now: at(1_000)) == [expired(mal)])
        #expect(lift(&r, mal, at: 1_000) == refused(mal, .cooldown))
        #expect(lift(&r, mo, at: 2_999) == refused(mo, .cooldown), "another connection of the same address")
        #expect(lift(&r, mal, at: 3_000) == taken(mal), "the cooldown is over")
    }

    @Test func anyoneElseMayTakeAnExpiredItemWhenNobodyWasWaiting() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        _ = r.expireHolds(now: at(1_000))
        #expect(lift(&r, bo, at: 1_001) == taken(bo))
    }

    @Test func thoseRefusedWhileItWasHeldGoFirstInTheOrderTheyAsked() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        #expect(lift(&r, ada, at: 100) == refused(ada, .held, by: mal.id))
        #expect(lift(&r, bo, at: 200) == refused(bo, .held, by: mal.id))
        #expect(lift(&r, mo, at: 300) == refused(mo, .held, by: mal.id))
        #expect(lift(&r, ada, at: 400) == refused(ada, .held, by: mal.id), "asking again keeps Ada's place")
        #expect(r.turns.line(item("t1")).map(\.user) == [alice, bob, mo.id])
        #expect(r.expireHolds(now: at(1_000)) == [expired(mal)])
        #expect(r.turns.line(item("t1")).map(\.user) == [alice, bob], "an expiry takes the holder's address out")
        // Ada's turn: Bo waits, Mal's address cools down.
        #expect(lift(&r, bo, at: 1_000) == refused(bo, .cooldown, by: alice))
        #expect(lift(&r, mo, at: 1_000) == refused(mo, .cooldown))
        #expect(lift(&r, ada, at: 1_500) == taken(ada))
        // Then Bo's, when Ada's hold ends.
        #expect(r.expireHolds(now: at(2_500)) == [expired(ada)])
        #expect(lift(&r, mal, at: 3_000) == refused(mal, .cooldown, by: bob), "Mal's own cooldown is over, Bo is first")
        #expect(lift(&r, bo, at: 3_100) == taken(bo))
    }

    @Test func aTurnNotTakenInTimePassesToTheNextInLine() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        _ = lift(&r, ada, at: 100)
        _ = lift(&r, bo, at: 200)
        _ = r.expireHolds(now: at(1_000))
        #expect(lift(&r, bo, at: 2_999) == refused(bo, .cooldown, by: alice))
        #expect(lift(&r, ada, at: 3_000) == refused(ada, .cooldown, by: bob), "Ada's turn ran out: Bo's now")
        #expect(r.turns.line(item("t1")).map(\.user) == [bob, alice], "Ada asked again, at the back")
        #expect(lift(&r, bo, at: 4_000) == taken(bo))
    }

    @Test func aDropAlsoHandsTheItemToTheFirstInLine() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        #expect(
            r.handle(
                .drop(item: item("t1"), action: nil), from: mal.id, address: address(mal.id), now: at(10), wall: wall
            ).count == 1)
        #expect(lift(&r, mal, at: 20) == taken(mal), "dropping and lifting again harms nobody when nobody waits")
        _ = lift(&r, ada, at: 30)
        _ = r.handle(
            .drop(item: item("t1"), action: nil), from: mal.id, address: address(mal.id), now: at(40), wall: wall)
        #expect(lift(&r, mal, at: 50) == refused(mal, .cooldown, by: alice))
        #expect(lift(&r, ada, at: 60) == taken(ada))
    }

    @Test func twoPeopleBehindOneAddressWaitForEachOtherToo() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        #expect(lift(&r, mo, at: 10) == refused(mo, .held, by: mal.id))
        _ = r.handle(
            .drop(item: item("t1"), action: nil), from: mal.id, address: address(mal.id), now: at(20), wall: wall)
        #expect(lift(&r, mal, at: 30) == refused(mal, .cooldown, by: mo.id), "the turn is Mo's, not the address's")
        #expect(lift(&r, mo, at: 40) == taken(mo))
    }

    @Test func anOpRefusedForAHoldWaitsInLineLikeADragStart() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        let toggle = OpRequest(opID: opID("a1"), base: 0, op: .toggle(item: item("t1"), on: true))
        #expect(
            r.handle(.op(toggle), from: alice, address: address(alice), now: at(100), wall: wall)
                == [.send(alice, .reject(Rejection(.held, by: mal.id, opID: opID("a1")), seq: 0))])
        _ = r.expireHolds(now: at(1_000))
        #expect(lift(&r, bo, at: 1_000) == refused(bo, .cooldown, by: alice))
    }

    @Test func aLeaverLeavesTheLineAndTheNextGetsTheTurn() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        _ = lift(&r, ada, at: 100)
        _ = lift(&r, bo, at: 200)
        _ = r.expireHolds(now: at(1_000))
        _ = r.leave(alice, now: at(1_100))
        #expect(lift(&r, mal, at: 1_200) == refused(mal, .cooldown))
        #expect(r.turns.line(item("t1")).map(\.user) == [bob])
        #expect(lift(&r, bo, at: 1_300) == taken(bo))
    }

    @Test func liftingTheItemOneHoldsAgainIsRefusedAndTheHoldGoesOnUnchanged() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        #expect(lift(&r, mal, at: 900) == refused(mal, .held, by: mal.id))
        let hold = r.holds[item("t1")]
        #expect(hold?.by == mal.id && hold?.lastActive == at(0) && hold?.since == at(0))
        #expect(r.expireHolds(now: at(1_000)) == [expired(mal)], "the refused lift did not renew the idle timer")
    }

    @Test func oneAddressHoldsAtMostMaxHoldsPerAddressItems() {
        var r = room(maxHoldsPerAddress: 1)
        #expect(lift(&r, mal, "t1", at: 0) == taken(mal, "t1"))
        #expect(lift(&r, mo, "t2", at: 1) == refused(mo, .holdLimit, "t2"))
        #expect(
            lift(&r, mal, "t2", at: 2) == [
                .broadcast(.drop(item: item("t1"), by: mal.id, at: 0, reason: nil), except: nil),
                .broadcast(.dragStart(item: item("t2"), by: mal.id, at: 0), except: nil),
            ], "a user's own hold does not count against taking another")
        #expect(lift(&r, ada, "t3", at: 3) == taken(ada, "t3"), "other addresses are not affected")
        _ = r.handle(
            .drop(item: item("t2"), action: nil), from: mal.id, address: address(mal.id), now: at(4), wall: wall)
        #expect(lift(&r, mo, "t4", at: 5) == taken(mo, "t4"), "a hold given back frees a place")
        _ = r.leave(mo.id, now: at(6))
        #expect(lift(&r, mal, "t5", at: 7) == taken(mal, "t5"), "so does a leave")
    }

    @Test func theLineIsBoundedAndHoldsOneAskPerAddress() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        for n in 0..<20 {
            let user = User(id: UserID(number: UInt64(100 + n)), name: "n\(n)", color: "#555")
            _ = r.join(user, since: nil)
            #expect(lift(&r, user, at: Int64(10 + n)) == refused(user, .held, by: mal.id))
        }
        let line = r.turns.line(item("t1"))
        #expect(line.count == 8)
        #expect(Set(line.compactMap(\.address)).count == 8)
    }

    @Test func barsTurnsAndAsksAreForgottenOnceOver() {
        var r = room()
        _ = lift(&r, mal, at: 0)
        _ = lift(&r, ada, at: 100)
        _ = r.expireHolds(now: at(1_000))
        #expect(r.hasTimers)
        _ = r.expireHolds(now: at(3_000))
        #expect(!r.hasTimers, "Ada's turn ran out, and Mal's cooldown with it")
        _ = lift(&r, mal, "t2", at: 4_000)
        _ = lift(&r, bo, "t2", at: 4_100)
        _ = r.handle(
            .hover(item: item("t2"), over: nil, zone: nil, mode: nil), from: mal.id, address: address(mal.id),
            now: at(4_500), wall: wall)
        _ = r.expireHolds(now: at(5_000))
        #expect(r.turns.line(item("t2")).map(\.user) == [bob])
        _ = r.handle(
            .drop(item: item("t2"), action: nil), from: mal.id, address: address(mal.id), now: at(5_100), wall: wall)
        _ = r.expireHolds(now: at(7_100))
        #expect(!r.hasTimers)
    }
}
