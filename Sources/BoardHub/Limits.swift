package import BoardCore

/// A rate: `perSecond` on average, up to `burst` at once.
package struct Rate: Equatable, Sendable {
    /// Tokens added per second.
    package var perSecond: Double
    /// The most tokens kept.
    package var burst: Double
    /// A rate.
    package init(perSecond: Double, burst: Double) {
        self.perSecond = perSecond
        self.burst = burst
    }
}

/// A token bucket: each action takes a token; tokens come back at `rate.perSecond`, up to
/// `rate.burst`. The rate is passed in with time, not kept: there is a bucket in every
/// connection's session, and all of a kind share one rate. A nil rate is no limit.
///
/// **Stalls are not the client's.** While the service thread is stalled (busy for seconds in one
/// callback), a client's messages wait in the kernel and then arrive all at once; they were sent
/// spread over the stall. A bucket told the server's stalled time (`Hub.stalled`, milliseconds
/// summed over every stall so far) may hold, for the refill across a stall, up to `burst` plus
/// what the rate earns in that stall: those messages are charged as if they had come when they
/// were sent. Tokens above `burst` are never added again, only used up.
///
/// Three of these live in every connection's session, so a bucket is 16 bytes: the tokens as a
/// `Float` (a burst of thousands still counts to a thousandth), and the stall mark as the low 32
/// bits of the stalled time, compared with wrapping arithmetic (one refill never spans 49 days of
/// stalls).
struct TokenBucket {
    private var tokens: Float
    /// The server's stalled time at `last`, in milliseconds, modulo 2³².
    private var stalledAtLast: UInt32
    private var last: Instant

    /// A full bucket; `stalled` is the server's stalled time now (0: the bucket is not told of stalls).
    init(_ rate: Rate?, now: Instant, stalled: Int64 = 0) {
        tokens = Float(rate?.burst ?? 0)
        last = now
        stalledAtLast = Self.mark(stalled)
    }

    /// Takes a token if there is one (always, without a rate).
    mutating func take(_ rate: Rate?, now: Instant, stalled: Int64 = 0) -> Bool {
        guard let rate else { return true }
        refill(rate, now, Self.mark(stalled))
        guard tokens >= 1 else { return false }
        tokens -= 1
        return true
    }

    /// Takes `amount` tokens more, going into debt when there are not that many: what its owner
    /// sends next is refused until the rate has paid the debt back.
    mutating func charge(_ amount: Double, _ rate: Rate?, now: Instant, stalled: Int64 = 0) {
        guard let rate, amount > 0 else { return }
        refill(rate, now, Self.mark(stalled))
        tokens -= Float(amount)
    }

    /// True when the bucket is full again at `now` (its owner may be forgotten).
    mutating func isFull(_ rate: Rate?, now: Instant) -> Bool {
        guard let rate else { return true }
        refill(rate, now, stalledAtLast)
        return tokens >= Float(rate.burst)  // As a Float: 33.3 is stored as 33.2999…
    }

    private static func mark(_ stalled: Int64) -> UInt32 { UInt32(truncatingIfNeeded: stalled) }

    private mutating func refill(_ rate: Rate, _ now: Instant, _ stalled: UInt32) {
        let since = max(now - last, 0)
        let elapsed = Double(since) / 1000
        let stall = Double(min(Int64(stalled &- stalledAtLast), since)) / 1000
        let cap = rate.burst + stall * rate.perSecond
        let held = Double(tokens)
        if held < cap { tokens = Float(min(cap, held + elapsed * rate.perSecond)) }
        last = now
        stalledAtLast = stalled
    }
}

/// What the hub keeps per client address: how many connections it has open (WebSockets, and
/// accepted ones not upgraded yet), and how fast it opens connections and makes boards.
/// Forgotten once it has no connection, full buckets and no refusal left to log.
final class AddressState {
    /// WebSocket sessions, by the address the session's peer is (a proxy's client's, or a
    /// forwarded connection's).
    var connections = 0
    /// Accepted connections not upgraded yet, by the socket's address (SocketGate.swift).
    var pending = 0
    /// Connections refused at accept since the last line about it, and the last cap that did it.
    var refused = 0
    var refusedBy = SocketRefusal.pendingPerAddress
    /// When the last line about refusals at accept was written.
    var refusalLogged: Instant?
    var connects: TokenBucket
    var creations: TokenBucket
    /// Ops sent over HTTP (`POST /api/boards/{id}/ops`): one bucket of `opRate` per address, as
    /// one WebSocket connection has.
    var restOps: TokenBucket

    init(_ config: Hub.Config, now: Instant) {
        connects = TokenBucket(config.connectRate, now: now)
        creations = TokenBucket(config.boardCreationRate, now: now)
        restOps = TokenBucket(config.opRate, now: now)
    }

