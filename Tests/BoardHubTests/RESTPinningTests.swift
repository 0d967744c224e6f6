import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// REST ops on a stored board nobody is on (issue 29, finding 5): the board is loaded for them and
/// stays in memory until each is answered, so none is told the board does not exist.
@Suite struct RESTPinningTests {
    static func post(_ h: HubHarness, _ n: UInt64, _ op: String) -> [Hub.Action] {
        h.on(
            .request(
                ExchangeID(n),
                HTTPRequest(
                    method: .post, path: "/api/boards/demo/ops", body: Array(op.utf8), contentType: "application/json",
                    peer: "10.0.0.\(n)")))
    }

    static func statuses(_ actions: [Hub.Action]) -> [UInt64: Int] {
        Dictionary(responses(in: actions).map { ($0.0.rawValue, $0.1.status) }) { a, _ in a }
    }

    @Test func opsQueuedBehindALoadAreAllAnsweredWhenTheFirstIsRefused() throws {
        let h = HubHarness()
        let stored = Room(board: .defaultTemplate(id: board("demo")), seq: 0, settings: Room.Settings())
        let (load, request) = try #require(
            h.read(in: Self.post(h, 1, #"{"type":"toggle","op":"bad","base":0,"item":"nope","on":true}"#)))
        #expect(request == .load(board("demo"), Room.Settings(), .any))
        #expect(Self.post(h, 2, #"{"type":"toggle","op":"ok","base":0,"item":"t1","on":true}"#).isEmpty)
        let loaded = h.on(.answered(load, .room(stored)))
        #expect(Self.statuses(loaded) == [1: 409], "the refusal at once; the valid op waits to be durable")
        #expect(h.hub.boardCount == 1)
        #expect(Self.statuses(h.makeDurable()) == [2: 200])
        #expect(h.hub.boardCount == 0, "answered: the board leaves memory")
    }

    @Test func aRestoreOnABoardNotInMemoryKeepsItLoadedUntilItIsAnswered() throws {
        let h = HubHarness()
        let template = Board.defaultTemplate(id: board("demo"))
        var changed = template
        changed.apply(.toggle(item: ItemID("t1")!, on: true))
        let ops = [
            CommittedOp(
                seq: 1, opID: OpID("t")!, by: UserID(number: 9), op: .toggle(item: ItemID("t1")!, on: true),
                time: UnixTime(milliseconds: 1))
        ]
        let stored = Room(board: changed, seq: 1, recent: ops, settings: Room.Settings())
        let (load, _) = try #require(h.read(in: Self.post(h, 1, #"{"type":"restore","op":"r","base":1,"to":0}"#)))
        let (boardAt, request) = try #require(h.read(in: h.on(.answered(load, .room(stored)))))
        #expect(request == .boardAt(board("demo"), 0, .any))
        #expect(h.hub.boardCount == 1, "kept while its read is out")
        let read = h.on(.answered(boardAt, .boardAsOf(.board(template, time: nil), bytes: 100)))
        #expect(responses(in: read).isEmpty)
        let durable = h.makeDurable()
        #expect(Self.statuses(durable) == [1: 200])
        #expect(h.hub.boardCount == 0)
    }
}
