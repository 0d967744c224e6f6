import BoardCore
import Testing

@testable import BoardServer

/// The server's own pings and hang-ups (WebSocket/Keepalive.swift), step by step on a clock the
/// test moves: a ping once `pingAfter` has passed since the connection was last valid, one only,
/// and the hang-up at `hangUpAfter`; a pong starts it over.
@Suite struct KeepaliveTests {
    let keepalive = Keepalive(pingAfter: .seconds(20), hangUpAfter: .seconds(60))
    let start = Instant(milliseconds: 1_000_000)

    @Test func aConnectionIsPingedOnceThenHungUpOnWithoutAPong() {
        var state = Keepalive.State(validSince: start)
        #expect(keepalive.step(state, now: start + 19_999) == .none)
        #expect(keepalive.step(state, now: start + 20_000) == .ping)
        state.pinged = true
        #expect(keepalive.step(state, now: start + 40_000) == .none)
        #expect(keepalive.step(state, now: start + 59_999) == .none)
        #expect(keepalive.step(state, now: start + 60_000) == .hangUp)
    }

    @Test func aPongStartsItOver() {
        var state = Keepalive.State(validSince: start)
        state.pinged = true
        state.pingDue = true
        state.confirmed(at: start + 25_000)
        #expect(!state.pinged && !state.pingDue)
        #expect(keepalive.step(state, now: start + 44_999) == .none)  // not at 60 s from the start
        #expect(keepalive.step(state, now: start + 45_000) == .ping)
        #expect(keepalive.step(state, now: start + 85_000) == .hangUp)
    }

    @Test func aHangUpBeforeThePingIsRaisedToThePing() {
        let short = Keepalive(pingAfter: .seconds(30), hangUpAfter: .seconds(10))
        let state = Keepalive.State(validSince: start)
        #expect(short.step(state, now: start + 29_999) == .none)
        #expect(short.step(state, now: start + 30_000) == .hangUp)
    }

    @Test func theConnectionsAreLookedAtAtMostOnceASecond() {
        var keepalive = keepalive
        let due = [0, 250, 999, 1000, 1250].map { keepalive.sweepDue(now: start + $0) }
        #expect(due == [true, false, false, true, false])
    }
}
