import BoardCore
import Testing

@testable import BoardHub

/// The limits on connections before they become WebSockets (Hub+Sockets.swift), event by event:
/// what is refused at accept, what is checked for silence and when, what is logged, and that
/// every count comes back.
@Suite struct SocketLimitTests {
    /// The sockets refused in `actions`.
    fileprivate func refused(_ actions: [Hub.Action]) -> [UInt64] {
        actions.compactMap { if case .refuseSocket(let id) = $0 { id.rawValue } else { nil } }
    }

    /// The sockets to check for silence in `actions`.
    private func checked(_ actions: [Hub.Action]) -> [UInt64] {
        actions.compactMap { if case .closeIfSilent(let id) = $0 { id.rawValue } else { nil } }
    }

    private func warnings(_ h: HubHarness, from start: Int) -> [String] {
        h.log[start...].compactMap { if case .log(.warning, let line) = $0 { line } else { nil } }
    }

    /// Moves the clock `ms` ahead with a tick every 250 ms, as the transport ticks (a longer gap
    /// between events would be a stall of the service thread, which the hub logs).
    private func tick(_ h: HubHarness, through ms: Int64) {
        var left = ms
        while left > 0 {
            let step = min(left, 250)
            h.now = h.now + step
            h.on(.tick)
            left -= step
        }
    }

    @discardableResult
    private func accept(_ h: HubHarness, _ n: UInt64, from peer: String = "127.0.0.1") -> [UInt64] {
        refused(h.on(.accepted(SocketID(n), peer: peer)))
    }

    @Test func connectionsNotUpgradedAreCappedPerAddressAtAccept() {
        let h = HubHarness { $0.maxPendingPerAddress = 2 }
        #expect(accept(h, 1) == [])
        #expect(accept(h, 2) == [])
        #expect(accept(h, 3) == [3])
        #expect(accept(h, 4, from: "127.0.0.2") == [], "another address")
        h.on(.socketClosed(SocketID(1)))
        #expect(accept(h, 5) == [], "a slot came free when one closed")
        h.on(.upgraded(SocketID(2)))
        #expect(accept(h, 6) == [], "and when one upgraded")
        #expect(accept(h, 7) == [7])
        #expect(h.hub.meters.connectionsRefused.value(.pendingPerAddress) == 2)
        #expect(h.hub.gate.sockets.count == 3)
    }

    @Test func aWebSocketOverItsCapIsStillAcceptedAndHearsWhy() {
        let h = HubHarness {
            $0.maxConnectionsPerAddress = 2
            $0.maxPendingPerAddress = 1
            $0.connectRate = nil
        }
        for n: UInt64 in 1...2 {
            #expect(accept(h, n) == [])
            h.on(.upgraded(SocketID(n)))
            h.on(.opened(ConnectionID(n), peer: "127.0.0.1"))
        }
        #expect(accept(h, 3) == [], "two WebSockets and no pending")
        #expect(accept(h, 4) == [4], "one pending")
        h.on(.upgraded(SocketID(3)))
        #expect(closes(in: h.on(.opened(ConnectionID(3), peer: "127.0.0.1"))).map(\.1) == [4429])
    }

    @Test func withoutAPendingCapAllConnectionsCountAgainstTheCapAtAccept() {
        let h = HubHarness {
            $0.maxConnectionsPerAddress = 2
            $0.maxPendingPerAddress = 0
            $0.connectRate = nil
        }
        accept(h, 1)
        h.on(.upgraded(SocketID(1)))
        h.on(.opened(ConnectionID(1), peer: "127.0.0.1"))
        #expect(accept(h, 2) == [], "one WebSocket and one pending")
        #expect(accept(h, 3) == [3])
        #expect(h.hub.meters.connectionsRefused.value(.connectionsPerAddress) == 1)
        h.on(.closed(ConnectionID(1)))
        #expect(accept(h, 4) == [], "the WebSocket's slot came free")
    }

    @Test func aConnectionThatSendsNothingIsCheckedOnceItsTimeIsOver() {
        let h = HubHarness { $0.firstByteTimeout = .seconds(5) }
        accept(h, 1)
        accept(h, 2)
        accept(h, 3)
        h.now = h.now + 1_000
        accept(h, 4)
        h.on(.upgraded(SocketID(2)))
        h.on(.socketClosed(SocketID(3)))
        h.now = h.now + 3_999
        #expect(checked(h.on(.tick)) == [])
        h.now = h.now + 1
        #expect(checked(h.on(.tick)) == [1], "not the one upgraded, nor the one closed")
        #expect(checked(h.on(.tick)) == [], "checked once")
        h.now = h.now + 1_000
        #expect(checked(h.on(.tick)) == [4])
        #expect(h.hub.gate.silenceChecks.isEmpty)
    }

    @Test func noTimeoutChecksNothing() {
        let h = HubHarness { $0.firstByteTimeout = .zero }
        accept(h, 1)
        h.now = h.now + 3_600_000
        #expect(checked(h.on(.tick)) == [])
    }

