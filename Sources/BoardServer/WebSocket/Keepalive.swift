internal import BoardCore

/// Pings and hang-ups for the WebSocket connections, instead of lws 4.1.6's validity timers.
///
/// lws keeps a timer per connection for its `retry_and_idle_policy` in one list sorted by due
/// time, and inserts into it by walking from the head (`lws_dll2_add_sorted`). Every connection's
/// timer is re-armed at the same distance ahead (at its upgrade, then at each pong), so each
/// insert walks the whole list: a cost per connection that grows with the connections, paid 50
/// times a second per 1,000 connections pinged every 20 s, and at every join. On a node with 10,000
/// connections that walk was 56–79% of the service thread's time while they joined (issue 33,
/// docs/performance.md). The server now gives lws a policy with no hang-up (so lws keeps no
/// such timer) and does the same here: each tick (`WebSockets.tick`) looks at every connection
/// at most once a second, a constant cost per connection and second.
///
/// The rule, as lws's: a connection is *valid* from its upgrade and from each pong it sends. Once
/// it has been valid `pingAfter` ago it is sent a ping (from its next WRITEABLE, one write like
/// any other); once `hangUpAfter` ago it is hung up on at once, without a close frame (a peer that
/// answers no ping would not read one). A pong the server did not ask for counts too: it is the
/// unsolicited pong RFC 6455 5.5.3 allows as a heartbeat, and it costs the server nothing kept
/// (an empty one, though, lws does not pass on).
struct Keepalive {
    /// What a connection is due, by how long ago it was last valid.
    enum Step: Equatable {
        /// Nothing yet.
        case none
        /// A ping (once: a connection already pinged is not pinged again before its next pong).
        case ping
        /// The hang-up.
        case hangUp
    }

    /// Where a connection is: valid and not pinged, or pinged (and since when it was last valid).
    struct State {
        /// When the connection was last valid (its upgrade, its last pong).
        var validSince: Instant
        /// A ping was asked for since then.
        var pinged = false
        /// The ping waits for the connection's next WRITEABLE.
        var pingDue = false
    }

    /// `--ping-after` and `--hang-up-after`, as spans.
    let pingAfter: Instant.Span
    let hangUpAfter: Instant.Span
    /// The last time every connection was looked at.
    private var lastSweep: Instant?
    /// What a ping carries (lws 4.1.6 hands the server no RECEIVE_PONG for an empty pong, so an
    /// empty ping's answer would never count).
    static let pingPayload: [UInt8] = Array("keepalive".utf8)
    /// How often the connections are looked at.
    static let sweepInterval = Instant.Span(milliseconds: 1000)

    init(pingAfter: Duration, hangUpAfter: Duration) {
        self.pingAfter = Instant.Span(pingAfter)
        self.hangUpAfter = Instant.Span(max(hangUpAfter, pingAfter))
    }

    /// What a connection in `state` is due at `now`.
    func step(_ state: State, now: Instant) -> Step {
        let valid = now - state.validSince
        if valid >= hangUpAfter.milliseconds { return .hangUp }
        if valid >= pingAfter.milliseconds && !state.pinged { return .ping }
        return .none
    }

    /// True when the connections are to be looked at now (at most once per `sweepInterval`).
    mutating func sweepDue(now: Instant) -> Bool {
        if let lastSweep, now - lastSweep < Self.sweepInterval.milliseconds { return false }
        lastSweep = now
        return true
    }
}

extension Keepalive.State {
    /// The connection proved it is there (its upgrade, a pong).
    mutating func confirmed(at now: Instant) {
        validSince = now
        pinged = false
        pingDue = false
    }
}
