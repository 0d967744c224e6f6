import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// `Cluster` alone, without the hub: forwards and their retries (final and retryable close codes,
/// the backoff, giving up), connections relayed here sent back, late joins, leases renewed, lost
/// and run out, releases, and relayed REST requests (their limit, timeout and answers). Leases of
/// 5 s, forwards timing out after 3 s, two relays at most.
@Suite struct ClusterRulesTests {
    let lease: Int64 = 5_000
    let demo = board("demo")
    let other = board("other")
    let c1 = ConnectionID(1)
    let c2 = ConnectionID(2)
    let x1 = ExchangeID(11)
    let x2 = ExchangeID(12)
    let x3 = ExchangeID(13)
    let owner = "127.0.0.1:9002"

    func rules(clustered: Bool = true, maxMessagesWhileJoining: Int = 4) -> Cluster {
        Cluster(
            settings: clustered ? ClusterSettings(node: "a", lease: .milliseconds(lease), maxHTTPForwards: 2) : nil,
            lease: Instant.Span(milliseconds: lease), forwardTimeout: Instant.Span(milliseconds: 3_000),
            maxMessagesWhileJoining: maxMessagesWhileJoining)
    }

    func at(_ milliseconds: Int64) -> Instant { Instant(milliseconds: milliseconds) }

    func withoutLogs(_ actions: [Cluster.Action]) -> [Cluster.Action] {
        actions.filter { if case .log = $0 { false } else { true } }
    }

    /// Forwards `id` for `demo` to node `b`.
    func forward(_ cluster: inout Cluster, _ id: ConnectionID) -> [Cluster.Action] {
        cluster.forward(id, board: demo, to: "b", advertise: owner, relayed: false, peer: "10.0.0.1")
    }

    // MARK: Forwards

