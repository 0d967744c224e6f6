import Basics
import BoardCore
import BoardHub
import Testing

@testable import BoardServer

@Suite struct UpstreamTests {
    func item(_ s: String) -> ItemID { ItemID(s)! }
    func opID(_ s: String) -> OpID { OpID(s)! }

    func upstream(limit: Int, hub: [[UInt8]] = []) -> Upstream {
        Upstream(
            id: UpstreamID(1), connection: ConnectionID(1), owner: NodeAddress(host: "127.0.0.1", port: 1),
            deadline: Instant(milliseconds: 0),
            limit: limit, headroom: 16, hubMessages: hub)
    }

    func bytes(_ n: Int, _ fill: UInt8 = 0x61) -> [UInt8] { [UInt8](repeating: fill, count: n) }

    @Test func theBoundCountsQueuedUnansweredAndTheLastWrite() {
        let up = upstream(limit: 100, hub: [bytes(10)])
        _ = up.handle(.established)
        #expect(up.heldBytes == 10)
        #expect(up.enqueue(bytes(50)))
        #expect(!up.enqueue(bytes(41)))
        #expect(up.heldBytes == 60)
        // Written but not answered: still held (a retry sends it again).
        let first = up.nextWrite()
        #expect(first?.count == 10)
        #expect(first.map { Array($0) } == bytes(10))
        up.wrote(wentOut: true)
        #expect(up.heldBytes == 60)
        _ = up.nextWrite()
        up.wrote(wentOut: false)
        // The last write counts until the next WRITEABLE, on top of being unanswered.
        #expect(up.heldBytes == 110)
        _ = up.handle(.writeable)
        #expect(up.heldBytes == 60)
        up.didAnswer()
        #expect(up.heldBytes == 0)
        #expect(up.enqueue(bytes(100)))
        #expect(!up.enqueue(bytes(1)))
    }

    @Test func whatTheOwnerNeverAnsweredGoesBackToTheHubButNotTheHubsOwnMessages() {
        let up = upstream(limit: 1000, hub: [bytes(1, 1), bytes(1, 2)])
        _ = up.handle(.established)
        #expect(up.enqueue(bytes(1, 3)))
        #expect(up.enqueue(bytes(1, 4)))
        _ = up.nextWrite()
        _ = up.nextWrite()
        _ = up.nextWrite()
        #expect(up.unrelayed() == [bytes(1, 3), bytes(1, 4)])
        // Only the first hub message written: the second is still queued, and still the hub's.
        let early = upstream(limit: 1000, hub: [bytes(1, 1), bytes(1, 2)])
        _ = early.handle(.established)
        #expect(early.enqueue(bytes(1, 3)))
        _ = early.nextWrite()
        #expect(early.unrelayed() == [bytes(1, 3)])
        // Once the owner answered, nothing goes back.
        up.didAnswer()
        #expect(up.unrelayed().isEmpty)
    }

    @Test func writesAreAskedForOnlyWhenEstablishedAndSomethingWaits() {
        let up = upstream(limit: 1000, hub: [bytes(3)])
        #expect(!up.wantsWrite())
        _ = up.handle(.established)
        #expect(up.wantsWrite())
        #expect(!up.wantsWrite())
        _ = up.handle(.writeable)
        _ = up.nextWrite()
        #expect(!up.wantsWrite())
        _ = up.handle(.abandon(code: 1000, reason: ""))
        #expect(up.wantsWrite())
    }

    @Test func relayedDragMessagesAreMarkedForCoalescing() {
        let hover = ServerMessage.hover(
            item: item("t1"), over: item("t2"), zone: nil, mode: .move, by: UserID("u7"), at: 3, t: 1.5)
        #expect(RelayedMessage.dragHand(hover.encoded())! == ("u7", true))
        let start = ServerMessage.dragStart(item: item("t1"), by: UserID("u8"), at: 3)
        #expect(RelayedMessage.dragHand(start.encoded())! == ("u8", false))
        let drop = ServerMessage.drop(item: item("t1"), by: UserID("u9"), at: 3, reason: nil)
        #expect(RelayedMessage.dragHand(drop.encoded())! == ("u9", false))
        #expect(RelayedMessage.dragHand(ServerMessage.pong.encoded()) == nil)
        #expect(RelayedMessage.dragHand(Array(#"{"type":"hover","by":5}"#.utf8)) == nil)
        #expect(RelayedMessage.dragHand(Array(#"{"type":"hover", broken"#.utf8)) == nil)
        let frame = RelayedMessage.frame(hover.encoded())
        #expect(frame.isHover && frame.hand == "u7" && Array(frame.payload) == hover.encoded())
    }

