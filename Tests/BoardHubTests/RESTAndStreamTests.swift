import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// `POST /api/boards/{id}/ops` and `GET /api/boards/{id}/events` as hub events and actions, on
/// the manual clock (issue 20).
@Suite struct RESTAndStreamTests {
    let x1 = ExchangeID(301)
    let x2 = ExchangeID(302)
    let x3 = ExchangeID(303)

    func post(
        _ h: HubHarness, _ body: String, board: String = "demo", exchange: ExchangeID, peer: String = "127.0.0.1",
        token: String? = nil
    ) -> [Hub.Action] {
        h.on(
            .request(
                exchange,
                HTTPRequest(
                    method: .post, path: "/api/boards/\(board)/ops", body: Array(body.utf8),
                    authorization: token.map { "Bearer " + $0 }, contentType: "application/json", peer: peer)))
    }

    func events(
        _ h: HubHarness, board: String = "demo", exchange: ExchangeID, query: [String: String] = [:],
        lastEventID: String? = nil, peer: String = "127.0.0.1"
    ) -> [Hub.Action] {
        h.on(
            .request(
                exchange,
                HTTPRequest(
                    method: .get, path: "/api/boards/\(board)/events", query: query, peer: peer,
                    lastEventID: lastEventID)))
    }

    /// The stream events among `actions` that go to `exchange`.
    func streamed(to exchange: ExchangeID, in actions: [Hub.Action]) -> [StreamEvent] {
        actions.compactMap { action in
            if case .stream(let event, let to) = action, to.contains(exchange) { event } else { nil }
        }
    }

    func opened(_ exchange: ExchangeID, in actions: [Hub.Action]) -> Bool {
        actions.contains { $0 == .openStream(exchange) }
    }

    /// A joined client on `demo` and the harness.
    func joined() -> (HubHarness, ConnectionID) {
        let h = HubHarness()
        let c = h.open(1)
        h.joinNew(c)
        return (h, c)
    }

