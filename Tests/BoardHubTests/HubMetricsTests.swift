import BoardAuth
import BoardCore
import BoardMetrics
import BoardStore
import Testing

@testable import BoardHub

/// The hub's counters, gauges and histograms move with the events that they count.
@Suite struct HubMetricsTests {
    @Test func theTransportsRefusalsAreCountedInTheHubsFamiliesThroughAnEvent() {
        let h = HubHarness()
        #expect(h.on(.transportCounted(.limit(.sendQueue))).isEmpty)
        _ = h.on(.transportCounted(.limit(.sendQueue)))
        _ = h.on(.transportCounted(.limit(.messageSize)))
        _ = h.on(.transportCounted(.socketRefused(.firstByteTimeout)))
        _ = h.on(.transportCounted(.authFailure(AuthFailure(.metrics, .forged))))
        #expect(h.hub.meters.limitHits.value(.sendQueue) == 2)
        #expect(h.hub.meters.limitHits.value(.messageSize) == 1)
        #expect(h.hub.meters.connectionsRefused.value(.firstByteTimeout) == 1)
        #expect(h.hub.meters.authFailures.value(AuthFailure(.metrics, .forged)) == 1)
    }

    @Test func heldRejectsAndErrorsAreCountedByReasonAndCode() {
        let h = HubHarness()
        let a = h.open(1)
        let b = h.open(2)
        h.joinNew(a)
        h.hello(b, name: "Bo")
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        #expect(h.hub.meters.rejects.value(.held) == 0)
        h.send(b, #"{"type":"dragStart","item":"t1"}"#)
        h.send(b, #"{"type":"hover","item":"t1","over":"t2"}"#)
        h.send(b, "nope")
        #expect(h.hub.meters.rejects.value(.held) == 1)
        #expect(h.hub.meters.rejects.value(.notHolding) == 1)
        #expect(h.hub.meters.errors.value(.badJSON) == 1)
        #expect(h.hub.metrics.render().contains(#"shuffleboard_rejects_total{reason="held"} 1"#))
    }

    @Test func aRejectIsLoggedAtDebugWithTheClientsAddress() {
        let h = HubHarness { $0.logLevel = .debug }
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"hover","item":"t1","over":"t2"}"#)
        #expect(
            logLines(h).contains { $0.0 == .debug && $0.1 == "connection 1 from 127.0.0.1: reject not_holding item t1" }
        )
    }

    @Test func theOpDelayRunsFromTheOpsArrivalToItsBroadcast() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        h.now = h.now + 40
        h.send(a, #"{"type":"toggle","op":"o2","base":0,"item":"t2","on":true}"#)
        #expect(h.hub.meters.opBroadcastDelay.value.count == 0, "nothing is broadcast before it is durable")
        h.now = h.now + 10
        h.makeDurable()
        let delay = h.hub.meters.opBroadcastDelay.value
        #expect(delay.count == 2)
        #expect(abs(delay.sum - 0.06) < 1e-9)  // 50 ms and 10 ms
        #expect(h.hub.meters.opsCommitted.value(.toggle) == 2)
        #expect(h.hub.meters.opsCommitted.value(.swap) == 0)
    }