    @Test func advertisedAddressesAndForwardedForValues() {
        #expect(NodeAddress(advertise: "10.0.0.2:8080") == NodeAddress(host: "10.0.0.2", port: 8080))
        #expect(NodeAddress(advertise: "[::1]:9") == NodeAddress(host: "::1", port: 9))
        #expect(NodeAddress(advertise: "node-b.internal:443") == NodeAddress(host: "node-b.internal", port: 443))
        for bad in ["10.0.0.2", "10.0.0.2:", ":80", "h:0", "h:65536", "h:x"] {
            #expect(NodeAddress(advertise: bad) == nil)
        }
        #expect(Relay.isAddress("203.0.113.7") && Relay.isAddress("2001:db8::1"))
        for bad in ["", "a b", "1.2.3.4\r\nx: y", "?", String(repeating: "1", count: 46)] {
            #expect(!Relay.isAddress(bad))
        }
        #expect(Relay.hex([0, 1, 0xAB, 0xFF]) == "0001abff")
    }

    /// The relay's ids name themselves as the log lines always have (and tests and operators grep).
    @Test func relayIDsAndOwnersNameThemselvesInLogs() {
        #expect("\(UpstreamID(7))" == "upstream 7")
        #expect("\(LinkID(7))" == "node link 7")
        #expect("\(ForwardID(7))" == "forward 7")
        #expect(ForwardID(2) < ForwardID(10))
        #expect("\(NodeAddress(advertise: "[::1]:9")!)" == "::1:9")
        #expect("\(NodeAddress(advertise: "10.0.0.2:8080")!)" == "10.0.0.2:8080")
    }
}

/// The upstream's lifecycle, event by event: one phase, transitions in `handle`, the end read from the phase.
@Suite struct UpstreamPhaseTests {
    func upstream(deadline: Int64 = 100, wsi: Bool = true) -> Upstream {
        let up = Upstream(
            id: UpstreamID(1), connection: ConnectionID(1), owner: NodeAddress(host: "127.0.0.1", port: 1),
            deadline: Instant(milliseconds: deadline),
            limit: 1000, headroom: 16, hubMessages: [[1, 2, 3]])
        // Any non-nil pointer: the phase machine only asks whether lws made a wsi, never touches it.
        if wsi { up.wsi = OpaquePointer(bitPattern: 0x10) }
        return up
    }

    @Test func anAcceptedHandshakeAsksToWriteWhatTheHubSent() {
        let up = upstream()
        #expect(up.phase == .connecting)
        #expect(up.handle(.established) == .requestWrite)
        #expect(up.phase == .established)
        #expect(up.wantsWrite())
        #expect(up.handle(.writeable) == .write)
        #expect(up.handle(.closed) == .end(.closed))
        #expect(up.phase == .ended(.closed))
    }

    @Test func aHandshakeNotDoneByTheDeadlineIsKilledOnEveryTickAndEndsAsATimeout() {
        let up = upstream(deadline: 100)
        #expect(up.handle(.tick(Instant(milliseconds: 99))) == .none)
        #expect(up.phase == .connecting)
        #expect(up.handle(.tick(Instant(milliseconds: 100))) == .kill)
        #expect(up.phase == .timedOut)
        #expect(up.handle(.tick(Instant(milliseconds: 350))) == .kill)
        #expect(up.handle(.established) == .refuse, "a handshake that comes after the deadline is refused")
        #expect(up.handle(.failed) == .end(.timeout))
        #expect(up.handle(.closed) == .none, "ended once")
    }

    @Test func withoutAWsiADeadlineOrAnAbandonEndsItAtOnce() {
        let late = upstream(deadline: 0, wsi: false)
        #expect(late.handle(.tick(Instant(milliseconds: 0))) == .end(.timeout))
        let gone = upstream(wsi: false)
        #expect(gone.handle(.abandon(code: 1001, reason: "client gone")) == .end(.client))
    }

    @Test func anAbandonedHandshakeIsKilledItsEndIsTheClientsAndWhatItHeldIsDropped() {
        let up = upstream()
        #expect(up.handle(.abandon(code: 1001, reason: "client gone")) == .kill)
        #expect(up.phase == .abandoned && up.isAbandoned)
        #expect(up.heldBytes == 0)
        #expect(up.handle(.established) == .refuse)
        #expect(up.handle(.tick(Instant(milliseconds: 200))) == .kill)
        #expect(up.handle(.closed) == .end(.client))
    }

    @Test func anEstablishedUpstreamGivenUpSendsItsCloseOnceFromTheNextWriteable() {
        let up = upstream()
        _ = up.handle(.established)
        #expect(up.handle(.abandon(code: 1000, reason: "client closed")) == .requestWrite)
        #expect(up.phase == .closing(code: 1000, reason: "client closed", handedOver: false))
        #expect(up.handle(.abandon(code: 1001, reason: "again")) == .none)
        #expect(up.handle(.writeable) == .sendClose(code: 1000, reason: "client closed"))
        #expect(up.handle(.writeable) == .none)
        #expect(up.handle(.tick(Instant(milliseconds: 10_000))) == .none, "no deadline once established")
        #expect(up.handle(.closed) == .end(.client))
    }

    @Test func howItEndedDependsOnThePhase() {
        let refused = upstream()
        #expect(refused.handle(.closed) == .end(.failed), "closed before the handshake: failed")
        let errored = upstream()
        _ = errored.handle(.established)
        #expect(errored.handle(.failed) == .end(.failed))
        let closed = upstream()
        _ = closed.handle(.established)
        #expect(closed.handle(.closed) == .end(.closed))
    }
}