    @Test func aForwardIsLoggedThenRelayed() {
        var cluster = rules()
        #expect(
            forward(&cluster, c1) == [
                .log(.info, "connection 1 from 10.0.0.1: board demo is on node b; forwarding to \(owner)"),
                .forward(c1, node: "b", advertise: owner),
            ])
    }

    @Test func aConnectionAnotherNodeForwardedHereIsSentBackWith1012AndNotForwarded() {
        var cluster = rules()
        let actions = cluster.forward(c1, board: demo, to: "b", advertise: owner, relayed: true, peer: "10.0.0.1")
        #expect(withoutLogs(actions) == [.close(c1, code: 1012, reason: "board moved; try again", flush: false)])
        let ended = cluster.forwardEnded(c1, code: nil, answered: false, queued: 0, peer: "10.0.0.1", now: at(0))
        #expect(ended.isEmpty, "no forward of it is kept")
    }

    @Test func anOwnersCloseAboutTheClientClosesItTheSameWayAfterWhatCameBefore() {
        for code: UInt16 in [1000, 1003, 1007, 1008, 1009, 1013, 4000, 4401, 4404, 4409, 4999] {
            var cluster = rules()
            _ = forward(&cluster, c1)
            let actions = cluster.forwardEnded(c1, code: code, answered: true, queued: 0, peer: "p", now: at(0))
            #expect(
                actions == [
                    .log(.debug, "connection 1: node b closed the forward of board demo with \(code)"),
                    .close(c1, code: code, reason: "closed by the board's owner", flush: true),
                ], "code \(code)")
            let again = cluster.forwardEnded(c1, code: code, answered: true, queued: 0, peer: "p", now: at(0))
            #expect(again.isEmpty, "a forward ends once")
        }
    }

    @Test func anOwnerThatWentAwayAfterAnsweringClosesTheClientWith1012ToResume() {
        for code: UInt16? in [nil, 1001, 1006, 1011, 1012, 3000] {
            var cluster = rules()
            _ = forward(&cluster, c1)
            let actions = cluster.forwardEnded(c1, code: code, answered: true, queued: 0, peer: "p", now: at(0))
            #expect(
                actions == [
                    .log(.info, "connection 1: node b, owner of board demo, went away; closing with 1012"),
                    .close(c1, code: 1012, reason: "board owner gone; reconnect", flush: false),
                ], "code \(String(describing: code))")
        }
    }

    @Test func aForwardNeverAnsweredIsRetriedWithADoublingDelayUntilThreeLeasesThenRefusedWith1013() {
        var cluster = rules()
        var now: Int64 = 1_000
        var delays: [Int64] = []
        var refused: [Cluster.Action] = []
        for _ in 0..<100 {  // Bounded: it gives up after three leases.
            #expect(withoutLogs(forward(&cluster, c1)) == [.forward(c1, node: "b", advertise: owner)])
            let ended = cluster.forwardEnded(c1, code: 1012, answered: false, queued: 1, peer: "p", now: at(now))
            guard ended.last == .rejoin(c1) else {
                refused = ended
                break
            }
            guard case .log(.info, let line) = ended.first, let ms = line.split(separator: " ").dropLast().last else {
                Issue.record("no retry line in \(ended)")
                return
            }
            delays.append(Int64(ms)!)
            #expect(cluster.tick(now: at(now + Int64(ms)! - 1)).isEmpty, "not due yet")
            now += Int64(ms)!
            #expect(cluster.tick(now: at(now)) == [.seek(c1)])
            #expect(cluster.tick(now: at(now)).isEmpty, "sought once")
        }
        #expect(Array(delays.prefix(5)) == [250, 500, 1_000, 2_000, 2_000])
        #expect(delays.allSatisfy { $0 <= 2_000 })
        #expect(delays.reduce(0, +) <= 3 * lease && delays.reduce(0, +) > 3 * lease - 2_000)
        #expect(
            refused == [
                .log(.warning, "connection 1 from p: board demo's owner, node b, cannot be reached"),
                .refuse(
                    c1, ProtocolError(.unavailable, "board demo cannot be reached right now; try again later"),
                    code: 1013, reason: "board owner unreachable"),
            ])
    }

    @Test func aRetryThatWouldKeepTooManyMessagesClosesTheClientWith1008() {
        var cluster = rules(maxMessagesWhileJoining: 4)
        _ = forward(&cluster, c1)
        let kept = cluster.forwardEnded(c1, code: nil, answered: false, queued: 4, peer: "p", now: at(0))
        #expect(kept.last == .rejoin(c1), "four messages are kept")
        _ = cluster.tick(now: at(250))
        _ = forward(&cluster, c1)
        let over = cluster.forwardEnded(c1, code: nil, answered: false, queued: 5, peer: "p", now: at(300))
        #expect(
            over == [
                .limitHit(.joiningQueue),
                .close(c1, code: 1008, reason: "too many messages before welcome", flush: false),
            ])
    }

    @Test func aClosedConnectionsRetryIsForgottenAndAJoinHereEndsItsTries() {
        var cluster = rules()
        _ = forward(&cluster, c1)
        _ = forward(&cluster, c2)
        _ = cluster.forwardEnded(c1, code: nil, answered: false, queued: 0, peer: "p", now: at(0))
        _ = cluster.forwardEnded(c2, code: nil, answered: false, queued: 0, peer: "p", now: at(0))
        cluster.ended(c1)
        #expect(cluster.tick(now: at(250)) == [.seek(c2)], "the closed one does not seek")
        cluster.answered(c2)  // Joined here: a later forward starts its tries afresh.
        _ = forward(&cluster, c2)
        let ended = cluster.forwardEnded(c2, code: nil, answered: false, queued: 0, peer: "p", now: at(400))
        #expect(
            ended.first == .log(.info, "connection 2: node b did not answer for board demo; trying again in 250 ms"))
    }

    // MARK: Late joins

    @Test func joinsWithoutAnAnswerByTheirDeadlineAreLateOnceAndAnsweredOnesNever() {
        var cluster = rules()
        cluster.awaitAnswer(c2, until: at(1_000))
        cluster.awaitAnswer(c1, until: at(1_000))
        cluster.awaitAnswer(ConnectionID(3), until: at(1_000))
        cluster.answered(ConnectionID(3))
        #expect(cluster.tick(now: at(999)).isEmpty)
        #expect(cluster.tick(now: at(1_000)) == [.lateJoin(c1), .lateJoin(c2)])
        #expect(cluster.tick(now: at(5_000)).isEmpty, "late once")
        cluster.awaitAnswer(c1, until: at(6_000))
        cluster.ended(c1)
        #expect(cluster.tick(now: at(6_000)).isEmpty, "a closed connection is not late")
    }

    // MARK: Leases and releases

    @Test func aClaimHoldsForALeaseFromItsSendingAndRenewalsExtendIt() {
        var cluster = rules()
        cluster.claimed(demo, sent: at(1_000), now: at(1_200))
        #expect(cluster.tick(now: at(5_999)).isEmpty)
        let renewed = cluster.renewed(held: [demo], validUntil: at(8_000), alive: ["a", "b"])
        #expect(renewed.isEmpty)
        #expect(cluster.tick(now: at(7_999)).isEmpty, "the renewal holds it until 8 s")
        #expect(
            cluster.tick(now: at(8_000)) == [
                .log(
                    .warning, "board demo: no renewal of its lease for a whole lease; it may be another node's by now"),
                .drop(demo),
            ])
    }

    @Test func aRenewalWithoutTheBoardDropsItUnlessItWasClaimedAfterTheRenewalBegan() {
        var cluster = rules()
        cluster.claimed(demo, sent: at(0), now: at(100))
        cluster.claimed(other, sent: at(2_900), now: at(3_100))
        // The renewal began at 3 s (valid until 3 s + a lease): `other`'s claim was answered after.
        let renewed = cluster.renewed(held: [], validUntil: at(3_000 + lease), alive: ["a"])
        #expect(
            renewed == [
                .log(
                    .warning, "board demo: this node's lease on it was not renewed (another node has it, or it ran out)"
                ),
                .drop(demo),
            ])
    }

    @Test func aRenewalClosesForwardsToNodesNoLongerAliveWith1012() {
        var cluster = rules()
        _ = forward(&cluster, c2)
        _ = cluster.forward(c1, board: other, to: "c", advertise: "127.0.0.1:9003", relayed: false, peer: "p")
        let renewed = cluster.renewed(held: [], validUntil: at(lease), alive: ["a", "c"])
        #expect(
            renewed == [
                .log(.info, "connection 2: board demo's owner, node b, is no longer alive; closing with 1012"),
                .close(c2, code: 1012, reason: "board owner gone; reconnect", flush: false),
            ])
        _ = cluster.forwardEnded(c2, code: nil, answered: false, queued: 0, peer: "p", now: at(0))
        #expect(
            cluster.renewed(held: [], validUntil: at(lease), alive: ["a"]).count == 2,
            "one waiting to try again is not relayed: only c1's forward is closed")
    }

    @Test func aReleaseIsAskedOnceUntilCarriedOutAndEndsTheLeaseView() {
        var cluster = rules()
        cluster.claimed(demo, sent: at(0), now: at(0))
        let first = cluster.release(demo)
        let again = cluster.release(demo)
        #expect(first)
        #expect(!again, "asked once")
        #expect(cluster.isReleasing(demo))
        #expect(cluster.tick(now: at(10 * lease)).isEmpty, "a released board's lease does not run out in memory")
        let released = cluster.released(demo)
        let releasedAgain = cluster.released(demo)
        #expect(released)
        #expect(!cluster.isReleasing(demo))
        #expect(!releasedAgain, "carried out once")
    }

    // MARK: Relayed requests

    func relay(_ cluster: inout Cluster, _ exchange: ExchangeID, relayedAlready: Bool = false, advertise: String? = nil)
        -> [Cluster.Action]
    {
        cluster.relay(
            exchange, board: demo, to: "b", advertise: advertise ?? owner, relayedAlready: relayedAlready,
            peer: "10.0.0.1", now: at(1_000))
    }

    @Test func aRequestIsRelayedUpToTheLimitAndThenAnswered503Elsewhere() {
        var cluster = rules()
        #expect(
            relay(&cluster, x1) == [
                .log(.debug, "exchange 11 from 10.0.0.1: board demo is on node b; relaying the op to \(owner)"),
                .relay(x1, advertise: owner),
            ])
        #expect(withoutLogs(relay(&cluster, x2)) == [.relay(x2, advertise: owner)])
        #expect(cluster.relayCount == 2)
        #expect(
            relay(&cluster, x3) == [
                .limitHit(.httpForwards),
                .log(.warning, "exchange 13: 2 REST requests wait for their owners already; answering 503"),
                .respond(x3, Cluster.elsewhere(demo, by: "b")),
            ])
    }

    @Test func aRequestThatCameRelayedOrHasNoOwnerAddressOrIsOnOneNodeIsNotRelayed() {
        var cluster = rules()
        let elsewhere = Cluster.Action.respond(x1, Cluster.elsewhere(demo, by: "b"))
        #expect(relay(&cluster, x1, relayedAlready: true) == [elsewhere])
        #expect(relay(&cluster, x1, advertise: "") == [elsewhere])
        var single = rules(clustered: false)
        #expect(relay(&single, x1) == [elsewhere])
        #expect(cluster.relayCount == 0 && single.relayCount == 0)
    }

    @Test func theOwnersAnswerGoesBackUnchangedOnceAndNoAnswerGets503() {
        var cluster = rules()
        _ = relay(&cluster, x1)
        _ = relay(&cluster, x2)
        let ok = HTTPResponse.json(200) { w in
            w.beginObject()
            w.endObject()
        }
        #expect(cluster.relayAnswered(x1, ok) == [.respond(x1, ok)])
        #expect(cluster.relayAnswered(x1, ok).isEmpty, "answered once")
        #expect(
            cluster.relayAnswered(x2, nil) == [
                .log(.info, "exchange 12: node b, owner of board demo, did not answer a relayed op"),
                .respond(x2, Cluster.elsewhere(demo, by: "b")),
            ])
        #expect(cluster.relayCount == 0)
    }

    @Test func aRelayPastItsTimeoutGets503AndAnAbandonedOneNothing() {
        var cluster = rules()
        _ = relay(&cluster, x1)
        _ = relay(&cluster, x2)
        cluster.abandoned(x2)
        #expect(cluster.tick(now: at(3_999)).isEmpty)
        #expect(
            cluster.tick(now: at(4_000)) == [
                .log(.info, "exchange 11: node b, owner of board demo, did not answer in time"),
                .respond(x1, Cluster.elsewhere(demo, by: "b")),
            ])
        #expect(cluster.relayAnswered(x1, nil).isEmpty, "an answer after the timeout is dropped")
        #expect(cluster.relayCount == 0)
    }
}
