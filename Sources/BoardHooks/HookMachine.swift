package import BoardCore
package import BoardStore

/// One webhook's delivery as a state machine: events in (a commit, a read of the log, a POST's
/// outcome, a tick), actions out (read the log, post, record the cursor, forget the webhook),
/// clocks passed in. No I/O, no threads: the delivery thread (WebhookDelivery) carries the
/// actions out and feeds the results back.
///
/// The op log is the queue: the machine holds at most one batch (1–100 ops, the one being
/// posted or waiting to be posted again), and reads the next from the store only once that one
/// is delivered, from the durable cursor. So ops go out in seq order, a later batch never
/// overtakes a failing one, and a slow or dead receiver costs one batch of memory.
package struct HookMachine: Sendable {
    /// Where the webhook's delivery is.
    package enum Phase: Equatable, Sendable {
        /// Delivered as far as it knows; waits for a commit.
        case idle
        /// This node does not own the board (a cluster): waits for a commit here.
        case dormant
        /// A read of the log is out.
        case reading
        /// A POST is out.
        case sending
        /// The last attempt failed: the batch goes again (or the log is read again) at `until`.
        case backingOff(until: ContinuousClock.Instant)
        /// Failing for `disableAfter`: nothing until it is enabled (a new machine).
        case disabled
    }

    /// What happened.
    package enum Event: Sendable {
        /// Start delivering from the cursor.
        case start
        /// The board's ops up to this seq are durable (this node committed them).
        case committed(Seq)
        /// The read the machine asked for came back.
        case read(LogRead)
        /// The POST came back, or failed.
        case answered(PostOutcome)
        /// Time passed.
        case tick
    }

    /// What a read of the log found.
    package enum LogRead: Sendable {
        /// Ops after the cursor (up to a page), and the board's current seq.
        case ops([CommittedOp], current: Seq)
        /// The ops after the cursor were compacted away: the board as of `seq`, as JSON.
        case reset(board: [UInt8], seq: Seq)
        /// Another node owns the board.
        case notOwner
        /// The webhook or its board is gone.
        case gone
        /// The store failed.
        case failed(String)
    }

    /// How a POST went.
    package enum PostOutcome: Equatable, Sendable {
        /// The receiver answered with this status.
        case status(Int)
        /// No answer: the message says why (refused address, timeout, connection reset…).
        case failed(String)
    }

    /// What to do.
    package enum Action: Equatable, Sendable {
        /// Read the log after `since` (at most `HookMachine.pageOps` ops) for this webhook.
        case read(since: Seq)
        /// Post this request; its outcome comes back as `.answered`.
        case post(HookPost)
        /// Store the cursor and status (the cursor never goes back).
        case record(delivered: Seq, WebhookStatus)
        /// The webhook or its board is gone: forget this machine.
        case remove
    }

    /// The most ops in one delivery.
    package static let maxOps = 100
    /// A batch stops growing once its body is this large (one op larger goes alone).
    package static let maxBodyBytes = 1 << 20
    /// The ops asked of the store at once.
    package static let pageOps = 100
    /// The first retry's delay; each next one doubles, up to `maxBackoff`.
    package static let firstBackoff = Duration.seconds(1)
    /// The longest delay between attempts.
    package static let maxBackoff = Duration.seconds(300)
    /// Failing this long (seconds) disables the webhook.
    package static let disableAfter: Int64 = 72 * 3600

    /// The webhook as stored, with the cursor and status as this machine moved them.
    package private(set) var hook: Webhook
    /// Where delivery is.
    package private(set) var phase: Phase = .idle
    /// The highest seq known to be committed.
    private var known: Seq
    /// The batch being posted, or waiting to be posted again.
    private var batch: Batch?
    /// Failed attempts since the last success (the backoff's exponent).
    private var failures = 0

    /// The batch being delivered: its body, the seqs it covers, and its delivery id.
    private struct Batch: Sendable {
        var body: [UInt8]
        var through: Seq
        var delivery: String
    }

    /// A machine for `hook`, from its stored cursor and status.
    package init(_ hook: Webhook) {
        self.hook = hook
        known = hook.delivered
        if hook.status.disabled { phase = .disabled }
    }

    /// The bytes this machine holds (its batch), for the memory bound's tests and metrics.
    package var heldBytes: Int { batch?.body.count ?? 0 }

    /// Handles one event at `now` (monotonic) and `wall` (seconds since 1970).
    package mutating func handle(_ event: Event, now: ContinuousClock.Instant, wall: Int64) -> [Action] {
        if case .disabled = phase { return [] }
        switch event {
        case .start:
            guard phase == .idle || phase == .dormant else { return [] }
            return read()
        case .committed(let seq):
            known = max(known, seq)
            guard phase == .idle || phase == .dormant, seq > hook.delivered else { return [] }
            return read()
        case .read(let result):
            guard phase == .reading else { return [] }
            return readCame(result, now: now, wall: wall)
        case .answered(let outcome):
            guard phase == .sending else { return [] }
            return answered(outcome, now: now, wall: wall)
        case .tick:
            guard case .backingOff(let until) = phase, now >= until else { return [] }
            return batch == nil ? read() : [post(wall: wall)]
        }
    }

    private mutating func read() -> [Action] {
        phase = .reading
        return [.read(since: hook.delivered)]
    }

    private mutating func readCame(_ result: LogRead, now: ContinuousClock.Instant, wall: Int64) -> [Action] {
        switch result {
        case .notOwner:
            phase = .dormant
            return []
        case .gone:
            phase = .idle
            return [.remove]
        case .failed(let message):
            hook.status.lastError = "store: " + message
            phase = .backingOff(until: now + backoff())
            failures += 1
            return []
        case .reset(let board, let seq):
            var w = JSONWriter()
            w.beginObject()
            w.write("board", hook.board.rawValue)
            w.write("webhook", hook.id)
            w.beginObject("reset")
            w.write("seq", seq)
            w.writeRaw("board", board)
            w.endObject()
            w.endObject()
            known = max(known, seq)
            batch = Batch(body: w.bytes, through: seq, delivery: "\(hook.id).reset.\(seq)")
            return [post(wall: wall)]
        case .ops(let ops, let current):
            known = max(known, current)
            let fresh = ops.filter { $0.seq > hook.delivered }
            guard let last = fresh.last else {
                phase = .idle
                return []
            }
            var w = JSONWriter()
            w.beginObject()
            w.write("board", hook.board.rawValue)
            w.write("webhook", hook.id)
            w.beginArray("ops")
            var count = 0
            var through = last.seq
            var first: Seq?
            for op in fresh where hook.wants(op.op.kind) {
                if count == Self.maxOps || (count > 0 && w.bytes.count >= Self.maxBodyBytes) {
                    // Cut here: the ops before this one are the batch.
                    through = op.seq - 1
                    break
                }
                op.encode(into: &w)
                first = first ?? op.seq
                count += 1
            }
            w.endArray()
            w.endObject()
            guard let first else {
                // Nothing of this page is wanted: the cursor moves past it without a POST.
                hook.delivered = last.seq
                return [.record(delivered: last.seq, hook.status)] + (known > hook.delivered ? read() : idle())
            }
            batch = Batch(body: w.bytes, through: through, delivery: "\(hook.id).\(first)-\(through)")
            return [post(wall: wall)]
        }
    }

    private mutating func idle() -> [Action] {
        phase = .idle
        return []
    }

    private mutating func post(wall: Int64) -> Action {
        guard let batch else { preconditionFailure("a post without a batch") }
        phase = .sending
        return .post(
            HookPost(
                url: hook.url, body: batch.body, timestamp: wall, delivery: batch.delivery, secret: hook.secret))
    }

    private mutating func answered(_ outcome: PostOutcome, now: ContinuousClock.Instant, wall: Int64) -> [Action] {
        guard let sent = batch else { preconditionFailure("an answer without a batch") }
        hook.status.lastAttempt = wall
        if case .status(let code) = outcome, (200...299).contains(code) {
            hook.delivered = max(hook.delivered, sent.through)
            hook.status.failingSince = 0
            hook.status.lastStatus = code
            hook.status.lastError = ""
            failures = 0
            batch = nil
            return [.record(delivered: hook.delivered, hook.status)] + (known > hook.delivered ? read() : idle())
        }
        switch outcome {
        case .status(let code):
            hook.status.lastStatus = code
            hook.status.lastError = "answered \(code)"
        case .failed(let message):
            hook.status.lastStatus = 0
            hook.status.lastError = message
        }
        if hook.status.failingSince == 0 { hook.status.failingSince = wall }
        if wall - hook.status.failingSince >= Self.disableAfter {
            hook.status.disabled = true
            phase = .disabled
            batch = nil
            return [.record(delivered: hook.delivered, hook.status)]
        }
        phase = .backingOff(until: now + backoff())
        failures += 1
        return [.record(delivered: hook.delivered, hook.status)]
    }

    /// The delay before the next attempt: 1 s doubling with each failure, up to 5 minutes.
    private func backoff() -> Duration {
        let shift = min(failures, 16)
        return min(Self.firstBackoff * (1 << shift), Self.maxBackoff)
    }
}

/// One POST of a delivery: the body, and what its headers are made of.
package struct HookPost: Equatable, Sendable {
    /// Where it goes.
    package var url: String
    /// `{"board","webhook","ops":[…]}` or `{"board","webhook","reset":{…}}`.
    package var body: [UInt8]
    /// `X-Shuffleboard-Timestamp`: seconds since 1970 when it was sent.
    package var timestamp: Int64
    /// `X-Shuffleboard-Delivery`: the batch's id (the same on every attempt of the batch).
    package var delivery: String
    /// The key of its signature.
    package var secret: String

    /// The request's headers, `Name: value`, signed (`WebhookSignature`).
    package func headers(sign: (String, Int64, [UInt8]) -> String) -> [String] {
        [
            "Content-Type: application/json",
            "X-Shuffleboard-Timestamp: \(timestamp)",
            "X-Shuffleboard-Signature: \(sign(secret, timestamp, body))",
            "X-Shuffleboard-Delivery: \(delivery)",
            "User-Agent: shuffleboard-webhooks",
        ]
    }
}