    @Test func anOpLostToAFailedWriteIsNeverObserved() {
        let h = HubHarness()
        let a = h.open(1)
        h.joinNew(a)
        let actions = h.send(a, #"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
        let writes = actions.compactMap { action -> StoreWrite? in
            if case .persist(let write, _) = action { write } else { nil }
        }
        h.on(.writeFailed(Hub.WriteFailure(board: board("demo"), writes: writes, tickets: [], reason: "test")))
        h.makeDurable()
        #expect(h.hub.meters.opBroadcastDelay.value.count == 0)
        #expect(h.hub.meters.opsCommitted.value(.toggle) == 0)
        #expect(h.hub.meters.errors.value(.unavailable) == 1)
    }

    @Test func holdDurationsAreObservedByHowTheHoldEnded() {
        let h = HubHarness { $0.room.holdTimeout = .seconds(5) }
        let a = h.open(1)
        let b = h.open(2)
        h.joinNew(a)
        h.hello(b, name: "Bo")
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        h.now = h.now + 1_000
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)  // Lifting it again is refused: the hold goes on.
        h.now = h.now + 500
        h.send(a, #"{"type":"drop","item":"t1"}"#)
        h.send(b, #"{"type":"dragStart","item":"t2"}"#)
        h.now = h.now + 250
        h.on(.closed(b))
        h.send(a, #"{"type":"dragStart","item":"t3"}"#)
        h.now = h.now + 5_000
        h.on(.tick)
        let meters = h.hub.meters
        #expect(meters.holdDuration.value(.dropped).count == 1)
        #expect(meters.holdDuration.value(.dropped).sum == 1.5)
        #expect(meters.holdDuration.value(.left).sum == 0.25)
        #expect(meters.holdDuration.value(.expired).sum == 5)
        h.hub.collectMetrics()
        #expect(meters.holds.value == 0)
    }

    @Test func rateLimitedMessagesAndLimitHitsAreCountedAndTheFirstIsAWarning() {
        let h = HubHarness {
            $0.opRate = Rate(perSecond: 1, burst: 2)
            $0.strikeRate = Rate(perSecond: 1, burst: 2)
        }
        let a = h.open(1)
        h.joinNew(a)
        for i in 0..<5 { h.send(a, #"{"type":"toggle","op":"o\#(i)","base":0,"item":"t\#(i + 1)","on":true}"#) }
        #expect(h.hub.meters.rateLimited.value(.op) == 3)
        #expect(h.hub.meters.rateLimited.value(.message) == 0)
        #expect(h.hub.meters.limitHits.value(.rateStrikes) == 1)
        let warnings = logLines(h).filter { $0.0 == .warning }.map(\.1)
        #expect(
            warnings == [
                "connection 1 from 127.0.0.1 sends ops faster than its limit; refusing them",
                "connection 1 from 127.0.0.1 keeps going over its rate limits; closing with 1008",
            ])
    }

    @Test func connectionLimitsAreCountedByLimit() {
        let h = HubHarness { $0.maxConnectionsPerAddress = 1 }
        let a = h.open(1)
        _ = h.open(2)
        h.joinNew(a)
        #expect(h.hub.meters.limitHits.value(.connectionsPerAddress) == 1)
        let other = HubHarness { $0.maxUsersPerBoard = 1 }
        other.joinNew(other.open(1))
        other.hello(other.open(2), name: "Bo")
        #expect(other.hub.meters.limitHits.value(.usersPerBoard) == 1)
        #expect(other.hub.meters.joins.value == 1)
    }

    @Test func refusedTokensAreCountedByReason() {
        let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
        let h = HubHarness { $0.auth = authority }
        let other = authority.mint(Claims(board: board("other"), role: .edit, expires: 4_000_000_000))
        h.send(h.open(1), #"{"type":"hello","board":"demo","name":"Ada"}"#)
        h.send(h.open(2), #"{"type":"hello","board":"demo","name":"Ada","token":"v1.x"}"#)
        h.send(h.open(3), #"{"type":"hello","board":"demo","name":"Ada","token":"\#(other)"}"#)
        h.on(.request(ExchangeID(9), HTTPRequest(method: .get, path: "/api/boards")))
        let meters = h.hub.meters
        #expect(meters.authFailures.value(AuthFailure(.hello, .missing)) == 1)
        #expect(meters.authFailures.value(AuthFailure(.hello, .malformed)) == 1)
        #expect(meters.authFailures.value(AuthFailure(.hello, .otherBoard)) == 1)
        #expect(meters.authFailures.value(AuthFailure(.api, .missing)) == 1)
        #expect(meters.errors.value(.unauthorized) == 3)
    }

    @Test func aScrapeSetsBoardsUsersAndNamesOnlyTheBusiestBoards() {
        let h = HubHarness { $0.metricsTopBoards = 2 }
        var next: UInt64 = 0
        for (name, users) in [("quiet", 1), ("busy", 3), ("middle", 2)] {
            for user in 0..<users {
                next += 1
                let c = h.open(next)
                if user == 0 { h.joinNew(c, board: name) } else { h.hello(c, board: name) }
            }
        }
        h.hub.collectMetrics()
        let meters = h.hub.meters
        #expect(meters.boardsLoaded.value == 3)
        #expect(meters.users.value == 6)
        #expect(meters.boardUsers.value(BoardLabel(board("busy"))) == 3)
        #expect(meters.boardUsers.value(BoardLabel(board("middle"))) == 2)
        let text = h.hub.metrics.render()
        #expect(!text.contains(#"board="quiet""#), "only the top 2 are named")
        #expect(text.contains(#"shuffleboard_board_users{board="busy"} 3"#))
    }

    @Test func theHubSaysWhenItIsStopping() {
        let h = HubHarness()
        h.joinNew(h.open(1))
        #expect(!h.hub.isStopping)
        h.on(.shutdown)
        #expect(h.hub.isStopping, "/readyz says shutting_down from the shutdown event on")
    }

    @Test func aConnectionIsLoggedAtInfoWithItsAddress() {
        let h = HubHarness()
        _ = h.open(7)
        #expect(logLines(h).contains { $0.0 == .info && $0.1 == "connection 7 opened from 127.0.0.1" })
    }

    private func logLines(_ h: HubHarness) -> [(LogLevel, String)] {
        h.log.compactMap { if case .log(let level, let line) = $0 { (level, line) } else { nil } }
    }
}
