import BoardCore
import BoardStore
import Testing

@testable import BoardHooks

/// The delivery machine, event by event: order, batching, retries and backoff, disabling, resets,
/// ownership. The clock is passed in: `t` seconds after a fixed instant, wall `1_000 + t`.
struct HookMachineTests {
    let start = ContinuousClock.now
    let board = BoardID("b1")!

    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .milliseconds(Int(seconds * 1000)) }

    func op(_ seq: Seq, _ kind: String = "toggle") -> CommittedOp {
        let item = ItemID("i\(seq)")!
        let op: Op = kind == "retitle" ? .retitle(title: "t\(seq)") : .toggle(item: item, on: seq % 2 == 0)
        return CommittedOp(
            seq: seq, opID: OpID("op-\(seq)")!, by: UserID(number: 1), op: op,
            time: UnixTime(milliseconds: 1_700_000_000_000))
    }

    func hook(events: [String] = ["*"], delivered: Seq = 0) -> Webhook {
        Webhook(
            id: "h1", board: board, url: "http://example.com/hook", events: events, secret: "0123456789abcdef",
            created: 1, delivered: delivered)
    }

    /// The seqs in a posted body's `ops`.
    func seqs(_ action: HookMachine.Action?) throws -> [Int] {
        guard case .post(let post)? = action else {
            Issue.record("expected a post, got \(String(describing: action))")
            return []
        }
        let body = try JSON.parse(post.body)
        #expect(body["board"]?.stringValue == "b1")
        #expect(body["webhook"]?.stringValue == "h1")
        return (body["ops"]?.arrayValue ?? []).compactMap { $0["seq"]?.intValue }
    }

    @Test func deliversFromTheCursorInOrderAndMovesTheCursorOnlyOn2xx() throws {
        var m = HookMachine(hook(delivered: 2))
        #expect(m.handle(.start, now: at(0), wall: 1000) == [.read(since: 2)])
        let first = m.handle(.read(.ops([op(3), op(4)], current: 4)), now: at(0), wall: 1000)
        #expect(try seqs(first.first) == [3, 4])
        #expect(m.phase == .sending)
        // A commit while sending waits for this batch.
        #expect(m.handle(.committed(5), now: at(0), wall: 1000).isEmpty)
        let done = m.handle(.answered(.status(204)), now: at(0), wall: 1000)
        #expect(done.first == .record(delivered: 4, WebhookStatus(lastStatus: 204, lastAttempt: 1000)))
        #expect(done.last == .read(since: 4))
        #expect(m.hook.delivered == 4)
        let next = m.handle(.read(.ops([op(5)], current: 5)), now: at(0), wall: 1000)
        #expect(try seqs(next.first) == [5])
        #expect(
            m.handle(.answered(.status(200)), now: at(0), wall: 1000).last
                == .record(
                    delivered: 5, WebhookStatus(lastStatus: 200, lastAttempt: 1000)))
        #expect(m.phase == .idle)
    }

    @Test func aFailedBatchGoesAgainWithBackoffDoublingToFiveMinutesAndLaterOpsWait() throws {
        var m = HookMachine(hook())
        _ = m.handle(.start, now: at(0), wall: 1000)
        let posted = m.handle(.read(.ops([op(1), op(2)], current: 2)), now: at(0), wall: 1000)
        guard case .post(let firstPost)? = posted.first else { Issue.record("no post"); return }
        var clock = 0.0
        var delays: [Double] = []
        for attempt in 0..<12 {
            let failed = m.handle(.answered(.status(500)), now: at(clock), wall: 1000 + Int64(clock))
            #expect(failed.count == 1)
            guard case .record(let delivered, let status) = failed.first else { Issue.record("no record"); return }
            #expect(delivered == 0)
            #expect(status.failingSince == 1000)
            #expect(status.lastStatus == 500)
            guard case .backingOff(let until) = m.phase else { Issue.record("not backing off"); return }
            let delay = Double((until - at(clock)).components.seconds)
            delays.append(delay)
            // Later commits wait; a tick before the time does nothing.
            #expect(m.handle(.committed(Seq(10 + attempt)), now: at(clock), wall: 1000).isEmpty)
            #expect(m.handle(.tick, now: at(clock + delay - 0.5), wall: 1000).isEmpty)
            clock += delay
            let again = m.handle(.tick, now: at(clock), wall: 1000 + Int64(clock))
            guard case .post(let post)? = again.first else { Issue.record("no retry"); return }
            #expect(post.body == firstPost.body)
            #expect(post.delivery == firstPost.delivery)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300])
        // It recovers: the cursor moves, and the ops committed meanwhile are read next.
        let ok = m.handle(.answered(.status(200)), now: at(clock), wall: 1000 + Int64(clock))
        #expect(ok.last == .read(since: 2))
        #expect(m.hook.status.failingSince == 0)
    }

    @Test func failingFor72HoursDisablesTheWebhook() {
        var m = HookMachine(hook())
        _ = m.handle(.start, now: at(0), wall: 1000)
        _ = m.handle(.read(.ops([op(1)], current: 1)), now: at(0), wall: 1000)
        _ = m.handle(.answered(.failed("timeout")), now: at(0), wall: 1000)
        #expect(m.hook.status.lastError == "timeout")
        _ = m.handle(.tick, now: at(1), wall: 1001)
        let wall = 1000 + HookMachine.disableAfter
        let last = m.handle(.answered(.status(503)), now: at(2), wall: wall)
        #expect(m.phase == .disabled)
        #expect(
            last == [
                .record(
                    delivered: 0,
                    WebhookStatus(
                        failingSince: 1000, lastStatus: 503, lastError: "answered 503", lastAttempt: wall,
                        disabled: true))
            ])
        #expect(m.handle(.committed(9), now: at(3), wall: wall).isEmpty)
        #expect(m.handle(.tick, now: at(1000), wall: wall).isEmpty)
    }

    @Test func opsNotWantedMoveTheCursorWithoutAPost() throws {
        var m = HookMachine(hook(events: ["retitle"]))
        _ = m.handle(.start, now: at(0), wall: 1000)
        let skipped = m.handle(.read(.ops([op(1), op(2)], current: 4)), now: at(0), wall: 1000)
        #expect(skipped == [.record(delivered: 2, WebhookStatus()), .read(since: 2)])
        let posted = m.handle(.read(.ops([op(3), op(4, "retitle")], current: 4)), now: at(0), wall: 1000)
        #expect(try seqs(posted.first) == [4])
        _ = m.handle(.answered(.status(200)), now: at(0), wall: 1000)
        #expect(m.hook.delivered == 4)
    }

    @Test func aBatchHoldsAtMost100Ops() throws {
        var m = HookMachine(hook())
        _ = m.handle(.start, now: at(0), wall: 1000)
        let page = (1...150).map { op($0) }
        let first = m.handle(.read(.ops(page, current: 150)), now: at(0), wall: 1000)
        #expect(try seqs(first.first) == Array(1...100))
        let done = m.handle(.answered(.status(200)), now: at(0), wall: 1000)
        #expect(done.last == .read(since: 100))
    }

    @Test func aCompactedLogSendsAResetThenGoesOnFromItsSeq() throws {
        var m = HookMachine(hook(delivered: 3))
        _ = m.handle(.start, now: at(0), wall: 1000)
        let reset = m.handle(.read(.reset(board: Array(#"{"id":"b1"}"#.utf8), seq: 40)), now: at(0), wall: 1000)
        guard case .post(let post)? = reset.first else { Issue.record("no post"); return }
        let body = try JSON.parse(post.body)
        #expect(body["reset"]?["seq"]?.intValue == 40)
        #expect(body["reset"]?["board"]?["id"]?.stringValue == "b1")
        #expect(body["ops"] == nil)
        _ = m.handle(.committed(41), now: at(0), wall: 1000)
        #expect(m.handle(.answered(.status(200)), now: at(0), wall: 1000).last == .read(since: 40))
    }

    @Test func anotherNodesBoardWaitsDormantUntilACommitHere() {
        var m = HookMachine(hook())
        _ = m.handle(.start, now: at(0), wall: 1000)
        #expect(m.handle(.read(.notOwner), now: at(0), wall: 1000).isEmpty)
        #expect(m.phase == .dormant)
        #expect(m.handle(.tick, now: at(10), wall: 1010).isEmpty)
        #expect(m.handle(.committed(1), now: at(10), wall: 1010) == [.read(since: 0)])
    }

    @Test func aGoneWebhookIsForgottenAndAStoreFailureIsRetried() {
        var m = HookMachine(hook())
        _ = m.handle(.start, now: at(0), wall: 1000)
        #expect(m.handle(.read(.failed("locked")), now: at(0), wall: 1000).isEmpty)
        #expect(m.handle(.tick, now: at(1), wall: 1001) == [.read(since: 0)])
        #expect(m.handle(.read(.gone), now: at(1), wall: 1001) == [.remove])
    }

    @Test func headersAreSignedOverTimestampDotBody() {
        let post = HookPost(url: "http://x", body: Array("{}".utf8), timestamp: 77, delivery: "h1.1-2", secret: "s")
        var signed: (String, Int64, [UInt8])?
        let headers = post.headers { secret, timestamp, body in
            signed = (secret, timestamp, body)
            return "sha256=ab"
        }
        #expect(signed?.0 == "s" && signed?.1 == 77 && signed?.2 == Array("{}".utf8))
        #expect(headers.contains("X-Shuffleboard-Signature: sha256=ab"))
        #expect(headers.contains("X-Shuffleboard-Timestamp: 77"))
        #expect(headers.contains("X-Shuffleboard-Delivery: h1.1-2"))
        #expect(headers.contains("Content-Type: application/json"))
    }
}
