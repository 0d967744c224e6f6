import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// The session rules: phases, hello, loading a board off the service thread, leaving, closing.
@Suite struct SessionTests {
    @Test func anythingButHelloBeforeJoiningGetsNotJoinedAndTheConnectionStays() {
        let h = HubHarness()
        let c = h.open(1)
        let actions = h.send(c, #"{"type":"dragStart","item":"t1"}"#)
        #expect(types(messages(to: c, in: actions)) == ["error:not_joined"])
        #expect(closes(in: actions).isEmpty)
    }

    @Test func pingIsAnsweredInEveryPhase() {
        let h = HubHarness()
        let c = h.open(1)
        #expect(types(messages(to: c, in: h.send(c, #"{"type":"ping"}"#))) == ["pong"])
        h.hello(c)  // Now joining: the board is being read.
        #expect(types(messages(to: c, in: h.send(c, #"{"type":"ping"}"#))) == ["pong"])
    }

    @Test func malformedMessagesGetAnErrorAndTheConnectionStays() {
        let h = HubHarness()
        let c = h.open(1)
        let actions = h.send(c, "{not json")
        #expect(types(messages(to: c, in: actions)) == ["error:bad_json"])
        #expect(closes(in: actions).isEmpty)
    }

    @Test func helloReadsTheBoardFromTheStoreAndWelcomesOnceItIsIn() {
        let h = HubHarness()
        let c = h.open(1)
        let asked = h.hello(c)
        #expect(messages(to: c, in: asked).isEmpty, "nothing before the store answers")
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .load(board("demo"), Room.Settings(), .any))
        var stored = Board.defaultTemplate(id: board("demo"))
        stored.apply(.swap(a: ItemID("t1")!, b: ItemID("t2")!))
        let answered = h.on(.answered(read, .room(Room(board: stored, seq: 7))))
        guard case .welcome(let welcome)? = messages(to: c, in: answered).first else {
            Issue.record("no welcome in \(answered)")
            return
        }
        #expect(welcome.seq == 7 && welcome.state == .board(stored))
        #expect(!answered.contains { if case .persist = $0 { true } else { false } }, "a stored board is not created")
    }

