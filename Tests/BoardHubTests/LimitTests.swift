import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// The limits: message rates, hello timeout, per-address connections and new boards, board
/// size and boards in memory.
@Suite struct LimitTests {
    @Test func opsOverTheRateAreRefusedAndNotApplied() {
        let h = HubHarness { $0.opRate = Rate(perSecond: 1, burst: 2) }
        let a = h.open(1)
        h.joinNew(a)
        var errors: [String] = []
        var persisted = 0
        for i in 0..<4 {
            let actions = h.send(a, #"{"type":"toggle","op":"o\#(i)","base":0,"item":"t\#(i + 1)","on":true}"#)
            persisted += actions.filter { if case .persist(.append, _) = $0 { true } else { false } }.count
            for case .error(let e) in messages(to: a, in: actions) {
                errors.append("\(e.code.rawValue) \(e.opID ?? "")")
            }
        }
        #expect(persisted == 2)
        #expect(errors == ["rate_limited o2", "rate_limited o3"])
        h.now = h.now + 1_000
        let later = h.send(a, #"{"type":"toggle","op":"o9","base":0,"item":"t9","on":true}"#)
        #expect(later.contains { if case .persist(.append, _) = $0 { true } else { false } }, "tokens come back")
    }

    @Test func holdsAreLimitedAndCooledDownPerClientAddressAndExpireOnTicks() {
        let h = HubHarness {
            $0.room.holdTimeout = .seconds(1)
            $0.room.holdCooldown = .seconds(5)
            $0.room.maxHoldsPerAddress = 2
        }
        let attackers = (1...3).map { h.open(UInt64($0), peer: "10.0.0.66") }
        let victim = h.open(9, peer: "10.0.0.1")
        h.joinNew(attackers[0])
        for id in [attackers[1], attackers[2], victim] { h.hello(id, name: "X") }
        let lift = { (id: ConnectionID, item: String) in
            types(messages(to: id, in: h.send(id, #"{"type":"dragStart","item":"\#(item)"}"#)))
        }
        #expect(lift(attackers[0], "t1") == ["dragStart"])
        #expect(lift(attackers[1], "t2") == ["dragStart"])
        #expect(lift(attackers[2], "t3") == ["reject:hold_limit"], "the address holds two items already")
        #expect(lift(victim, "t1") == ["reject:held"])
        h.now = h.now + 1_000
        #expect(types(messages(to: victim, in: h.on(.tick))) == ["drop:expired", "drop:expired"])
        #expect(lift(attackers[2], "t1") == ["reject:cooldown"], "another connection of the expired holder's address")
        #expect(lift(attackers[2], "t2") == ["reject:cooldown"])
        #expect(lift(victim, "t1") == ["dragStart"], "the victim asked while it was held: its turn")
    }

    @Test func aFloodIsRefusedThenClosedWith1008WhileOthersCarryOn() {
        let h = HubHarness {
            $0.messageRate = Rate(perSecond: 10, burst: 10)
            $0.strikeRate = Rate(perSecond: 1, burst: 5)
        }
        let flooder = h.open(1)
        let calm = h.open(2)
        h.joinNew(flooder)
        h.hello(calm, name: "Bo")
        h.send(flooder, #"{"type":"dragStart","item":"t1"}"#)
        var closed: [UInt16] = []
        var refused = 0
        for _ in 0..<40 {
            let actions = h.send(flooder, #"{"type":"hover","item":"t1","over":"t2"}"#)
            closed += closes(in: actions).map(\.1)
            refused += types(messages(to: flooder, in: actions)).filter { $0 == "error:rate_limited" }.count
            if !closed.isEmpty { break }
        }
        #expect(closed == [1008])
        #expect(refused == 5)
        let ping = h.send(calm, #"{"type":"ping"}"#)
        #expect(types(messages(to: calm, in: ping)) == ["pong"])
    }

    /// Sends `count` hovers from `id` at the harness's time; the codes it was closed with and how
    /// many were refused.
    private func hovers(_ h: HubHarness, _ id: ConnectionID, _ count: Int) -> (closed: [UInt16], refused: Int) {
        var closed: [UInt16] = []
        var refused = 0
        for _ in 0..<count {
            let actions = h.send(id, #"{"type":"hover","item":"t1","over":"t2"}"#)
            closed += closes(in: actions).map(\.1)
            refused += types(messages(to: id, in: actions)).filter { $0 == "error:rate_limited" }.count
            if !closed.isEmpty { break }
        }
        return (closed, refused)
    }

    /// A client that hovers at 50/s within its limit of 200/s; the server stalls for 19 s (a tick
    /// every 250 ms before and after), and the 950 hovers it sent meanwhile arrive at once.
    private func stalledHovering(stallAfter: Duration) -> (HubHarness, ConnectionID, [UInt16], Int) {
        let h = HubHarness { $0.stallAfter = stallAfter }
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        for _ in 0..<8 {
            h.now = h.now + 20
            #expect(hovers(h, a, 1) == ([], 0))
            h.now = h.now + 230
            h.on(.tick)
        }
        h.now = h.now + 19_000
        h.on(.tick)  // The first event after the stall: the ticker's, or a message.
        let (closed, refused) = hovers(h, a, 950)
        return (h, a, closed, refused)
    }

    @Test func aStallOfTheServerIsNotChargedToItsClients() {
        let (h, a, closed, refused) = stalledHovering(stallAfter: .seconds(1))
        #expect(closed == [])
        #expect(refused == 0)
        #expect(h.hub.stalled == 19_000)
        // The credit is what the rate earns over the stall, once: a flood right after is refused.
        let flood = hovers(h, a, 5_000)
        #expect(flood.refused > 0)
        #expect(flood.closed == [1008])
    }

    @Test func withoutStallCreditTheSameHoversAreChargedAtOnce() {
        // What happened before: the burst is charged against a bucket of 400, and the client closed.
        let (_, _, closed, refused) = stalledHovering(stallAfter: .zero)
        #expect(closed == [1008])
        #expect(refused == 50)
    }

    @Test func aClientIdleThroughTicksEarnsNoCredit() {
        let h = HubHarness { $0.stallAfter = .seconds(1) }
        let a = h.open(1)
        h.joinNew(a)
        h.send(a, #"{"type":"dragStart","item":"t1"}"#)
        for _ in 0..<80 {  // 20 s of ticks: the server served all along.
            h.now = h.now + 250
            h.on(.tick)
        }
        #expect(h.hub.stalled == 0)
        let burst = hovers(h, a, 1_000)
        #expect(burst.closed == [1008])
        #expect(burst.refused == 50)
    }

    @Test func aConnectionThatSendsNoHelloIsClosedWith4408() {
        let h = HubHarness { $0.helloTimeout = .seconds(10) }
        let silent = h.open(1)
        let joined = h.open(2)
        h.joinNew(joined)
        h.now = h.now + 9_999
        #expect(closes(in: h.on(.tick)).isEmpty)
        h.now = h.now + 1
        let actions = h.on(.tick)
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 4408]])
        #expect(types(messages(to: silent, in: actions)) == ["error:not_joined"])
    }

    @Test func connectionsPerAddressAreBounded() {
        let h = HubHarness {
            $0.maxConnectionsPerAddress = 2
            $0.connectRate = nil
        }
        _ = h.open(1)
        let second = h.open(2)
        let third = ConnectionID(3)
        #expect(closes(in: h.on(.opened(third, peer: "127.0.0.1"))).map(\.1) == [4429])
        #expect(closes(in: h.on(.opened(ConnectionID(4), peer: "10.0.0.2"))).isEmpty, "another address")
        h.on(.closed(second))
        #expect(closes(in: h.on(.opened(ConnectionID(5), peer: "127.0.0.1"))).isEmpty, "a slot came free")
    }

    @Test func connectingTooFastIsRefused() {
        let h = HubHarness { $0.connectRate = Rate(perSecond: 1, burst: 3) }
        let codes = (1...5).flatMap { n in closes(in: h.on(.opened(ConnectionID(UInt64(n)), peer: "1.2.3.4"))).map(\.1)
        }
        #expect(codes == [4429, 4429])
    }

    @Test func newBoardsPerAddressAreBounded() {
        let h = HubHarness { $0.boardCreationRate = Rate(perSecond: 0.1, burst: 2) }
        var codes: [UInt16] = []
        for n in 1...3 {
            let c = h.open(UInt64(n))
            codes += closes(in: h.joinNew(c, board: "new\(n)")).map(\.1)
        }
        #expect(codes == [4429])
        #expect(h.hub.boardCount == 2)
    }

    @Test func postedBoardsPayFromTheSameBudgetWithoutAccessControl() {
        let h = HubHarness { $0.boardCreationRate = Rate(perSecond: 0.1, burst: 2) }
        var statuses: [Int] = []
        for n in 1...3 {
            let body = #"{"id":"p\#(n)","title":"P","zones":[{"id":"g","items":[{"label":"a","color":"red"}]}]}"#
            let asked = h.on(
                .request(
                    ExchangeID(UInt64(n)),
                    HTTPRequest(
                        method: .post, path: "/api/boards", body: Array(body.utf8), contentType: "application/json",
                        peer: "127.0.0.1")))
            statuses += responses(in: asked).map(\.1.status)
        }
        #expect(statuses == [429])
        // The same address's hello for a new board finds the budget spent too.
        #expect(closes(in: h.joinNew(h.open(9), board: "new9")).map(\.1) == [4429])
    }

    @Test func aFullBoardSaysSoAndClosesWith4409() {
        let h = HubHarness { $0.maxUsersPerBoard = 2 }
        h.joinNew(h.open(1))
        h.hello(h.open(2), name: "Bo")
        let third = h.open(3)
        let actions = h.hello(third, name: "Cy")
        #expect(types(messages(to: third, in: actions)) == ["error:board_full"])
        #expect(closes(in: actions).map(\.1) == [4409])
    }

    @Test func boardsInMemoryAreBounded() {
        let h = HubHarness { $0.maxBoardsInMemory = 1 }
        h.joinNew(h.open(1), board: "one")
        let c = h.open(2)
        let actions = h.hello(c, board: "two")
        #expect(types(messages(to: c, in: actions)) == ["error:unavailable"])
        #expect(closes(in: actions).map(\.1) == [1013])
        #expect(types(messages(to: h.open(3), in: h.hello(ConnectionID(3), board: "one"))) == ["welcome"])
    }

    @Test func logLinesClientsCauseAreBoundedAndTheRestCounted() {
        let h = HubHarness {
            $0.logRate = Rate(perSecond: 1, burst: 10)
            $0.connectRate = Rate(perSecond: 1, burst: 1)
        }
        for n in 1...1_000 { h.on(.opened(ConnectionID(UInt64(n)), peer: "6.6.6.6")) }
        let lines = h.log.compactMap { if case .log(_, let line) = $0 { line } else { nil } }
        #expect(lines.count == 10)
        h.now = h.now + 1
        h.on(.tick)
        let report = h.log.compactMap { if case .log(.warning, let line) = $0 { line } else { nil } }.last
        // A connect line (info) per connection and a warning per refused one, 10 of them written.
        #expect(report?.hasPrefix("1989 log line(s) suppressed") == true, "\(report ?? "")")
        let quiet = HubHarness {
            $0.logRate = Rate(perSecond: 1, burst: 10)
            $0.logLevel = .warning
        }
        for n in 1...100 { quiet.on(.opened(ConnectionID(UInt64(n)), peer: "6.6.6.\(n)")) }
        quiet.on(.tick)
        // Lines below the level are never made, and so use none of the budget.
        #expect(quiet.log.allSatisfy { if case .log = $0 { false } else { true } })
    }

    @Test func theTransportsClientLinesAndTheHubsShareOneBudget() {
        let h = HubHarness {
            $0.logRate = Rate(perSecond: 1, burst: 10)
            $0.connectRate = Rate(perSecond: 1, burst: 1)
        }
        // The transport's `ClientLog` draws on the hub's budget: its 8 lines leave 2 for the hub.
        for _ in 1...8 { #expect(h.hub.logBudget.allows(now: h.now)) }
        for n in 1...5 { h.on(.opened(ConnectionID(UInt64(n)), peer: "6.6.6.6")) }
        let lines = h.log.compactMap { if case .log(_, let line) = $0 { line } else { nil } }
        #expect(lines.count == 2)
        #expect(!h.hub.logBudget.allows(now: h.now))
        h.now = h.now + 1
        h.on(.tick)
        let report = h.log.compactMap { if case .log(.warning, let line) = $0 { line } else { nil } }.last
        // 5 connect lines and 4 refusals by the hub, 2 of them written; and the transport's one.
        #expect(report?.hasPrefix("8 log line(s) suppressed") == true, "\(report ?? "")")
    }
}
