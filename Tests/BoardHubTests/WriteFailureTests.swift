import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// What the hub does when the store cannot write a board's writes and never will: the senders of
/// the lost ops hear so, everyone on the board is closed with 1011, the board leaves memory, the
/// HTTP answers waiting for those writes get 503, and nothing undurable is ever broadcast.
@Suite struct WriteFailureTests {
    let x1 = ExchangeID(101)

    /// The writes to `board` persisted since action `mark`, as the writer reports a failure of them.
    func failure(_ h: HubHarness, of board: BoardID, since mark: Int) -> Hub.WriteFailure {
        var writes: [StoreWrite] = []
        var tickets: [Ticket] = []
        for case .persist(let write, let ticket) in h.log[mark...] {
            let written: BoardID
            switch write {
            case .create(let b): written = b.id
            case .append(let id, _), .delete(let id): written = id
            case .restore(let archive): written = archive.id
            }
            guard written == board else { continue }
            writes.append(write)
            if let ticket { tickets.append(ticket) }
        }
        return Hub.WriteFailure(board: board, writes: writes, tickets: tickets, reason: "UNIQUE constraint failed")
    }

    func toggle(_ op: String, base: Int = 0, item: String = "t1") -> String {
        #"{"type":"toggle","op":"\#(op)","base":\#(base),"item":"\#(item)","on":true}"#
    }

    func committed(in actions: [Hub.Action]) -> [ServerMessage] {
        actions.compactMap { if case .broadcast(let m, _, _) = $0, case .committed = m { m } else { nil } }
    }