    func isIdle(_ config: Hub.Config, now: Instant) -> Bool {
        guard connections == 0, pending == 0, refused == 0 else { return false }
        return connects.isFull(config.connectRate, now: now) && creations.isFull(config.boardCreationRate, now: now)
            && restOps.isFull(config.opRate, now: now)
    }
}

/// The limits: per connection (message rates: `Sessions`), per address (connections, connects, new boards),
/// per board (users) and per server (boards in memory). Each refusal says why and names a limit
/// that is a flag.
extension Hub {
    /// Counts a new connection against its address; false (and the connection is closed) when over.
    func admit(_ session: Session) -> Bool {
        let address = addressState(session.peer)
        if config.maxConnectionsPerAddress > 0 && address.connections >= config.maxConnectionsPerAddress {
            meters.limitHits.add(.connectionsPerAddress)
            log(.warning, "\(session.id) from \(session.peer): over \(config.maxConnectionsPerAddress) connections")
            refuse(
                session.id, ProtocolError(.rateLimited, "too many connections from your address"), code: 4429,
                reason: "too many connections")
            return false
        }
        if !address.connects.take(config.connectRate, now: now) {
            meters.limitHits.add(.connectRate)
            log(.warning, "\(session.id) from \(session.peer): connecting too fast")
            refuse(
                session.id, ProtocolError(.rateLimited, "too many new connections from your address; slow down"),
                code: 4429, reason: "too many connections")
            return false
        }
        address.connections += 1
        sessions.markCounted(session)
        return true
    }

    /// The connection is gone (its session removed): its address has one fewer.
    func release(_ session: Session) {
        guard session.counted, let address = addresses[session.peer] else { return }
        address.connections -= 1
    }

    /// Charges the session's address for a board made from the template; false (and the
    /// session is refused) when over.
    func mayCreate(for session: Session) -> Bool {
        guard mayCreate(from: session.peer) else {
            log(.warning, "\(session.id) from \(session.peer) makes new boards too fast")
            refuse(
                session.id, ProtocolError(.rateLimited, "too many new boards from your address; slow down"),
                code: 4429, reason: "too many new boards")
            return false
        }
        return true
    }

    /// Charges `peer` for a new board (made by `hello`, or by `POST /api/boards` without access
    /// control); false when over `--board-creations`.
    func mayCreate(from peer: String) -> Bool {
        guard addressState(peer).creations.take(config.boardCreationRate, now: now) else {
            meters.limitHits.add(.boardCreations)
            return false
        }
        return true
    }

    /// Closes connections that have not said `hello` in time, and forgets idle addresses.
    func enforceTimeouts() {
        expireHellos()  // Hub+Sessions.swift
        if addresses.count > sessions.count { addresses.forgetIdle() }
    }

    func addressState(_ peer: String) -> AddressState { addresses.state(peer) }
}

/// The one budget of log lines clients can cause (`Hub.Config.logRate`), shared like the metrics
/// registry: the hub draws on it for its `.log` actions and the transport for its own client
/// lines (`ClientLog`), so that together they write at most `logRate` such lines, not twice that.
/// Made at the first line, when the time is known; time is passed in. Confined to the service
/// thread (with the hub).
package final class ClientLineBudget {
    private let rate: Rate
    private var budget: LogBudget?

    /// A budget of `rate` lines.
    package init(_ rate: Rate) { self.rate = rate }

    /// Whether a line may be written now; if not, it is counted.
    package func allows(now: Instant) -> Bool {
        if budget == nil { budget = LogBudget(rate, now: now) }
        return budget!.allows(now: now)
    }

    /// The line that reports suppressed lines, when one is due.
    package func report(now: Instant) -> String? { budget?.report(now: now) }
}

/// Bounds the log lines clients can cause: `rate` lines pass, the rest are counted and reported
/// as one line at most every `reportEvery` milliseconds. Time is passed in.
package struct LogBudget {
    private let rate: Rate
    private var bucket: TokenBucket
    private var suppressed = 0
    private var nextReport: Instant
    private let reportEvery: Int64

    /// A budget of `rate` lines.
    package init(_ rate: Rate, reportEvery: Int64 = 10_000, now: Instant) {
        self.rate = rate
        bucket = TokenBucket(rate, now: now)
        self.reportEvery = reportEvery
        nextReport = now
    }

    /// Whether a line may be written now; if not, it is counted.
    package mutating func allows(now: Instant) -> Bool {
        if bucket.take(rate, now: now) { return true }
        suppressed += 1
        return false
    }

    /// The line that reports suppressed lines, when one is due.
    package mutating func report(now: Instant) -> String? {
        guard suppressed > 0, now >= nextReport else { return nil }
        defer {
            suppressed = 0
            nextReport = now + reportEvery
        }
        return "\(suppressed) log line(s) suppressed: clients caused more than \(Int(rate.perSecond)) a second"
    }
}