    @Test func aRESTOpIsAnsweredOnceDurableWithTheBroadcastEveryClientGets() {
        let (h, c) = joined()
        let actions = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x1)
        #expect(responses(in: actions).isEmpty, "nothing before it is durable")
        #expect(actions.contains { if case .persist(.append, _) = $0 { true } else { false } })
        let durable = h.makeDurable()
        let answer = responses(in: durable)
        #expect(answer.count == 1)
        #expect(answer.first?.0 == x1)
        #expect(answer.first?.1.status == 200)
        let committed = messages(to: c, in: durable)
        #expect(types(committed) == ["toggle"])
        guard case .committed(let op)? = committed.first else { return }
        var w = JSONWriter()
        op.encode(into: &w)
        #expect(answer.first?.1.text == #"{"seq":1,"op":"# + String(decoding: w.bytes, as: UTF8.self) + "}")
        // Nobody saw the REST op's user join or leave.
        #expect(!types(messages(to: c, in: h.log)).contains("join"))
    }

    @Test func aResentOpIDIsAcknowledgedWithItsSeqAndNotAppliedTwice() {
        let (h, _) = joined()
        _ = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x1)
        h.makeDurable()
        let again = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x2)
        #expect(responses(in: again).map(\.1.text) == [#"{"seq":1,"ack":true}"#])
        #expect(!again.contains { if case .persist = $0 { true } else { false } })
    }

    @Test func anOpOnAHeldItemIsRefusedHeldAndTakesNobodysTurn() {
        let (h, c) = joined()
        let d = h.open(2)
        h.send(d, #"{"type":"hello","board":"demo","name":"Bo"}"#)
        h.send(c, #"{"type":"dragStart","item":"t1","on":true}"#)
        let refused = responses(
            in: post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x1))
        #expect(refused.first?.1.status == 409)
        #expect(refused.first?.1.text.contains(#""error":"rejected","reason":"held","by":"u1","seq":0"#) == true)
        // The holder lets go: the next to ask is the other client, not the REST op's user.
        h.send(c, #"{"type":"drop","item":"t1","on":true}"#)
        let taken = h.send(d, #"{"type":"dragStart","item":"t1","on":true}"#)
        #expect(types(messages(to: d, in: taken)) == ["dragStart"])
    }

    @Test func aConflictIs409WithTheReasonAndTheSeq() {
        let (h, c) = joined()
        h.send(c, #"{"type":"swap","op":"w1","base":0,"a":"t1","b":"t3"}"#)
        h.makeDurable()
        let answer = responses(
            in: post(h, #"{"type":"swap","op":"r1","base":0,"a":"t1","b":"t2"}"#, exchange: x1))
        #expect(answer.first?.1.status == 409)
        #expect(answer.first?.1.text.contains(#""reason":"conflict""#) == true)
        #expect(answer.first?.1.text.contains(#""seq":1"#) == true)
    }

    @Test(arguments: [
        (#"{"type":"toggle","op":"r1","item":"t1","on":true}"#, #"\"base\""#),
        (#"{"type":"toggle","base":0,"item":"t1","on":true}"#, #"\"op\""#),
        (#"{"type":"move","op":"r1","base":0,"item":"t1","zone":"tray"}"#, #"\"before\""#),
        (#"{"type":"hello","board":"demo","name":"x"}"#, #"\"type\" must be an op"#),
        (#"{"op":"r1"}"#, #"\"type\""#),
        ("[1]", "object"),
        ("{", "invalid JSON"),
    ])
    func aMalformedOpIs400NamingTheField(_ body: String, _ named: String) {
        let (h, _) = joined()
        let answer = responses(in: post(h, body, exchange: x1))
        #expect(answer.first?.1.status == 400)
        #expect(answer.first?.1.text.contains(named) == true, "\(answer.first?.1.text ?? "")")
    }

    @Test func anOpOnABoardNotInMemoryLoadsItAndOnAnUnknownBoardIs404() {
        let h = HubHarness()
        let actions = post(
            h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, board: "kept", exchange: x1)
        guard let (read, request) = h.read(in: actions) else { return }
        guard case .load = request else {
            Issue.record("expected a load, got \(request)")
            return
        }
        let room = Room(board: Template.colors.board(id: board("kept")), settings: Room.Settings())
        _ = h.on(.answered(read, .room(room)))
        let answer = responses(in: h.makeDurable())
        #expect(answer.first?.1.status == 200)
        #expect(h.hub.boardCount == 0, "the board leaves memory once its op is durable")

        let unknown = post(
            h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, board: "nope", exchange: x2)
        guard let (read2, _) = h.read(in: unknown) else { return }
        #expect(responses(in: h.on(.answered(read2, .room(nil)))).first?.1.status == 404)
    }

    @Test func restOpsShareTheirAddresssOpRate() {
        let h = HubHarness { $0.opRate = Rate(perSecond: 1, burst: 2) }
        let c = h.open(1)
        h.joinNew(c)
        var statuses: [Int] = []
        for n in 1...3 {
            let actions = post(
                h, #"{"type":"toggle","op":"r\#(n)","base":0,"item":"t1","on":true}"#, exchange: ExchangeID(UInt64(n)))
            statuses += responses(in: actions).map(\.1.status)
        }
        #expect(statuses == [429], "two ops in the burst wait for the disk; the third is refused")
        h.now = h.now + 1_000
        let later = post(h, #"{"type":"toggle","op":"r4","base":0,"item":"t2","on":true}"#, exchange: x3)
        #expect(responses(in: later).isEmpty, "a second later it is taken")
    }

    @Test func aRESTOpNeedsAnEditTokenAndAStreamAViewToken() {
        let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
        let h = HubHarness { $0.auth = authority }
        let view = authority.mint(Claims(board: board("demo"), role: .view, expires: 4_000_000_000, name: nil))
        let noToken = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x1)
        #expect(responses(in: noToken).first?.1.status == 401)
        let viewer = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x2, token: view)
        #expect(responses(in: viewer).first?.1.status == 403)
        // EventSource sends no headers: the token may come in the URL.
        let stream = events(h, exchange: x3, query: ["token": view])
        #expect(responses(in: stream).isEmpty)
        #expect(stream.contains { if case .read = $0 { true } else { false } }, "the board is loaded for it")
    }

    @Test func aStreamSendsTheOpsAfterSinceThenEveryCommittedOpInOrder() {
        let (h, c) = joined()
        for n in 1...3 {
            h.send(c, #"{"type":"toggle","op":"w\#(n)","base":\#(n - 1),"item":"t1","on":true}"#)
            h.makeDurable()
        }
        let open = events(h, exchange: x1, query: ["since": "1"])
        #expect(opened(x1, in: open))
        let first = streamed(to: x1, in: open)
        #expect(first.first == .opened)
        guard case .ops(let ops)? = first.last else {
            Issue.record("no ops in \(first)")
            return
        }
        #expect(ops.map(\.seq) == [2, 3])
        // A new op reaches the stream once durable, not before.
        let sent = h.send(c, #"{"type":"toggle","op":"w4","base":3,"item":"t1","on":true}"#)
        #expect(streamed(to: x1, in: sent).isEmpty)
        let durable = h.makeDurable()
        guard case .ops(let more)? = streamed(to: x1, in: durable).first else {
            Issue.record("no op")
            return
        }
        #expect(more.map(\.seq) == [4])
        // Last-Event-ID wins over since (an EventSource keeps its URL when it reconnects).
        let resumed = events(h, exchange: x2, query: ["since": "0"], lastEventID: "3")
        guard case .ops(let tail)? = streamed(to: x2, in: resumed).last else {
            Issue.record("no ops")
            return
        }
        #expect(tail.map(\.seq) == [4])
    }

    @Test func aStreamWithoutSinceOrPastTheKeptOpsStartsWithAReset() {
        let h = HubHarness { $0.room.historyLimit = 2 }
        let c = h.open(1)
        h.joinNew(c)
        for n in 1...4 {
            h.send(c, #"{"type":"toggle","op":"w\#(n)","base":\#(n - 1),"item":"t1","on":true}"#)
            h.makeDurable()
        }
        for (exchange, query) in [(x1, [String: String]()), (x2, ["since": "0"])] {
            let events = streamed(to: exchange, in: h.encoding(events(h, exchange: exchange, query: query)))
            guard case .encodedReset(let seq, let bytes)? = events.last else {
                Issue.record("no reset: \(events)")
                return
            }
            #expect(seq == 4)
            #expect(bytes == StreamEvent.reset(h.hub.boards[board("demo")]!.room.published, seq: 4).encoded())
            #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("id: 4\nevent: reset\ndata: {"))
        }
    }

    @Test func aQuietStreamGetsAKeepaliveEveryInterval() {
        let h = HubHarness { $0.streamKeepalive = .seconds(15) }
        let c = h.open(1)
        h.joinNew(c)
        _ = events(h, exchange: x1, query: ["since": "0"])
        h.now = h.now + 14_000
        #expect(streamed(to: x1, in: h.on(.tick)).isEmpty)
        h.now = h.now + 1_000
        #expect(streamed(to: x1, in: h.on(.tick)) == [.keepalive])
        h.now = h.now + 1_000
        #expect(streamed(to: x1, in: h.on(.tick)).isEmpty)
        #expect(String(decoding: StreamEvent.keepalive.encoded(), as: UTF8.self) == ": keepalive\n\n")
    }

    @Test func deletingTheBoardEndsItsStreamsWithDeleted() {
        let (h, _) = joined()
        _ = events(h, exchange: x1, query: ["since": "0"])
        let actions = h.on(.request(x2, HTTPRequest(method: .delete, path: "/api/boards/demo")))
        #expect(streamed(to: x1, in: actions) == [.deleted(board("demo"))])
        #expect(actions.contains { $0 == .endStream([x1]) })
    }

    @Test func aBoardStaysInMemoryWhileAStreamIsOpenAndLeavesWhenItEnds() {
        let h = HubHarness()
        let c = h.open(1)
        h.joinNew(c)
        h.send(c, #"{"type":"toggle","op":"w1","base":0,"item":"t1","on":true}"#)
        h.makeDurable()
        _ = events(h, exchange: x1, query: ["since": "1"])
        h.on(.closed(c))
        #expect(h.hub.boardCount == 1)
        h.on(.streamEnded(x1))
        #expect(h.hub.boardCount == 0)
    }

    @Test func streamsAreCappedPerAddressAndOverall() {
        let h = HubHarness {
            $0.maxStreamsPerAddress = 1
            $0.maxStreams = 2
        }
        let c = h.open(1)
        h.joinNew(c)
        #expect(opened(x1, in: h.encoding(events(h, exchange: x1))))
        #expect(responses(in: events(h, exchange: x2)).first?.1.status == 429)
        #expect(opened(x2, in: events(h, exchange: x2, peer: "127.0.0.2")), "the reset encoded already")
        #expect(responses(in: events(h, exchange: x3, peer: "127.0.0.3")).first?.1.status == 503)
        h.on(.streamEnded(x1))
        #expect(opened(x3, in: events(h, exchange: x3)), "the address's stream ended: it may open another")
    }

    @Test func aStreamsClientLeavingWhileItsBoardLoadsOpensNothing() {
        let h = HubHarness()
        let actions = events(h, board: "kept", exchange: x1, query: ["since": "0"])
        guard let (read, _) = h.read(in: actions) else { return }
        h.on(.streamEnded(x1))
        let room = Room(board: Template.colors.board(id: board("kept")), settings: Room.Settings())
        let loaded = h.on(.answered(read, .room(room)))
        #expect(!opened(x1, in: loaded))
        #expect(h.hub.boardCount == 0)
    }

    @Test func opEventsAreSSEWithTheSeqAsTheID() {
        let op = CommittedOp(
            seq: 7, opID: OpID("a")!, by: UserID("u1"), op: .toggle(item: ItemID("t1")!, on: true),
            time: UnixTime(milliseconds: 0))
        let text = String(decoding: StreamEvent.ops([op]).encoded(), as: UTF8.self)
        #expect(text.hasPrefix("id: 7\nevent: op\ndata: {\"type\":\"toggle\""))
        #expect(text.hasSuffix("}\n\n"))
        #expect(text.filter { $0 == "\n" }.count == 4)
    }

    @Test func aStreamEndsAfterItsMaximumAge() {
        let h = HubHarness { $0.maxStreamAge = .seconds(60) }
        let c = h.open(1)
        h.joinNew(c)
        _ = events(h, exchange: x1, query: ["since": "0"])
        h.now = h.now + 59_000
        #expect(!h.on(.tick).contains { $0 == .endStream([x1]) })
        h.now = h.now + 1_000
        #expect(h.on(.tick).contains { $0 == .endStream([x1]) })
        h.on(.streamEnded(x1))  // The transport's word comes after: nothing more happens.
        #expect(opened(x2, in: events(h, exchange: x2, lastEventID: "0")))
    }

    @Test func inAClusterANodeThatDoesNotOwnTheBoardRelaysARESTOpAndEndsAStreamAtOnce() {
        let h = HubHarness { $0.cluster = ClusterSettings(node: "a", lease: .seconds(2)) }
        let op = post(h, #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#, exchange: x1)
        guard let (read, request) = h.read(in: op) else { return }
        guard case .claim = request else {
            Issue.record("expected a claim, got \(request)")
            return
        }
        let stream = events(h, exchange: x2)
        #expect(!stream.contains { if case .read = $0 { true } else { false } }, "one claim for both")
        let actions = h.on(.answered(read, .elsewhere(node: "b", advertise: "127.0.0.1:9")))
        // The op goes to the owner as it came (HTTPForwardTests has the rest).
        let relayed = actions.compactMap { if case .forwardHTTP(let x, let to, let r) = $0 { (x, to, r) } else { nil } }
        #expect(relayed.map(\.0) == [x1])
        #expect(relayed.first?.1 == "127.0.0.1:9")
        #expect(relayed.first?.2.path == "/api/boards/demo/ops")
        #expect(responses(in: actions).isEmpty, "no answer before the owner's")
        // The stream opens and ends at once: an EventSource reconnects after a 200 that ends, not
        // after a 503.
        #expect(opened(x2, in: actions))
        #expect(streamed(to: x2, in: actions) == [.opened, .elsewhere(node: "b")])
        #expect(actions.contains { $0 == .endStream([x2]) })
    }

    @Test func aReaderFarBehindGetsTheBoardNotMoreOpsThanTheBoardsBytes() {
        let (h, c) = joined()
        let label = String(repeating: "x", count: 190)
        for n in 1...20 {
            h.send(c, #"{"type":"edit","op":"w\#(n)","base":\#(n - 1),"item":"t1","label":"\#(label)\#(n % 10)"}"#)
            h.makeDurable()
        }
        let far = streamed(to: x1, in: h.encoding(events(h, exchange: x1, query: ["since": "0"])))
        guard case .encodedReset(let seq, _)? = far.last else {
            Issue.record("expected a reset, got \(far)")
            return
        }
        #expect(seq == 20)
        let near = streamed(to: x2, in: events(h, exchange: x2, query: ["since": "18"]))
        guard case .ops(let ops)? = near.last else {
            Issue.record("expected ops, got \(near)")
            return
        }
        #expect(ops.map(\.seq) == [19, 20])
    }
}
