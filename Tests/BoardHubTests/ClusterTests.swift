import BoardAuth
import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// The cluster rules (Hub+Cluster.swift): claims instead of loads, forwards to the owner, leases
/// lost and run out, fenced writes, retries of forwards that never got through, releases, and the
/// cluster's HTTP answers. This node is `a`, with 5 s leases.
@Suite struct ClusterTests {
    static let lease: Int64 = 5_000
    let x1 = ExchangeID(301)
    let owner = "127.0.0.1:9002"

    func harness(_ configure: (inout Hub.Config) -> Void = { _ in }) -> HubHarness {
        HubHarness {
            $0.cluster = ClusterSettings(node: "a", lease: .milliseconds(Self.lease))
            configure(&$0)
        }
    }

    /// The one claim among `actions`: its read id, board and force.
    func claim(in actions: [Hub.Action], sourceLocation: SourceLocation = #_sourceLocation) -> (ReadID, BoardID, Bool)?
    {
        let claims = actions.compactMap { action -> (ReadID, BoardID, Bool)? in
            if case .read(let id, .claim(let board, _, let force, _)) = action { (id, board, force) } else { nil }
        }
        #expect(claims.count == 1, "expected one claim in \(actions)", sourceLocation: sourceLocation)
        return claims.first
    }

    func toggle(_ op: String, base: Int = 0, item: String = "t1") -> String {
        #"{"type":"toggle","op":"\#(op)","base":\#(base),"item":"\#(item)","on":true}"#
    }

    func parsed(_ text: String) -> ClientMessage { try! ClientMessage.parse(Array(text.utf8)).get() }

    func releases(in actions: [Hub.Action]) -> [BoardID] {
        actions.compactMap { if case .release(let id) = $0 { id } else { nil } }
    }

    func forwards(in actions: [Hub.Action]) -> [(ConnectionID, String, [ClientMessage])] {
        actions.compactMap { if case .forward(let id, let to, let messages) = $0 { (id, to, messages) } else { nil } }
    }

    func committed(in actions: [Hub.Action]) -> [ServerMessage] {
        actions.compactMap { if case .broadcast(let m, _, _) = $0, case .committed = m { m } else { nil } }
    }

    /// Joins `id` to a board this node claims and the store does not have.
    @discardableResult
    func joinClaimed(_ h: HubHarness, _ id: ConnectionID, board: String = "demo") -> [Hub.Action] {
        guard let (read, _, _) = claim(in: h.hello(id, board: board)) else { return [] }
        return h.on(.answered(read, .room(nil)))
    }

    // MARK: Claims

    @Test func aHelloClaimsTheBoardAndJoinsItWhenThisNodeGetsTheLease() {
        let h = harness()
        let a = h.open(1)
        let asked = h.hello(a)
        guard let (_, request) = h.read(in: asked) else { return }
        #expect(request == .claim(board("demo"), Room.Settings(), force: false, .any), "a claim, never a plain load")
        guard let (read, _, _) = claim(in: asked) else { return }
        let stored = Room(board: .defaultTemplate(id: board("demo")))
        #expect(types(messages(to: a, in: h.on(.answered(read, .room(stored))))) == ["welcome"])
        #expect(h.hub.boardCount == 1)
        // A second joiner finds the board in memory: no claim.
        let b = h.open(2)
        let joined = h.hello(b, name: "Bo")
        #expect(types(messages(to: b, in: joined)) == ["welcome"])
        #expect(types(messages(to: a, in: joined)) == ["join"])
    }

    @Test func aHelloForABoardOwnedElsewhereIsForwardedWithWhatFollowedIt() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        let hello = #"{"type":"hello","board":"demo","name":"Ada","since":4,"token":"t0k"}"#
        guard let (read, _, _) = claim(in: h.send(a, hello)) else { return }
        h.send(b, #"{"type":"hello","board":"demo","name":"Bo"}"#)
        let hover = #"{"type":"hover","item":"t1","over":"t2","zone":"grid","mode":"swap","t":12.5}"#
        h.send(a, hover)
        h.send(a, toggle("a-1", base: 4))
        let actions = h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))
        let sent = forwards(in: actions)
        #expect(sent.map(\.0) == [a, b])
        #expect(sent.allSatisfy { $0.1 == owner })
        #expect(sent.first?.2 == [parsed(hello), parsed(hover), parsed(toggle("a-1", base: 4))])
        #expect(sent.last?.2 == [parsed(#"{"type":"hello","board":"demo","name":"Bo"}"#)])
        #expect(h.hub.boardCount == 0 && h.hub.connectionCount == 2)
        // What a forwarded connection sends is the transport's to relay: the hub does nothing.
        #expect(h.send(a, toggle("a-2", base: 4)).isEmpty)
        #expect(h.send(a, #"{"type":"ping"}"#).isEmpty)
        h.on(.closed(a))
        #expect(h.hub.connectionCount == 1)
        // Shutdown closes forwarded connections too.
        #expect(closes(in: h.on(.shutdown)).map(\.1) == [1001])
    }

    @Test func aCreateForABoardOwnedElsewhereIs409() {
        let h = harness()
        let body =
            #"{"id":"b1","title":"One","columns":2,"zones":[{"id":"grid","items":[{"label":"A","color":"white"}]}]}"#
        guard
            let (read, id, force) = claim(
                in: h.on(
                    .request(
                        x1,
                        HTTPRequest(
                            method: .post, path: "/api/boards", body: Array(body.utf8), contentType: "application/json")
                    )))
        else { return }
        #expect(id == board("b1") && !force)
        let answer = responses(in: h.on(.answered(read, .elsewhere(node: "b", advertise: owner))))
        #expect(answer.map(\.1.status) == [409])
        #expect(answer.first?.1.text.contains("node b") == true)
    }

    @Test func aDeleteForABoardOwnedElsewhereTakesItOverByForceAndDeletesIt() {
        let h = harness()
        guard let (read, _, _) = claim(in: h.on(.request(x1, HTTPRequest(method: .delete, path: "/api/boards/b1"))))
        else { return }
        guard let (forced, id, force) = claim(in: h.on(.answered(read, .elsewhere(node: "b", advertise: owner))))
        else { return }
        #expect(id == board("b1") && force)
        let taken = h.on(.answered(forced, .room(Room(board: .defaultTemplate(id: board("b1"))))))
        let writes = taken.compactMap { if case .persist(let write, _) = $0 { write } else { nil } }
        #expect(writes == [.delete(board("b1"))])
        #expect(releases(in: taken) == [board("b1")], "given up after the deletion")
        let deleteAt = taken.firstIndex { if case .persist = $0 { true } else { false } }
        let releaseAt = taken.firstIndex { if case .release = $0 { true } else { false } }
        #expect(deleteAt! < releaseAt!, "the release goes after the deletion on the writer queue")
        #expect(responses(in: h.makeDurable()).map(\.1.status) == [200])
    }

    @Test func aBoardClaimedForNothingIsReleasedAndNotClaimedAgainUntilTheReleaseIsDone() {
        let h = harness { $0.createBoards = false }
        let a = h.open(1)
        guard let (read, _, _) = claim(in: h.hello(a)) else { return }
        let refused = h.on(.answered(read, .room(nil)))
        #expect(closes(in: refused).map(\.1) == [4404])
        #expect(releases(in: refused) == [board("demo")])
        // A hello meanwhile waits for the release before it claims.
        let b = h.open(2)
        #expect(h.hello(b).isEmpty)
        guard let (again, _, _) = claim(in: h.on(.released(board("demo")))) else { return }
        let stored = Room(board: .defaultTemplate(id: board("demo")))
        #expect(types(messages(to: b, in: h.on(.answered(again, .room(stored))))) == ["welcome"])
    }

    @Test func anIdleBoardIsReleasedAfterItsLastWrites() {
        let h = harness()
        let a = h.open(1)
        joinClaimed(h, a)
        h.send(a, toggle("a-1"))
        let closed = h.on(.closed(a))
        #expect(releases(in: closed).isEmpty, "its op is not durable yet")
        let evicted = h.makeDurable()
        #expect(releases(in: evicted) == [board("demo")] && h.hub.boardCount == 0)
        // A template board nobody changed is released when its last user leaves.
        let b = h.open(2)
        joinClaimed(h, b, board: "fresh")
        #expect(releases(in: h.on(.closed(b))) == [board("fresh")])
    }

    // MARK: Leases

    @Test func aLeaseNotRenewedDropsTheBoardWith1012AndTellsTheSendersOfUnpublishedOps() {
        let h = harness()
        let (a, b, c) = (h.open(1), h.open(2), h.open(3))
        joinClaimed(h, a)
        h.hello(b, name: "Bo")
        joinClaimed(h, c, board: "other")
        h.makeDurable()
        h.send(a, toggle("a-1"))
        h.now = h.now + 2_000
        // A renewal that began after both claims were answered, holding only "other".
        let actions = h.on(.leases(held: [board("other")], validUntil: h.now + Self.lease, alive: ["a"]))
        #expect(committed(in: actions).isEmpty)
        let lost = actions.compactMap { action -> String? in
            if case .send(a, .error(let e)) = action, e.code == .unavailable { e.opID } else { nil }
        }
        #expect(lost == ["a-1"])
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[1, 1012], [2, 1012]])
        #expect(closes(in: actions).allSatisfy { $0.2 }, "the error goes out before the close")
        #expect(releases(in: actions) == [board("demo")])
        #expect(h.hub.boardCount == 1)
        // The op's write, if it ever commits, publishes nothing: the board is gone.
        #expect(committed(in: h.makeDurable()).isEmpty)
    }

    @Test func aBoardClaimedAfterTheRenewalBeganCountsAsHeld() {
        let h = harness()
        let a = h.open(1)
        // The renewal began 100 ms before the claim's answer; it could not have seen the claim.
        let began = h.now + -100
        joinClaimed(h, a)
        #expect(closes(in: h.on(.leases(held: [], validUntil: began + Self.lease, alive: ["a"]))).isEmpty)
        // The next renewal began after: it would have found the lease.
        h.now = h.now + 1_000
        let next = h.on(.leases(held: [], validUntil: h.now + -1 + Self.lease, alive: ["a"]))
        #expect(closes(in: next).map(\.1) == [1012])
    }

    @Test func withoutARenewalForAWholeLeaseEveryBoardIsDroppedOnTick() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        let claimedAt = h.now
        joinClaimed(h, a)
        h.now = claimedAt + 1_000
        joinClaimed(h, b, board: "other")
        // The first renewal holds both; it began at claimedAt + 1500.
        h.now = claimedAt + 1_600
        h.on(.leases(held: [board("demo"), board("other")], validUntil: claimedAt + 1_500 + Self.lease, alive: ["a"]))
        h.now = claimedAt + 1_500 + Self.lease + -1
        #expect(closes(in: h.on(.tick)).isEmpty)
        h.now = claimedAt + 1_500 + Self.lease
        let dropped = h.on(.tick)
        #expect(closes(in: dropped).map(\.1) == [1012, 1012])
        #expect(Set(releases(in: dropped)) == [board("demo"), board("other")])
        #expect(h.hub.boardCount == 0)
    }

    @Test func aClaimWithoutARenewalHoldsForOneLeaseFromItsSending() {
        let h = harness()
        let a = h.open(1)
        let sent = h.now
        guard let (read, _, _) = claim(in: h.hello(a)) else { return }
        h.now = sent + 300  // the answer took a while
        h.on(.answered(read, .room(nil)))
        h.now = sent + Self.lease + -1
        #expect(closes(in: h.on(.tick)).isEmpty)
        h.now = sent + Self.lease
        #expect(closes(in: h.on(.tick)).map(\.1) == [1012])
    }

    @Test func aFencedWriteDropsTheBoardWith1012AndNothingUndurableIsEverBroadcast() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        joinClaimed(h, a)
        h.hello(b, name: "Bo")
        h.makeDurable()
        let mark = h.log.count
        let sent = h.send(a, toggle("a-1"))
        #expect(committed(in: sent).isEmpty, "nothing is broadcast before it is durable")
        var writes: [StoreWrite] = []
        for case .persist(let write, _) in h.log[mark...] { writes.append(write) }
        let actions = h.on(
            .writeFailed(
                Hub.WriteFailure(
                    board: board("demo"), writes: writes, tickets: [], reason: "lease lost", kind: .fenced)))
        #expect(committed(in: actions).isEmpty)
        #expect(types(messages(to: a, in: actions)) == ["error:unavailable"])
        #expect(closes(in: actions).map(\.1) == [1012, 1012])
        #expect(releases(in: actions) == [board("demo")])
        #expect(h.hub.boardCount == 0)
    }

    @Test func aFencedWriteOfABoardThatIsAlreadyGoneChangesNothing() {
        let h = harness()
        let a = h.open(1)
        joinClaimed(h, a, board: "other")
        let failure = Hub.WriteFailure(
            board: board("demo"), writes: [.delete(board("demo"))], tickets: [], reason: "lease lost", kind: .fenced)
        #expect(h.on(.writeFailed(failure)).isEmpty)
        #expect(h.hub.boardCount == 1)
    }

    // MARK: Forwards

    /// Forwards `a`'s hello for "demo" to node b and returns the messages forwarded.
    @discardableResult
    func forwardToB(_ h: HubHarness, _ a: ConnectionID) -> [ClientMessage] {
        guard let (read, _, _) = claim(in: h.hello(a)) else { return [] }
        return forwards(in: h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))).first?.2 ?? []
    }

    @Test func aForwardTheOwnerNeverAnsweredClaimsAgainWithBackoffAndTakesTheBoardOnceItIsFree() throws {
        let h = harness()
        let a = h.open(1)
        let first = forwardToB(h, a)
        #expect(first.count == 1)
        var delays: [Int64] = []
        for _ in 0..<4 {
            let ended = h.now
            #expect(h.on(.forwardEnded(a, code: nil, answered: false)).isEmpty)
            // Ticks before the retry is due do nothing; the first one after claims again.
            var claimRead: ReadID?
            for step in 1...100 {
                h.now = ended + Int64(step) * 50
                let actions = h.on(.tick)
                if let (read, _, _) = actions.isEmpty ? nil : claim(in: actions) {
                    claimRead = read
                    delays.append(h.now - ended)
                    break
                }
            }
            let read = try #require(claimRead, "no claim within 5 s of the forward's end (retry \(delays.count + 1))")
            let again = forwards(in: h.on(.answered(read, .elsewhere(node: "b", advertise: owner))))
            #expect(again.map(\.2) == [first], "the same hello goes again")
        }
        #expect(delays == [250, 500, 1_000, 2_000])
        // Messages the client sent meanwhile (and those the transport could not relay) follow the hello.
        h.send(a, toggle("a-1"))  // ignored: the connection is forwarded
        let unrelayed = [parsed(toggle("a-1"))]
        h.on(.forwardEnded(a, code: nil, answered: false, unrelayed: unrelayed))
        h.send(a, toggle("a-2", item: "t2"))  // queued while it waits for the retry
        h.now = h.now + 2_000
        guard let (read, _, _) = claim(in: h.on(.tick)) else { return }
        // The dead owner's lease has lapsed: this node got the board.
        let joined = h.on(.answered(read, .room(nil)))
        #expect(types(messages(to: a, in: joined)) == ["welcome"])
        let ops = joined.compactMap { if case .persist(.append(_, let ops), _) = $0 { ops } else { nil } }.joined()
        #expect(ops.map(\.opID.rawValue) == ["a-1", "a-2"])
    }

    @Test func aForwardThatNeverGetsThroughGivesUpWith1013AfterThreeLeases() {
        let h = harness()
        let a = h.open(1)
        let start = h.now
        forwardToB(h, a)
        var gaveUp: [Hub.Action] = []
        for _ in 0..<100 {
            let actions = h.on(.forwardEnded(a, code: nil, answered: false))
            if !closes(in: actions).isEmpty {
                gaveUp = actions
                break
            }
            h.now = h.now + 2_000
            guard let (read, _, _) = claim(in: h.on(.tick)) else { return }
            h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))
        }
        #expect(types(messages(to: a, in: gaveUp)) == ["error:unavailable"])
        #expect(closes(in: gaveUp).map(\.1) == [1013])
        #expect(h.now - start <= 3 * Self.lease && h.now - start > 2 * Self.lease)
    }

    @Test(arguments: [
        (UInt16?.some(4404), UInt16(4404)), (4410, 4410), (4409, 4409), (4401, 4401), (4429, 4429), (1008, 1008),
        (1009, 1009), (1003, 1003), (1013, 1013), (1001, 1012), (1011, 1012), (1012, 1012), (nil, 1012),
    ])
    func aForwardTheOwnerAnsweredEndsWithItsFinalCodeOr1012(_ code: UInt16?, _ expected: UInt16) {
        let h = harness()
        let a = h.open(1)
        forwardToB(h, a)
        let actions = h.on(.forwardEnded(a, code: code, answered: true))
        #expect(closes(in: actions).map(\.1) == [expected])
        // The owner's own close goes after what it sent first (its final error); 1012 at once.
        let flushed = actions.contains { if case .close(_, _, _, flush: true) = $0 { true } else { false } }
        #expect(flushed == (expected != 1012))
        #expect(h.hub.connectionCount == 1, "until the transport says it closed")
        #expect(h.on(.forwardEnded(a, code: code, answered: true)).isEmpty)
    }

    @Test func forwardsToANodeThatIsNoLongerAliveAreClosedWith1012() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        forwardToB(h, a)
        guard let (read, _, _) = claim(in: h.hello(b, board: "other")) else { return }
        h.on(.answered(read, .elsewhere(node: "c", advertise: "127.0.0.1:9003")))
        let actions = h.on(.leases(held: [], validUntil: h.now + Self.lease, alive: ["a", "b"]))
        #expect(closes(in: actions).map { [$0.0.rawValue, UInt64($0.1)] } == [[2, 1012]])
    }

    // MARK: Shutdown

    @Test func shutdownReleasesEveryLeaseAfterTheFinalWrites() {
        let h = harness()
        let (a, b) = (h.open(1), h.open(2))
        joinClaimed(h, a)
        joinClaimed(h, b, board: "other")
        h.send(a, toggle("a-1"))
        h.on(.shutdown)
        h.on(.closed(a))
        let last = h.on(.closed(b))
        #expect(releases(in: last) == [board("demo")], "the board without ops was released on eviction")
        #expect(last.last == .stop)
        let releasedAt = h.log.lastIndex { $0 == .release(board("demo")) }!
        let persistedAt = h.log.lastIndex { if case .persist(.append, _) = $0 { true } else { false } }!
        #expect(persistedAt < releasedAt)
        #expect(h.log.contains(.release(board("other"))))
    }

    // MARK: HTTP

    @Test func getBoardNamesTheNodeThatOwnsIt() {
        let h = harness()
        joinClaimed(h, h.open(1))
        let here = responses(in: h.encoding(h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/demo")))))
        #expect(here.first?.1.text.contains(#""owner":"a""#) == true)
        let asked = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/b2")))
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .snapshotAndOwner(board("b2"), .any))
        let stored = StoredBoard(board: .defaultTemplate(id: board("b2")), seq: 7, recent: [])
        let there = responses(in: h.encoding(h.on(.answered(read, .boardAndOwner(stored, owner: "b")))))
        #expect(there.first?.1.text.hasPrefix(#"{"seq":7,"owner":"b","board""#) == true)
        // A board nobody holds: owner null.
        guard let (again, _) = h.read(in: h.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/b2"))))
        else { return }
        let nobody = responses(in: h.encoding(h.on(.answered(again, .boardAndOwner(stored, owner: nil)))))
        #expect(nobody.first?.1.text.contains(#""owner":null"#) == true)
        // One node says nothing of owners.
        let single = HubHarness()
        single.joinNew(single.open(1))
        let plain = responses(
            in: single.encoding(single.on(.request(x1, HTTPRequest(method: .get, path: "/api/boards/demo")))))
        #expect(plain.first?.1.text.contains("owner") == false)
    }

    @Test func getClusterListsTheNodes() {
        let h = harness()
        let asked = h.on(.request(x1, HTTPRequest(method: .get, path: "/api/cluster")))
        guard let (read, request) = h.read(in: asked) else { return }
        #expect(request == .nodes(.any))
        let nodes = [
            ClusterNode(name: "a", advertise: "127.0.0.1:9001", alive: true, boards: 2),
            ClusterNode(name: "b", advertise: "127.0.0.1:9002", alive: false, boards: 0),
        ]
        let answer = responses(in: h.on(.answered(read, .nodes(nodes))))
        #expect(
            answer.first?.1.text
                == #"{"node":"a","nodes":[{"name":"a","advertise":"127.0.0.1:9001","alive":true,"boards":2},"#
                + #"{"name":"b","advertise":"127.0.0.1:9002","alive":false,"boards":0}]}"#)
        let post = responses(in: h.on(.request(x1, HTTPRequest(method: .post, path: "/api/cluster"))))
        #expect(post.map(\.1.status) == [405])
        let single = responses(in: HubHarness().on(.request(x1, HTTPRequest(method: .get, path: "/api/cluster"))))
        #expect(single.map(\.1.status) == [404])
        #expect(single.first?.1.text.contains("not_clustered") == true)
    }

    @Test func withAccessControlOnlyAnAdminOfEveryBoardMayReadTheCluster() {
        let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
        let h = harness { $0.auth = authority }
        func get(_ claims: Claims?) -> [Hub.Action] {
            let header = claims.map { "Bearer " + authority.mint($0) }
            return h.on(.request(x1, HTTPRequest(method: .get, path: "/api/cluster", authorization: header)))
        }
        #expect(responses(in: get(nil)).map(\.1.status) == [401])
        #expect(
            responses(in: get(Claims(board: board("demo"), role: .admin, expires: 4_000_000_000))).map(\.1.status) == [
                403
            ])
        #expect(responses(in: get(Claims(board: nil, role: .view, expires: 4_000_000_000))).map(\.1.status) == [403])
        #expect(h.read(in: get(Claims(board: nil, role: .admin, expires: 4_000_000_000))) != nil)
    }
}
