import BoardAuth
import BoardCore
import BoardMetrics
import Testing

@testable import BoardHub

/// `EventStreams` alone, without the hub: its requests, the one encode of a board's `reset`
/// shared by the streams opening meanwhile, its caps, and the ends of its streams.
@Suite struct EventStreamsTests {
    let x1 = ExchangeID(401)
    let x2 = ExchangeID(402)
    let x3 = ExchangeID(403)

    /// The part on a manual clock, with the boards in memory and the evictions the hub would
    /// hand it.
    final class Parts {
        let turn: Turn
        var boards: [BoardID: BoardHost] = [:]
        let streams: EventStreams
        let config: Hub.Config
        var now = Instant(milliseconds: 1_000)
        /// The boards handed to `idle` (the hub's eviction), in order.
        var idle: [BoardID] = []

        init(_ configure: (inout Hub.Config) -> Void = { _ in }) {
            var config = Hub.Config()
            configure(&config)
            self.config = config
            turn = Turn(config, meters: HubMeters(Metrics()))
            streams = EventStreams(config: config, turn: turn)
            _ = turn.begin(now: now, wall: UnixTime(milliseconds: 1_764_000_000_000))
        }

        /// The actions since the last call, without log lines; the next step begins at `now`.
        func actions() -> [Hub.Action] {
            let taken = turn.take().filter { if case .log = $0 { false } else { true } }
            _ = turn.begin(now: now, wall: UnixTime(milliseconds: 1_764_000_000_000))
            return taken
        }

        /// A board in memory at `seq`.
        func board(_ name: String = "demo", seq: Seq = 3) -> BoardHost {
            let id = BoardID(name)!
            let host = BoardHost(room: Room(board: .defaultTemplate(id: id), seq: seq, settings: config.room))
            boards[id] = host
            return host
        }

        /// `EventStreams.open`, with the hub's read of a `reset` to encode: its number, and the
        /// seq to encode at, if one is asked.
        @discardableResult
        func open(_ exchange: ExchangeID, on host: BoardHost, read: ReadID = ReadID(900)) -> Seq? {
            guard let seq = streams.open(exchange, on: host) else { return nil }
            streams.encoding(read, on: host)
            return seq
        }

        func ended(_ exchange: ExchangeID) {
            streams.ended(exchange, boardHost: { boards[$0] }, idle: { idle.append($0.room.id) })
        }

        /// The tick's two steps, as the hub takes them.
        func keepAlive() {
            streams.endOld(boardHost: { boards[$0] }, idle: { idle.append($0.room.id) })
            streams.keepAlive(boards.values)
        }

        func admit(
            _ exchange: ExchangeID, board: String = "demo", method: HTTPRequest.Method = .get,
            query: [String: String] = [:], lastEventID: String? = nil, peer: String = "127.0.0.1"
        ) -> Bool {
            let request = HTTPRequest(
                method: method, path: "/api/boards/\(board)/events", query: query, peer: peer, lastEventID: lastEventID)
            return streams.admit(BoardID(board)!, request, claims: Access.everything, exchange: exchange)
        }
    }

    func status(_ actions: [Hub.Action]) -> [Int] {
        actions.compactMap { if case .respond(_, let response) = $0 { response.status } else { nil } }
    }

    @Test func aRequestIsCheckedBeforeItIsTaken() {
        let p = Parts()
        #expect(!p.admit(x1, method: .post))
        #expect(status(p.actions()) == [405])
        #expect(!p.admit(x1, query: ["since": "-1"]))
        #expect(!p.admit(x1, query: ["since": "1234567890123456789"]), "over 18 digits")
        #expect(!p.admit(x1, lastEventID: "x"))
        #expect(status(p.actions()) == [400, 400, 400])
        #expect(p.streams.isEmpty)
        #expect(p.admit(x1, query: ["since": "1"], lastEventID: " 2 "))
        #expect(p.streams[x1]?.since == 2, "Last-Event-ID wins over since")
        #expect(p.actions() == [])
    }