    @Test func helloOnAnUnknownBoardCreatesItFromTheTemplateAndStoresItWithItsFirstOp() {
        let h = HubHarness()
        let c = h.open(1)
        let actions = h.joinNew(c)
        #expect(types(messages(to: c, in: actions)) == ["welcome"])
        #expect(!actions.contains { if case .persist = $0 { true } else { false } }, "nothing stored yet")
        let first = h.send(c, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        guard first.count == 2, case .persist(.create(let created), _?) = first[0],
            case .persist(.append(_, let ops), nil) = first[1]
        else {
            Issue.record("\(first)")
            return
        }
        #expect(created == .defaultTemplate(id: board("demo")) && ops.map(\.seq) == [1])
        let second = h.send(c, #"{"type":"toggle","op":"o2","base":1,"item":"t2","on":true}"#)
        #expect(second.count == 1, "created once")
    }

    @Test func helloOnAnUnknownBoardWithCreationOffGetsUnknownBoardThen4404() {
        let h = HubHarness { $0.createBoards = false }
        let c = h.open(1)
        guard let (read, _) = h.read(in: h.hello(c, board: "nope")) else { return }
        let actions = h.on(.answered(read, .room(nil)))
        #expect(types(messages(to: c, in: actions)) == ["error:unknown_board"])
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4404]])
        #expect(closes(in: actions).first?.2 == true, "the error is flushed before the close")
    }

    @Test func aStoreFailureOnLoadGetsUnavailableThen1011() {
        let h = HubHarness()
        let c = h.open(1)
        guard let (read, _) = h.read(in: h.hello(c)) else { return }
        let actions = h.on(.answered(read, .failed(StoreError("disk on fire"))))
        #expect(types(messages(to: c, in: actions)) == ["error:unavailable"])
        #expect(closes(in: actions).map(\.1) == [1011])
    }

    @Test func twoHellosForOneBoardShareOneRead() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        let first = h.hello(a)
        let second = h.hello(b, name: "Bo")
        #expect(h.read(in: first) != nil)
        #expect(!second.contains { if case .read = $0 { true } else { false } }, "the second waits for the first read")
        guard let (read, _) = h.read(in: first) else { return }
        let actions = h.on(.answered(read, .room(nil)))
        #expect(types(messages(to: a, in: actions)) == ["welcome", "join"])
        #expect(types(messages(to: b, in: actions)) == ["welcome"])
        #expect(h.hub.boardCount == 1)
    }

    @Test func aLoadedBoardIsJoinedWithoutTheStore() {
        let h = HubHarness()
        h.joinNew(h.open(1))
        let b = h.open(2)
        let actions = h.hello(b, name: "Bo")
        #expect(!actions.contains { if case .read = $0 { true } else { false } })
        #expect(types(messages(to: b, in: actions)) == ["welcome"])
    }

    @Test func messagesSentWhileTheBoardLoadsAreHandledInOrderAfterTheWelcome() {
        let h = HubHarness()
        let c = h.open(1)
        let asked = h.hello(c)
        #expect(h.send(c, #"{"type":"dragStart","item":"t1"}"#).isEmpty)
        #expect(h.send(c, #"{"type":"swap","op":"o1","base":0,"a":"t3","b":"t4"}"#).isEmpty)
        guard let (read, _) = h.read(in: asked) else { return }
        var actions = h.on(.answered(read, .room(nil)))
        actions += h.makeDurable()
        #expect(types(messages(to: c, in: actions)) == ["welcome", "dragStart", "swap"])
    }

    @Test func tooManyMessagesWhileTheBoardLoadsClosesWith1008() {
        let h = HubHarness { $0.maxMessagesWhileJoining = 2 }
        let c = h.open(1)
        h.hello(c)
        h.send(c, #"{"type":"dragStart","item":"t1"}"#)
        h.send(c, #"{"type":"dragStart","item":"t1"}"#)
        let actions = h.send(c, #"{"type":"dragStart","item":"t1"}"#)
        #expect(closes(in: actions).map(\.1) == [1008])
    }

    @Test func aSecondHelloGetsAlreadyJoinedWhileLoadingAndOnceJoined() {
        let h = HubHarness()
        let c = h.open(1)
        let asked = h.hello(c)
        #expect(types(messages(to: c, in: h.hello(c, board: "other"))) == ["error:already_joined"])
        guard let (read, _) = h.read(in: asked) else { return }
        h.on(.answered(read, .room(nil)))
        let again = h.hello(c)
        #expect(types(messages(to: c, in: again)) == ["error:already_joined"])
        #expect(closes(in: again).isEmpty)
    }

    @Test func aConnectionThatClosesWhileItsBoardLoadsNeverJoins() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        let asked = h.hello(a)
        h.hello(b, name: "Bo")
        h.on(.closed(a))
        guard let (read, _) = h.read(in: asked) else { return }
        let actions = h.on(.answered(read, .room(nil)))
        #expect(messages(to: a, in: actions).isEmpty)
        guard case .welcome(let welcome)? = messages(to: b, in: actions).first else {
            Issue.record("\(actions)")
            return
        }
        #expect(welcome.users.map(\.name) == ["Bo"])
    }

    @Test func closingLeavesTheBoardAndTheHoldEndsWithReasonLeft() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        h.joinNew(a)
        h.hello(b, name: "Bo")
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        let actions = h.on(.closed(a))
        #expect(types(messages(to: b, in: actions)) == ["drop:left", "leave"])
    }

    @Test func aTemplateBoardNobodyChangedLeavesNothingBehind() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        let left = h.on(.closed(a))
        #expect(h.hub.boardCount == 0)
        #expect(!h.log.contains { if case .persist = $0 { true } else { false } })
        #expect(left.isEmpty)
    }

    @Test func aNewBoardIsForgottenOnlyOnceItsCreationIsDurable() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        h.on(.closed(a))
        #expect(h.hub.boardCount == 1, "the create is not durable yet")
        h.makeDurable()
        #expect(h.hub.boardCount == 0)
        // The next hello reads it from the store again.
        let b = h.open(2)
        #expect(h.read(in: h.hello(b)) != nil)
    }

    @Test func aCreateQueuedButNotDurableCountsAsExisting() {
        // A hello makes X, an op stores it, the client resets before the write is durable; a
        // POST of X must not answer 201 for a board the store will keep as the template.
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a, board: "x")
        h.send(a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        h.on(.closed(a))
        let body = #"{"id":"x","title":"Mine","columns":1,"zones":[{"id":"grid","items":[]}]}"#
        let posted = h.on(
            .request(
                ExchangeID(9),
                HTTPRequest(method: .post, path: "/api/boards", body: Array(body.utf8), contentType: "application/json")
            ))
        #expect(responses(in: posted).map(\.1.status) == [409])
    }

    /// Found by the `hub` fuzz target: a board loaded for a `hello` whose connection closed while
    /// the store read it stayed in memory with nobody on it, for ever, counting against
    /// `--max-boards` (10,000 of them and every other board gets 1013).
    @Test func aBoardLoadedForAConnectionThatLeftMeanwhileIsForgotten() {
        let h = HubHarness()
        let a = h.open(1)
        guard let (read, _) = h.read(in: h.hello(a, board: "b1")) else { return }
        h.on(.closed(a))
        h.on(.answered(read, .room(Room(board: .defaultTemplate(id: board("b1")), seq: 3))))
        #expect(h.hub.boardCount == 0)
        // The same when the hub itself closed the joining connection (here: shutdown).
        let b = h.open(2)
        guard let (again, _) = h.read(in: h.hello(b, board: "b2")) else { return }
        h.on(.shutdown)
        h.on(.answered(again, .room(Room(board: .defaultTemplate(id: board("b2")), seq: 3))))
        #expect(h.hub.boardCount == 0)
    }

    @Test func anEmptyBoardWaitsForItsOpsToBeDurableBeforeItIsForgotten() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        h.makeDurable()
        h.send(a, #"{"type":"swap","op":"o1","base":0,"a":"t1","b":"t2"}"#)
        h.on(.closed(a))
        #expect(h.hub.boardCount == 1)
        h.makeDurable()
        #expect(h.hub.boardCount == 0)
    }

    @Test func committedOpsCarryTheWallClockAndGoOutOnceDurable() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        h.joinNew(a)
        h.hello(b, name: "Bo")
        let sent = h.send(a, #"{"type":"swap","op":"o1","base":0,"a":"t1","b":"t2"}"#)
        #expect(messages(to: b, in: sent).isEmpty, "nothing is broadcast before it is durable")
        guard case .persist(.append(_, let ops), nil)? = sent.last else {
            Issue.record("\(sent)")
            return
        }
        #expect(ops.map(\.time) == [h.wall])
        #expect(types(messages(to: b, in: h.makeDurable())) == ["swap"])
    }

    @Test func idleHoldsExpireOnTheTick() {
        let h = HubHarness { $0.room.holdTimeout = .seconds(5) }
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        h.now = h.now + 4_999
        #expect(h.on(.tick).isEmpty)
        h.now = h.now + 1
        #expect(types(messages(to: a, in: h.on(.tick))) == ["drop:expired"])
    }

    @Test func shutdownClosesEveryoneWith1001AndStopsWhenTheLastHasGone() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        h.joinNew(a)
        let actions = h.on(.shutdown)
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 1001], [2, 1001]])
        #expect(!actions.contains(.stop))
        let late = ConnectionID(3)
        let refused = h.on(.opened(late, peer: "127.0.0.1"))
        #expect(closes(in: refused).map(\.1) == [1001], "a connection opened while stopping is closed")
        h.on(.closed(a))
        h.on(.closed(b))
        #expect(h.on(.closed(late)).contains(.stop))
    }

    @Test func shutdownStopsAtTheDeadlineEvenIfClientsLinger() {
        let h = HubHarness { $0.shutdownGrace = .seconds(2) }
        h.joinNew(h.open(1))
        h.on(.shutdown)
        h.now = h.now + 1_999
        #expect(!h.on(.tick).contains(.stop))
        h.now = h.now + 1
        #expect(h.on(.tick).contains(.stop))
    }

    @Test func shutdownWithNobodyConnectedStopsAtOnce() {
        let h = HubHarness()
        #expect(h.on(.shutdown).contains(.stop))
    }
}
