import BoardAuth
import BoardCore
import BoardMetrics
import Testing

@testable import BoardHub

/// `RESTOps` alone, without the hub: what it refuses before an op reaches its board, the
/// address's bucket, and the answers of the ops that wait.
@Suite struct RESTOpsTests {
    let x1 = ExchangeID(501)
    let x2 = ExchangeID(502)
    let toggle = #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#

    final class Parts {
        let turn: Turn
        let ops: RESTOps
        /// The client address's bucket of ops, as the hub's address book keeps it.
        var bucket: TokenBucket
        let config: Hub.Config

        init(_ configure: (inout Hub.Config) -> Void = { _ in }) {
            var config = Hub.Config()
            configure(&config)
            self.config = config
            turn = Turn(config, meters: HubMeters(Metrics()))
            ops = RESTOps(config: config, turn: turn)
            bucket = TokenBucket(config.opRate, now: Instant(milliseconds: 1_000))
            _ = turn.begin(now: Instant(milliseconds: 1_000), wall: UnixTime(milliseconds: 1_764_000_000_000))
        }

        func actions() -> [Hub.Action] { turn.take().filter { if case .log = $0 { false } else { true } } }

        func admit(
            _ exchange: ExchangeID, _ body: String, method: HTTPRequest.Method = .post,
            claims: Claims = Access.everything
        ) -> RESTOp.Pending? {
            let request = HTTPRequest(
                method: method, path: "/api/boards/demo/ops", body: Array(body.utf8), contentType: "application/json",
                peer: "127.0.0.1")
            guard let pending = ops.admit(BoardID("demo")!, request, claims: claims, exchange: exchange),
                ops.take(from: &bucket, pending, exchange: exchange)
            else { return nil }
            return pending
        }
    }

    func status(_ actions: [Hub.Action]) -> [Int] {
        actions.compactMap { if case .respond(_, let response) = $0 { response.status } else { nil } }
    }

    @Test func aRequestIsRefusedBeforeItsBoardWhenItIsNoOpItMayNotSend() {
        let p = Parts()
        #expect(p.admit(x1, toggle, method: .put) == nil)
        #expect(p.admit(x1, #"{"type":"hello","board":"demo","name":"A"}"#) == nil)
        #expect(p.admit(x1, "{") == nil)
        let viewer = Claims(board: BoardID("demo")!, role: .view, expires: .max)
        #expect(p.admit(x1, toggle, claims: viewer) == nil)
        #expect(status(p.actions()) == [405, 400, 400, 403])
        let pending = p.admit(x1, toggle)
        #expect(pending?.member == RESTOps.apiMember && pending?.name == "api" && pending?.admin == true)
        #expect(p.actions() == [])
    }

    @Test func anAddressSharesOneBucketOfOps() {
        let p = Parts { $0.opRate = Rate(perSecond: 1, burst: 2) }
        #expect(p.admit(x1, toggle) != nil)
        #expect(p.admit(x1, toggle) != nil)
        #expect(p.admit(x2, toggle) == nil)
        #expect(status(p.actions()) == [429])
        #expect(p.turn.meters.rateLimited.value(.op) == 1)
    }

    @Test func aWaitingOpIsAnsweredOnceAndCountedOnItsBoardUntilThen() {
        let p = Parts()
        let id = BoardID("demo")!
        let host = BoardHost(room: Room(board: .defaultTemplate(id: id), settings: p.config.room))
        let user = UserID(number: 7)
        guard let pending = p.admit(x1, toggle) else {
            Issue.record("refused")
            return
        }
        p.ops.began(user, pending, on: host, exchange: x1)
        #expect(host.restOps == 1 && p.ops.count == 1)
        p.ops.answer(.ack(OpID("r1")!, seq: 4), to: user, on: host)
        let answered = p.actions()
        #expect(status(answered) == [200])
        #expect(host.restOps == 0 && p.ops.count == 0)
        p.ops.answer(.ack(OpID("r1")!, seq: 4), to: user, on: host)
        #expect(p.actions() == [], "answered once")

        p.ops.began(UserID(number: 8), pending, on: host, exchange: x2)
        p.ops.fail(on: host, Hub.unknownBoard(id))
        #expect(status(p.actions()) == [404])
        #expect(host.restOps == 0 && p.ops[UserID(number: 8)] == nil)
    }
}