    @Test func theCapsCountStreamsUntilTheyAreRefusedOrEnd() {
        let p = Parts {
            $0.maxStreamsPerAddress = 1
            $0.maxStreams = 2
        }
        #expect(p.admit(x1))
        #expect(!p.admit(x2))
        #expect(status(p.actions()) == [429])
        #expect(p.admit(x2, peer: "127.0.0.2"))
        #expect(!p.admit(x3, peer: "127.0.0.3"))
        #expect(status(p.actions()) == [503], "the cap over all addresses")
        p.streams.refuse(x1, Hub.unknownBoard(BoardID("demo")!))
        #expect(status(p.actions()) == [404])
        p.streams.refuse(x1, Hub.unknownBoard(BoardID("demo")!))
        #expect(p.actions() == [], "a stream is refused once")
        #expect(p.admit(x3), "the address's slot came back")
        #expect(p.streams.exchanges == [x2, x3])
    }

    @Test func streamsOpeningWhileTheBoardIsEncodedShareOneEncode() {
        let p = Parts()
        let host = p.board(seq: 3)
        #expect(p.admit(x1) && p.admit(x2))
        let read = ReadID(900)
        #expect(p.open(x1, on: host, read: read) == 3, "the board is to be encoded at seq 3")
        #expect(p.open(x2, on: host, read: ReadID(901)) == nil, "encoding already")
        #expect(p.actions() == [])
        #expect(p.streams[x1]?.phase == .encoding)
        p.streams.resetEncoded(.success((seq: 3, bytes: [1, 2, 3])), read: read, on: host)
        let reset = StreamEvent.encodedReset(seq: 3, bytes: [1, 2, 3])
        #expect(
            p.actions() == [
                .openStream(x1), .stream(.opened, to: [x1]), .stream(reset, to: [x1]),
                .openStream(x2), .stream(.opened, to: [x2]), .stream(reset, to: [x2]),
            ])
        #expect(host.streams.open == [x1, x2])
        #expect(p.admit(x3))
        p.open(x3, on: host)
        #expect(
            p.actions() == [.openStream(x3), .stream(.opened, to: [x3]), .stream(reset, to: [x3])],
            "the same seq: the kept bytes, no new encode")
    }

    @Test func aStreamThatHasTheSeqOpensAtOnceAndGetsWhatIsPublished() {
        let p = Parts()
        let host = p.board(seq: 3)
        #expect(p.admit(x1, query: ["since": "3"]))
        p.open(x1, on: host)
        #expect(p.actions() == [.openStream(x1), .stream(.opened, to: [x1])])
        p.now = p.now + 5_000
        #expect(p.actions() == [])
        p.keepAlive()
        #expect(p.actions() == [], "quiet for less than streamKeepalive")
        p.now = p.now + 15_000
        _ = p.actions()
        p.keepAlive()
        #expect(p.actions() == [.stream(.keepalive, to: [x1])])
    }

    @Test func aBoardThatLeavesMemoryEndsItsStreamsAfterDeleted() {
        let p = Parts()
        let host = p.board(seq: 3)
        #expect(p.admit(x1, query: ["since": "3"]) && p.admit(x2))
        p.open(x1, on: host)
        p.open(x2, on: host)  // Waits for its reset.
        _ = p.actions()
        p.streams.end(of: host, deleted: true)
        let id = BoardID("demo")!
        #expect(
            p.actions() == [
                .openStream(x2), .stream(.opened, to: [x2]), .stream(.deleted(id), to: [x1, x2]),
                .endStream([x1, x2]),
            ])
        #expect(p.streams.isEmpty && host.streams.isIdle)
        #expect(p.streams.count(from: "127.0.0.1") == 0)
    }

    @Test func theTransportsEndHandsTheBoardBackAndTooOldStreamsEnd() {
        let p = Parts { $0.maxStreamAge = .seconds(60) }
        let host = p.board(seq: 3)
        #expect(p.admit(x1, query: ["since": "3"]) && p.admit(x2, query: ["since": "3"]))
        p.open(x1, on: host)
        p.open(x2, on: host)
        _ = p.actions()
        p.ended(x1)
        #expect(p.idle == [host.room.id] && host.streams.open == [x2])
        p.now = p.now + 60_000
        _ = p.actions()
        p.keepAlive()
        #expect(p.actions() == [.endStream([x2])])
        #expect(p.streams.isEmpty && p.idle.count == 2)
    }
}
