import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Issue 21 through the hub: a restore waits for the board as of its seq from the store (a read,
/// never on the service thread), is checked again when it comes, and is then one numbered op,
/// durable before visible; the history routes are reads encoded off the service thread.
@Suite struct HistoryHubTests {
    let template = Board.defaultTemplate(id: board("demo"))

    /// Ada and Bo on `demo`, after Ada's swap (seq 1, durable).
    func twoOnABoardWithOneOp() -> (HubHarness, ConnectionID, ConnectionID) {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        h.send(ada, #"{"type":"swap","op":"s1","base":0,"a":"t1","b":"t2"}"#)
        h.makeDurable()
        return (h, ada, bo)
    }

    @Test func aRestoreReadsTheBoardAsOfItsSeqThenCommitsOneDurableOp() throws {
        let (h, ada, bo) = twoOnABoardWithOneOp()
        let sent = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)
        let (read, request) = try #require(h.read(in: sent))
        #expect(request == .boardAt(board("demo"), 0, .any))
        #expect(messages(to: ada, in: sent).isEmpty)
        let answered = h.on(.answered(read, .boardAsOf(.board(template, time: nil), bytes: 1000)))
        let persisted = answered.compactMap { action -> [CommittedOp]? in
            if case .persist(.append(_, let ops), _) = action { return ops }
            return nil
        }.flatMap { $0 }
        #expect(persisted.map(\.seq) == [2])
        #expect(persisted.first?.op == .restore(to: 0, board: template))
        #expect(persisted.first?.name == "Ada")
        #expect(messages(to: bo, in: answered).isEmpty, "not before durable")
        let durable = h.makeDurable()
        for id in [ada, bo] {
            guard case .committed(let op) = messages(to: id, in: durable).first else {
                Issue.record("no restore for \(id)")
                continue
            }
            #expect(op.seq == 2 && op.op == .restore(to: 0, board: template))
        }
        // Resent: acknowledged, no read.
        let again = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)
        #expect(types(messages(to: ada, in: again)) == ["ack"])
    }

    @Test func aRestoreToTheVisibleSeqNeedsNoRead() {
        let (h, ada, bo) = twoOnABoardWithOneOp()
        let sent = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":1}"#)
        #expect(!sent.contains { if case .read = $0 { true } else { false } })
        #expect(types(messages(to: bo, in: h.makeDurable())) == ["restore"])
    }

    @Test func aRestoreIsHeldWhileAnotherUserHoldsAnItemBeforeOrAfterTheRead() throws {
        let (h, ada, bo) = twoOnABoardWithOneOp()
        h.send(bo, #"{"type":"dragStart","item":"t7"}"#)
        let refused = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)
        #expect(types(messages(to: ada, in: refused)).last == "reject:held")
        h.send(bo, #"{"type":"drop","item":"t7"}"#)
        let sent = h.send(ada, #"{"type":"restore","op":"r2","base":1,"to":0}"#)
        let (read, _) = try #require(h.read(in: sent))
        // Bo takes a card while the store is read: the restore is checked again, and refused.
        h.send(bo, #"{"type":"dragStart","item":"t3"}"#)
        let answered = h.on(.answered(read, .boardAsOf(.board(template, time: nil), bytes: 1000)))
        #expect(types(messages(to: ada, in: answered)) == ["reject:held"])
        #expect(!answered.contains { if case .persist = $0 { true } else { false } })
    }

    @Test func aRestoreOfACompactedSeqIsRefusedCompacted() throws {
        let (h, ada, _) = twoOnABoardWithOneOp()
        let sent = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)
        let (read, _) = try #require(h.read(in: sent))
        let answered = h.on(.answered(read, .boardAsOf(.compacted(oldest: 1), bytes: 0)))
        #expect(types(messages(to: ada, in: answered)) == ["reject:compacted"])
    }

    @Test func aFailedReadIsAnErrorNamingTheOpAndARestoreWhoseSenderLeftIsDropped() throws {
        let (h, ada, bo) = twoOnABoardWithOneOp()
        let first = try #require(h.read(in: h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)))
        let failed = h.on(.answered(first.0, .failed(StoreError("disk on fire"))))
        guard case .error(let error) = messages(to: ada, in: failed).first else {
            Issue.record("no error in \(failed)")
            return
        }
        #expect(error.code == .unavailable && error.opID == "r1")
        let second = try #require(h.read(in: h.send(bo, #"{"type":"restore","op":"r2","base":1,"to":0}"#)))
        h.on(.closed(bo))
        let answered = h.on(.answered(second.0, .boardAsOf(.board(template, time: nil), bytes: 1000)))
        #expect(!answered.contains { if case .persist = $0 { true } else { false } })
    }

    @Test func aRestoreIsChargedAgainstTheSendersOpRateByItsBoardsSize() throws {
        let (h, ada, _) = twoOnABoardWithOneOp()
        let sent = h.send(ada, #"{"type":"restore","op":"r1","base":1,"to":0}"#)
        let (read, _) = try #require(h.read(in: sent))
        // 200 ops of a 100/s rate (bursts of 200): the budget of two seconds, and more.
        h.on(.answered(read, .boardAsOf(.board(template, time: nil), bytes: 2048 * 250)))
        h.makeDurable()
        let next = h.send(ada, #"{"type":"toggle","op":"t1","base":2,"item":"t1","on":true}"#)
        #expect(types(messages(to: ada, in: next)) == ["error:rate_limited"])
        h.now = h.now + 3_000
        let later = h.send(ada, #"{"type":"toggle","op":"t2","base":2,"item":"t1","on":true}"#)
        #expect(later.contains { if case .persist = $0 { true } else { false } })
    }

    @Test func atAndHistoryAreReadsAnsweredFromTheStore() throws {
        let h = HubHarness()
        let store = MemoryStore()
        var b = template
        try store.write([.create(b)])
        var ops: [CommittedOp] = []
        for seq in 1...3 {
            let op = CommittedOp(
                seq: seq, opID: OpID("o\(seq)")!, by: UserID("u1"), op: .toggle(item: ItemID("t1")!, on: seq % 2 == 1),
                time: UnixTime(milliseconds: Int64(1000 * seq)), name: "Ann")
            ops.append(op)
        }
        try store.write([.append(board("demo"), ops)])
        func get(_ target: String, _ query: [String: String]) -> HTTPResponse? {
            let actions = h.on(
                .request(ExchangeID(UInt64(query.count + 7)), HTTPRequest(method: .get, path: target, query: query)))
            if let answer = responses(in: actions).first { return answer.1 }
            guard let (id, read) = h.read(in: actions) else { return nil }
            return responses(in: h.on(.answered(id, read.run(on: store)))).first?.1
        }
        let at = try #require(get("/api/boards/demo", ["at": "1"]))
        b.apply(ops[0].op)
        let json = try JSON.parse(at.body)
        #expect(at.status == 200 && json["seq"]?.intValue == 1 && json["time"]?.intValue == 1000)
        #expect(try Board(json: json["board"]!) == b)
        #expect(get("/api/boards/demo", ["at": "4"])?.status == 404, "after the board's seq: unknown_seq")
        #expect(get("/api/boards/demo", ["at": "-1"])?.status == 400)
        #expect(get("/api/boards/demo", ["at": "x"])?.status == 400)
        #expect(get("/api/boards/nope", ["at": "0"])?.status == 404)
        let history = try #require(get("/api/boards/demo/history", ["limit": "2"]))
        let page = try JSON.parse(history.body)
        #expect(page["history"]?.arrayValue?.compactMap { $0["seq"]?.intValue } == [3, 2])
        #expect(page["history"]?.arrayValue?.first?["by"]?["name"]?.stringValue == "Ann")
        #expect(page["more"] == .bool(true) && page["next"]?.intValue == 2)
        #expect(get("/api/boards/demo/history", ["limit": "0"])?.status == 400)
        #expect(get("/api/boards/demo/history", ["before": "0"])?.status == 400)
    }
}
