import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// `WriteFailures` alone, without the hub: from a failure, what its tickets left and the room in
/// memory, which exchanges get 503, whether the board is dropped and why; from a drop, whose ops
/// are lost and who is told, and who is closed with which code.
@Suite struct WriteFailuresTests {
    let demo = board("demo")
    let wall = UnixTime(milliseconds: 1_700_000_000_000)
    let ann = UserID("u1")
    let bob = UserID("u2")

    /// A room of the default template with Ann and Bob on it, and one op of each applied but not
    /// published (seq 1 and 2): the ops a failed append would carry.
    func roomWithUnpublishedOps() -> (Room, [CommittedOp]) {
        var room = Room(board: .defaultTemplate(id: demo))
        _ = room.join(User(id: ann, name: "Ann", color: "#111"), since: nil)
        _ = room.join(User(id: bob, name: "Bob", color: "#222"), since: nil)
        for (user, op, item) in [(ann, "a-1", "t1"), (bob, "b-1", "t2")] {
            let request = OpRequest(opID: OpID(op)!, base: 0, op: .toggle(item: ItemID(item)!, on: true))
            _ = room.handle(.op(request), from: user, now: Instant(milliseconds: 0), wall: wall)
        }
        let ops = room.sequencer.ops(after: 0).map(Array.init) ?? []
        return (room, ops)
    }

    func failure(_ writes: [StoreWrite], tickets: [Ticket] = [], kind: StoreError.Kind = .permanent) -> Hub.WriteFailure
    {
        Hub.WriteFailure(board: demo, writes: writes, tickets: tickets, reason: "disk full", kind: kind)
    }

    func withoutLogs(_ actions: [WriteFailures.Action]) -> [WriteFailures.Action] {
        actions.filter { if case .log = $0 { false } else { true } }
    }

    @Test func aFailedAppendOfTheRoomsUnpublishedOpsDropsTheBoardFor1011() {
        let (room, ops) = roomWithUnpublishedOps()
        #expect(ops.count == 2 && room.visibleSeq == 0)
        let actions = WriteFailures.failed(failure([.append(demo, ops)]), tickets: [], room: room)
        #expect(actions == [.drop(demo, .writeFailed)])
    }

    @Test func theExchangesWaitingForAFailedWriteGet503AndALostCreationDropsTheBoard() {
        let room = Room(board: .defaultTemplate(id: demo))
        let x1 = ExchangeID(1)
        let x2 = ExchangeID(2)
        let tickets = [
            PendingWrites.Failed(creationLost: true, exchange: x1),
            PendingWrites.Failed(creationLost: false, exchange: nil),
            PendingWrites.Failed(creationLost: false, exchange: x2),
        ]
        let actions = WriteFailures.failed(failure([.create(room.published)]), tickets: tickets, room: room)
        #expect(withoutLogs(actions) == [.unavailable(x1), .unavailable(x2), .drop(demo, .writeFailed)])
        #expect(
            actions.first == .log(.warning, "\(x1): a write of board demo could not be stored; answering 503"),
            "each 503 is logged before it goes out")
    }

    @Test func aBoardNotInMemoryIsNotDroppedButItsExchangesStillGet503() {
        let x1 = ExchangeID(1)
        let tickets = [PendingWrites.Failed(creationLost: true, exchange: x1)]
        let fenced = WriteFailures.failed(
            failure([.delete(demo)], tickets: [], kind: .fenced), tickets: tickets, room: nil)
        #expect(withoutLogs(fenced) == [.unavailable(x1)])
    }

    @Test func aFencedWriteDropsTheBoardFor1012WhateverRoomItsWritesWereOf() {
        let room = Room(board: .defaultTemplate(id: demo))  // Nothing unpublished: an earlier room's writes.
        let (_, ops) = roomWithUnpublishedOps()
        let actions = WriteFailures.failed(failure([.append(demo, ops)], kind: .fenced), tickets: [], room: room)
        #expect(
            actions == [.log(.warning, "board demo: this node's lease is gone (fenced write)"), .drop(demo, .moved)])
    }

    @Test func failedWritesOfAnEarlierRoomLeaveTheBoardInMemory() {
        let (_, ops) = roomWithUnpublishedOps()
        // The room in memory now is a fresh one: the same seqs are not its ops (other op ids).
        var later = Room(board: .defaultTemplate(id: demo))
        _ = later.join(User(id: ann, name: "Ann", color: "#111"), since: nil)
        let request = OpRequest(opID: OpID("a-9")!, base: 0, op: .toggle(item: ItemID("t3")!, on: true))
        _ = later.handle(.op(request), from: ann, now: Instant(milliseconds: 0), wall: wall)
        #expect(!WriteFailures.isUnpublished(ops[0], in: later))
        #expect(WriteFailures.isUnpublished(later.sequencer.ops(after: 0)!.first!, in: later))
        let actions = WriteFailures.failed(failure([.append(demo, ops)]), tickets: [], room: later)
        #expect(withoutLogs(actions) == [], "the board in memory stays")
        guard case .log(.debug, _)? = actions.first else {
            Issue.record("expected a debug line, got \(actions)")
            return
        }
        // A published op is not lost either.
        var published = later
        _ = published.markDurable(upTo: 1)
        #expect(!WriteFailures.isUnpublished(later.sequencer.ops(after: 0)!.first!, in: published))
    }

    @Test func aDroppedBoardTellsEachLostOpsSenderStillOnItAndClosesEveryoneWith1011() {
        let (room, _) = roomWithUnpublishedOps()
        let (a, b, c) = (ConnectionID(1), ConnectionID(2), ConnectionID(3))
        // Bob has left: only Ann hears of her op; everyone still on the board is closed.
        let on: [UserID: ConnectionID] = [ann: a]
        let actions = WriteFailures.drop(demo, because: .writeFailed, room: room, members: [a, c]) { on[$0] }
        let text = "this op could not be stored and was not applied; reconnect for the board as stored"
        #expect(
            withoutLogs(actions) == [
                .lost(a, ProtocolError(.unavailable, text, opID: "a-1")),
                .close(a, code: 1011, reason: "board unavailable"),
                .close(c, code: 1011, reason: "board unavailable"),
            ])
        #expect(
            actions.first
                == .log(
                    .error,
                    "dropping board demo from memory: 2 op(s) after seq 0 were not stored; closing its 2 connection(s) with 1011"
                ))
        #expect(!actions.contains { if case .lost(b, _) = $0 { true } else { false } })
    }

    @Test func aBoardThatMovedClosesEveryoneWith1012AndSaysTheOpMayHaveBeenStored() {
        let (room, _) = roomWithUnpublishedOps()
        let (a, b) = (ConnectionID(1), ConnectionID(2))
        let on: [UserID: ConnectionID] = [ann: a, bob: b]
        let actions = WriteFailures.drop(demo, because: .moved, room: room, members: [a, b]) { on[$0] }
        let text =
            "the board moved to another node before this op was stored; reconnect (with since) to see whether it was"
        let reason = "board moved to another node; reconnect"
        #expect(
            withoutLogs(actions) == [
                .lost(a, ProtocolError(.unavailable, text, opID: "a-1")),
                .lost(b, ProtocolError(.unavailable, text, opID: "b-1")),
                .close(a, code: 1012, reason: reason), .close(b, code: 1012, reason: reason),
            ])
        guard case .log(.warning, _)? = actions.first else {
            Issue.record("expected a warning first, got \(actions)")
            return
        }
    }
}