    @Test func theChecksOfClosedSocketsDoNotPileUp() {
        let h = HubHarness { $0.maxPendingPerAddress = 0 }
        for n in 1...1_000 {
            accept(h, UInt64(n))
            h.on(.socketClosed(SocketID(UInt64(n))))
        }
        accept(h, 1_001)
        h.on(.tick)
        #expect(h.hub.gate.silenceChecks.count <= 66, "kept as small as the open sockets")
        h.now = h.now + 5_000
        #expect(checked(h.on(.tick)) == [1_001])
    }

    @Test func aTrustedProxyIsNotCappedButStillCheckedForSilence() {
        let h = HubHarness {
            $0.maxPendingPerAddress = 1
            $0.maxConnectionsPerAddress = 1
            $0.uncappedAddresses = ["10.0.0.1"]
        }
        for n in 1...5 { #expect(accept(h, UInt64(n), from: "10.0.0.1") == []) }
        #expect(h.hub.addresses["10.0.0.1"] == nil, "not counted at all")
        h.now = h.now + 5_000
        #expect(checked(h.on(.tick)) == [1, 2, 3, 4, 5])
        for n in 1...5 { h.on(.socketClosed(SocketID(UInt64(n)))) }
        #expect(h.hub.gate.sockets.isEmpty)
    }

    @Test func aCutOffIsLoggedOnceThenSummarizedUntilItEnds() {
        let h = HubHarness {
            $0.maxPendingPerAddress = 1
            $0.cutOffLogEvery = .seconds(10)
        }
        accept(h, 1)
        var start = h.log.count
        for n in 2...100 { accept(h, UInt64(n)) }
        #expect(
            warnings(h, from: start) == [
                "address 127.0.0.1 cut off: 1 connections not upgraded, --max-pending-per-address 1; "
                    + "refusing its new connections at accept"
            ])
        start = h.log.count
        tick(h, through: 9_999)
        #expect(warnings(h, from: start) == [])
        tick(h, through: 1)
        #expect(
            warnings(h, from: start) == [
                "address 127.0.0.1 still cut off: 98 connection(s) refused at accept in the last 10 s "
                    + "(1 connections not upgraded, --max-pending-per-address 1)"
            ])
        start = h.log.count
        tick(h, through: 10_000)
        #expect(warnings(h, from: start) == [], "nothing refused since: the episode is over")
        #expect(h.hub.gate.cutOff.isEmpty)
        accept(h, 101)
        #expect(warnings(h, from: start).first?.hasPrefix("address 127.0.0.1 cut off") == true, "a new one")
    }

    @Test func everyCountComesBackAndTheAddressIsForgotten() {
        let h = HubHarness {
            $0.maxPendingPerAddress = 2
            $0.connectRate = nil
        }
        for n in 1...4 { accept(h, UInt64(n)) }
        h.on(.upgraded(SocketID(1)))
        h.on(.opened(ConnectionID(1), peer: "127.0.0.1"))
        h.on(.socketClosed(SocketID(2)))
        h.on(.closed(ConnectionID(1)))
        #expect(h.hub.addresses["127.0.0.1"]?.pending == 0)
        #expect(h.hub.addresses["127.0.0.1"]?.connections == 0)
        h.now = h.now + 20_000
        h.on(.tick)
        h.on(.tick)
        #expect(h.hub.addresses.isEmpty)
        #expect(h.hub.gate.sockets.isEmpty)
        #expect(h.hub.gate.cutOff.isEmpty)
    }

    @Test func aSocketUnknownToTheHubChangesNothing() {
        let h = HubHarness { $0.maxPendingPerAddress = 1 }
        accept(h, 1)
        h.on(.socketClosed(SocketID(9)))
        h.on(.upgraded(SocketID(9)))
        h.on(.socketClosed(SocketID(1)))
        h.on(.socketClosed(SocketID(1)))
        #expect(h.hub.addresses["127.0.0.1"]?.pending == 0)
        #expect(accept(h, 2) == [])
    }
}

extension SocketLimitTests {
    @Test func anotherNodeOfTheClusterIsNotCappedOnceItShowedTheSecret() {
        let h = HubHarness { $0.maxPendingPerAddress = 1 }
        #expect(refused(h.on(.accepted(SocketID(1), peer: "10.0.0.9"))) == [])
        #expect(refused(h.on(.accepted(SocketID(2), peer: "10.0.0.9"))) == [2])
        h.on(.clusterPeer("10.0.0.9"))
        for n: UInt64 in 3...6 { #expect(refused(h.on(.accepted(SocketID(n), peer: "10.0.0.9"))) == []) }
        h.on(.socketClosed(SocketID(1)))
        #expect(h.hub.addresses["10.0.0.9"]?.pending == 0, "the one counted before still comes back")
    }
}