    @Test func aFailedBoardTellsTheSendersOfItsLostOpsClosesEveryoneWith1011AndLeavesMemory() {
        let h = HubHarness()
        let (a, b, c) = (h.open(1), h.open(2), h.open(3))
        h.joinNew(a)
        h.hello(b, name: "Bo")
        h.joinNew(c, board: "other", name: "Cy")
        h.makeDurable()
        let mark = h.log.count
        h.send(a, toggle("a-1"))
        h.send(b, toggle("b-1", item: "t2"))
        h.send(c, toggle("c-1"))
        let actions = h.on(.writeFailed(failure(h, of: board("demo"), since: mark)))

        #expect(committed(in: actions).isEmpty, "nothing that is not durable is broadcast")
        #expect(types(messages(to: a, in: actions)) == ["error:unavailable"])
        #expect(types(messages(to: b, in: actions)) == ["error:unavailable"])
        let lost = actions.compactMap { action -> String? in
            if case .send(_, .error(let e)) = action { e.opID } else { nil }
        }
        #expect(lost == ["a-1", "b-1"])
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 1011], [2, 1011]])
        #expect(closes(in: actions).allSatisfy { $0.2 }, "each error goes out before its close")
        #expect(messages(to: c, in: actions).isEmpty && h.hub.boardCount == 1)

        // The other board is untouched: its op is published once durable.
        let durable = h.on(.durable(seqs: [board("other"): 1], tickets: []))
        #expect(types(messages(to: c, in: durable)) == ["toggle"])
        // What the failed connections send while they close is ignored.
        #expect(h.send(a, toggle("a-2", item: "t3")).isEmpty)
        // The board is read afresh from the store on the next hello.
        let d = h.open(4)
        guard let (read, request) = h.read(in: h.hello(d)) else { return }
        #expect(request == .load(board("demo"), Room.Settings(), .any))
        #expect(
            types(messages(to: d, in: h.on(.answered(read, .room(Room(board: .defaultTemplate(id: board("demo"))))))))
                == ["welcome"])
    }

    @Test func opsCheckedAgainstAFailedOpAreLostWithIt() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        h.makeDurable()
        let mark = h.log.count
        h.send(a, toggle("a-1"))
        h.send(a, toggle("a-2", base: 1, item: "t1"))
        // Only the batch with the first op has failed so far; the second is still queued.
        var first = failure(h, of: board("demo"), since: mark)
        first.writes = Array(first.writes.prefix(1))
        let actions = h.on(.writeFailed(first))
        let lost = actions.compactMap { action -> String? in
            if case .send(_, .error(let e)) = action { e.opID } else { nil }
        }
        #expect(lost == ["a-1", "a-2"])
        #expect(closes(in: actions).map(\.1) == [1011])
    }

    @Test func theFailureOfAnEarlierRoomLeavesTheReloadedBoardAlone() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        h.makeDurable()
        let mark = h.log.count
        h.send(a, toggle("a-1"))
        let firstBatch = h.log.count
        h.send(a, toggle("a-2", base: 1, item: "t2"))
        // a-1 fails: the board is dropped while a-2 is still queued behind it.
        var first = failure(h, of: board("demo"), since: mark)
        first.writes = Array(first.writes.prefix(1))
        h.on(.writeFailed(first))
        h.on(.closed(a))
        // Reloaded at the durable seq 0; Bo commits new ops 1 and 2.
        let b = h.open(2)
        guard let (read, _) = h.read(in: h.hello(b, name: "Bo")) else { return }
        h.on(.answered(read, .room(Room(board: .defaultTemplate(id: board("demo"))))))
        h.send(b, toggle("b-1", item: "t3"))
        h.send(b, toggle("b-2", item: "t4"))
        // Now the stale a-2 (seq 2 of the dropped room) fails too: the new room's seq 2 is
        // another op, so the new room is not affected.
        let stale = failure(h, of: board("demo"), since: firstBatch).writes.prefix(1)
        let actions = h.on(
            .writeFailed(Hub.WriteFailure(board: board("demo"), writes: Array(stale), tickets: [], reason: "seq")))
        #expect(messages(to: b, in: actions).isEmpty && closes(in: actions).isEmpty)
        #expect(h.hub.boardCount == 1)
        let published = h.on(.durable(seqs: [board("demo"): 2], tickets: []))
        #expect(types(messages(to: b, in: published)) == ["toggle", "toggle"])
    }

    @Test func aFailedCreateAnswers503AndDropsTheBoardItWasToHold() {
        let h = HubHarness()
        let body =
            #"{"id":"b1","title":"One","columns":2,"zones":[{"id":"grid","items":[{"label":"A","color":"white"}]}]}"#
        let mark = h.log.count
        let asked = h.on(
            .request(
                x1,
                HTTPRequest(method: .post, path: "/api/boards", body: Array(body.utf8), contentType: "application/json")
            ))
        guard let (read, _) = h.read(in: asked) else { return }
        h.on(.answered(read, .exists(false)))
        #expect(h.hub.boardCount == 1)
        let actions = h.on(.writeFailed(failure(h, of: board("b1"), since: mark)))
        #expect(responses(in: actions).map(\.1.status) == [503])
        #expect(h.hub.boardCount == 0, "the store does not have it, so memory must not either")
    }

    @Test func aFailedTemplateCreateClosesTheJoinerWith1011() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a, board: "fresh")
        let mark = h.log.count
        // A template board is stored with its first op: that write fails.
        h.send(a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        let actions = h.on(.writeFailed(failure(h, of: board("fresh"), since: mark)))
        #expect(closes(in: actions).map(\.1) == [1011])
        #expect(h.hub.boardCount == 0)
    }

    @Test func aFailedDeleteAnswers503AndTheBoardCanBeLoadedAgain() {
        let h = HubHarness()
        h.joinNew(h.open(1), board: "b1")
        h.makeDurable()
        let mark = h.log.count
        h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1")))
        let actions = h.on(.writeFailed(failure(h, of: board("b1"), since: mark)))
        #expect(responses(in: actions).map(\.1.status) == [503])
        let c = h.open(2)
        guard let (_, request) = h.read(in: h.hello(c, board: "b1")) else { return }
        #expect(
            request == .load(board("b1"), Room.Settings(), .any),
            "no longer being deleted")
    }

    @Test func pastMaxUnstoredOpsANewOpIsRefusedAtOnceAndTheWaitingOnesCommitOnceDurable() {
        let h = HubHarness { $0.maxUnstoredOps = 3 }
        let (a, b) = (h.open(1), h.open(2))
        h.joinNew(a)
        h.hello(b, name: "Bo")
        h.makeDurable()
        // The store is failing: nothing becomes durable, three ops wait.
        for n in 1...3 { #expect(committed(in: h.send(a, toggle("w-\(n)", item: "t\(n)"))).isEmpty) }
        let refused = h.send(a, toggle("w-4", item: "t4"))
        let errors = refused.compactMap { action -> ProtocolError? in
            if case .send(a, .error(let e)) = action { e } else { nil }
        }
        #expect(errors.map(\.code) == [.unavailable] && errors.first?.opID == "w-4")
        #expect(!refused.contains { if case .persist = $0 { true } else { false } }, "not applied, not written")
        #expect(closes(in: refused).isEmpty, "the connection stays open")
        // A drop with an action still drops, without the op.
        h.send(b, #"{"type":"dragStart","item":"t9"}"#)
        let drop = #"{"type":"drop","item":"t9","op":"b-1","base":0,"action":{"type":"swap","with":"t10"}}"#
        let dropped = h.send(b, drop)
        #expect(types(messages(to: b, in: dropped)).contains("error:unavailable"))
        #expect(!dropped.contains { if case .persist = $0 { true } else { false } })
        // Once the store writes again, the three waiting ops are published in order.
        let durable = h.on(.durable(seqs: [board("demo"): 3], tickets: []))
        let seqs = committed(in: durable).compactMap { m -> Int? in
            if case .committed(let op) = m { op.seq } else { nil }
        }
        #expect(seqs == [1, 2, 3])
        // And ops are taken again.
        let again = h.send(a, toggle("w-4", item: "t4"))
        #expect(!again.contains { if case .send(_, .error) = $0 { true } else { false } })
        #expect(again.contains { if case .persist = $0 { true } else { false } })
    }
}
