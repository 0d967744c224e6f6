import BoardClient
import BoardCore
import BoardHub
import BoardServer
import BoardStore
import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

/// Stands in for the hub's cluster rules on a forwarding node (`ServerConfig.interceptEvent`):
/// every `hello` is forwarded to `owner`, every `forwardEnded` is recorded and closes the client
/// with the owner's code (1011 without one), or, the first time when `retryTo` is set, forwards
/// the connection again there. Everything else goes to the hub as usual.
final class ForwardingRules: Sendable {
    struct State {
        var owner = ""
        var retryTo: String?
        /// Do nothing on an end (the hub keeps the connection, as when it will claim again later).
        var keepOnEnd = false
        var hellos: [ConnectionID: ClientMessage] = [:]
        var ends: [(ConnectionID, UInt16?, Bool, [ClientMessage])] = []
        var retried: Set<ConnectionID> = []
    }

    let state = Mutex(State())
    private let changed = DispatchSemaphore(value: 0)

    init(owner: String = "", retryTo: String? = nil) {
        state.withLock {
            $0.owner = owner
            $0.retryTo = retryTo
        }
    }

    func setOwner(_ advertise: String) { state.withLock { $0.owner = advertise } }

    func intercept(_ event: Hub.Event) -> [Hub.Action]? {
        switch event {
        case .received(let id, .success(let message)):
            guard case .hello = message else { return nil }
            let owner = state.withLock {
                $0.hellos[id] = message
                return $0.owner
            }
            return [.forward(id, advertise: owner, messages: [message])]
        case .forwardEnded(let id, let code, let answered, let unrelayed):
            let (retry, hello) = state.withLock { state -> (String?, ClientMessage?) in
                state.ends.append((id, code, answered, unrelayed))
                guard let retry = state.retryTo, !state.retried.contains(id) else { return (nil, nil) }
                state.retried.insert(id)
                return (retry, state.hellos[id])
            }
            changed.signal()
            if let retry, let hello { return [.forward(id, advertise: retry, messages: [hello] + unrelayed)] }
            if state.withLock({ $0.keepOnEnd }) { return [] }
            return [.close(id, code: code ?? 1011, reason: "owner gone", flush: false)]
        default:
            return nil
        }
    }

    /// The `n`th `forwardEnded` (from 1), waiting for it at most `seconds`.
    func end(_ n: Int = 1, within seconds: Double = 10) async throws -> (
        code: UInt16?, answered: Bool, unrelayed: [ClientMessage]
    ) {
        try await offThePool { try self.waitForEnd(n, within: seconds) }
    }

    private func waitForEnd(_ n: Int, within seconds: Double) throws -> (
        code: UInt16?, answered: Bool, unrelayed: [ClientMessage]
    ) {
        let deadline = DispatchTime.now() + seconds
        // Each pass either finds it or waits for the next end; the deadline bounds the waits.
        while true {
            if let end = state.withLock({ $0.ends.count >= n ? $0.ends[n - 1] : nil }) {
                return (end.1, end.2, end.3)
            }
            guard changed.wait(timeout: deadline) == .success else {
                throw ForwardingTestFailure(description: "no forwardEnded #\(n) within \(seconds) s")
            }
        }
    }

    var endCount: Int { state.withLock { $0.ends.count } }
}

/// Records the peer address of every connection a server's hub is told of.
final class PeerLog: Sendable {
    private let peers = Mutex<[String]>([])
    private let changed = DispatchSemaphore(value: 0)

    func intercept(_ event: Hub.Event) -> [Hub.Action]? {
        if case .opened(_, let peer, _, _) = event {
            peers.withLock { $0.append(peer) }
            changed.signal()
        }
        return nil
    }

    /// The `n`th peer (from 1), waiting for it at most 5 s.
    func peer(_ n: Int) async throws -> String {
        try await offThePool { try self.waitForPeer(n) }
    }

    private func waitForPeer(_ n: Int) throws -> String {
        let deadline = DispatchTime.now() + 5
        while true {
            if let peer = peers.withLock({ $0.count >= n ? $0[n - 1] : nil }) { return peer }
            guard changed.wait(timeout: deadline) == .success else {
                throw ForwardingTestFailure(description: "no connection #\(n) within 5 s")
            }
        }
    }
}

/// A one-node `ClusterStore` over a `MemoryStore`, for the secret a server reads from its store.
final class SecretClusterStore: DelegatingStore, ClusterStore {
    let inner = MemoryStore()
    let secret: [UInt8]
    init(secret: [UInt8]) { self.secret = secret }
    var node: String { "a" }
    var leaseSeconds: Double { 5 }
    func claim(_ id: BoardID, force: Bool) throws(StoreError) -> Claim { .mine(epoch: 1) }
    func renew() throws(StoreError) -> Set<BoardID> { [] }
    func release(_ id: BoardID) throws(StoreError) {}
    func nodes() throws(StoreError) -> [ClusterNode] { [] }
    func owner(of id: BoardID) throws(StoreError) -> String? { "a" }
    func clusterSecret() throws(StoreError) -> [UInt8] { secret }
}

/// A forwarding node: `rules` decide, the hub never sees a hello. It forwards over node links
/// (the default) with `links`, else one upstream per client (`--node-links off`).
func forwardingNode(
    _ rules: ForwardingRules, secret: [UInt8]? = testSecret, links: Bool = false,
    _ more: @escaping @Sendable (inout ServerConfig) -> Void = { _ in }
)
    -> (inout ServerConfig) -> Void
{
    { config in
        config.clusterSecret = secret
        config.nodeLinks = links
        config.interceptEvent = { rules.intercept($0) }
        more(&config)
    }
}

/// A board's owner, which takes forwarded clients over node links only with the cluster key.
let keyedOwner: @Sendable (inout ServerConfig) -> Void = { $0.clusterSecret = testSecret }

let testSecret: [UInt8] = Array(0..<32).map { UInt8($0 * 7 + 1) }
let hexSecret = testSecret.map { String(format: "%02x", $0) }.joined()

/// A `/metrics` sample's value, or nil.
func metric(_ server: TestServer, _ line: String) throws -> Double? {
    let text = try server.http("GET", "/metrics").body
    for sample in text.split(separator: "\n") where sample.hasPrefix(line + " ") {
        return Double(sample.dropFirst(line.count + 1))
    }
    return nil
}

/// A wait in these tests that ran out.
struct ForwardingTestFailure: Error, CustomStringConvertible {
    var description: String
}

/// The forwarding transport, each test (`links`) over an upstream per client and over a node
/// link where the behaviour is the same; those that look at the upstream's own wire run without links.
@Suite struct ForwardingTests {
    @Test(arguments: [false, true])
    func aForwardedClientWorksAsOnTheOwnerBothWaysInOrder(links: Bool) async throws {
        try await withTestServer(keyedOwner) { owner in
            let rules = ForwardingRules(owner: "127.0.0.1:\(owner.port)")
            try await withTestServer(forwardingNode(rules, links: links)) { node in
                let (a, welcomeA) = try await node.join(as: "Ada")
                let ada = try #require(welcomeA["you"]?.stringValue)
                let (b, welcomeB) = try await owner.join(as: "Bo")
                let bo = try #require(welcomeB["you"]?.stringValue)
                #expect(welcomeB["users"]?.arrayValue?.count == 2)
                #expect(try await a.expect("join")["user"]?["id"]?.stringValue == bo)

                // Drags and hovers from the forwarded client reach the owner's client, in order.
                a.send(#"{"type":"dragStart","item":"t1"}"#)
                #expect(try await b.expect("dragStart")["by"]?.stringValue == ada)
                #expect(try await a.expect("dragStart")["by"]?.stringValue == ada)
                // (A reader that is behind gets the newest hover of a hand only: the last one always arrives.)
                for over in ["t2", "t3", "t4"] { a.send(#"{"type":"hover","item":"t1","over":"\#(over)"}"#) }
                var seen: [String] = []
                while seen.last != "t4", seen.count < 3 {
                    seen.append(try await b.expect("hover")["over"]?.stringValue ?? "")
                }
                #expect(seen.last == "t4" && seen == seen.sorted())
                a.send(#"{"type":"drop","item":"t1","op":"a1","base":0,"action":{"type":"swap","with":"t5"}}"#)
                for client in [a, b] {
                    #expect(try await client.expect("drop")["item"]?.stringValue == "t1")
                    #expect(try await client.expect("swap")["seq"]?.intValue == 1)
                }
                // And the owner's client's to the forwarded one, ops in seq order.
                for n in 2...6 {
                    b.send(#"{"type":"toggle","op":"b\#(n)","base":\#(n - 1),"item":"t\#(n)","on":true}"#)
                }
                for n in 2...6 {
                    #expect(try await a.expect("toggle")["seq"]?.intValue == n)
                    #expect(try await b.expect("toggle")["seq"]?.intValue == n)
                }
                b.send(#"{"type":"dragStart","item":"t9"}"#)
                b.send(#"{"type":"hover","item":"t9","over":"t8"}"#)
                #expect(try await a.expect("dragStart")["by"]?.stringValue == bo)
                #expect(try await a.expect("hover")["over"]?.stringValue == "t8")
                #expect(try await b.expect("dragStart")["by"]?.stringValue == bo)
                try await a.expectNothingPending()
                try await b.expectNothingPending()

                #expect(try metric(node, "shuffleboard_forwards_total") == 1)
                #expect(try metric(node, "shuffleboard_forwards_open") == 1)
                #expect(try metric(node, #"shuffleboard_relayed_messages_total{direction="to_owner"}"#) ?? 0 >= 6)
                #expect(try metric(node, #"shuffleboard_relayed_messages_total{direction="to_client"}"#) ?? 0 >= 10)

                // The forwarded client leaving closes its upstream: the owner's client sees it go.
                a.close()
                #expect(try await b.expect("leave")["user"]?["id"]?.stringValue == ada)
                #expect(rules.endCount == 0)
                // With a close frame the owner read: the upstream's 1000, not a dropped connection
                // (over a link: a leave frame with 1000, and the link, its last client gone, closes).
                if !links {
                    #expect(try metric(owner, #"shuffleboard_closes_total{code="1000",initiator="client"}"#) == 1)
                }
                #expect(try metric(node, #"shuffleboard_forward_ends_total{how="client"}"#) == 1)
            }
        }
    }

    @Test(arguments: [false, true])
    func stoppingTheForwardingNodeClosesItsClientsAndTheirUpstreams(links: Bool) async throws {
        try await withTestServer(keyedOwner) { owner in
            let (b, _) = try await owner.join(as: "Bo")
            let rules = ForwardingRules(owner: "127.0.0.1:\(owner.port)")
            // The forwarded client lives on the owner's client loop, so it outlives the node.
            var client: TestClient?
            try await withTestServer(forwardingNode(rules, links: links)) { node in
                let a = TestClient(try await owner.loop.connect(port: node.port))
                a.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
                try await a.expect("welcome")
                try await b.expect("join")
                client = a
            }
            #expect(try await client?.connection.waitForClose().code == 1001)
            try await b.expect("leave")
            #expect(rules.endCount == 0)
        }
    }

    @Test func theOwnerTrustsAForwardedAddressOnlyWithTheClusterKey() async throws {
        let peers = PeerLog()
        try await withTestServer({
            $0.clusterSecret = testSecret
            $0.interceptEvent = { peers.intercept($0) }
        }) { owner in
            let header = "x-shuffleboard-forwarded-for: 203.0.113.7"
            _ = try RawWebSocket(port: owner.port, headers: [header, "x-shuffleboard-cluster-key: \(hexSecret)"])
            #expect(try await peers.peer(1) == "203.0.113.7")
            _ = try RawWebSocket(port: owner.port, headers: [header])
            #expect(try await peers.peer(2) == "127.0.0.1")
            let wrong = String(hexSecret.dropLast()) + (hexSecret.hasSuffix("0") ? "1" : "0")
            _ = try RawWebSocket(port: owner.port, headers: [header, "x-shuffleboard-cluster-key: \(wrong)"])
            #expect(try await peers.peer(3) == "127.0.0.1")
            _ = try RawWebSocket(
                port: owner.port,
                headers: ["x-shuffleboard-forwarded-for: a b", "x-shuffleboard-cluster-key: \(hexSecret)"])
            #expect(try await peers.peer(4) == "127.0.0.1")
        }
        // A server on a ClusterStore takes the store's secret when the config gives none.
        let fromStore = PeerLog()
        try await withTestServer(
            { $0.interceptEvent = { fromStore.intercept($0) } }, store: SecretClusterStore(secret: testSecret)
        ) { owner in
            _ = try RawWebSocket(
                port: owner.port,
                headers: ["x-shuffleboard-forwarded-for: 203.0.113.8", "x-shuffleboard-cluster-key: \(hexSecret)"])
            #expect(try await fromStore.peer(1) == "203.0.113.8")
        }
        // A node that is not clustered trusts no forwarded-for header at all.
        let unclustered = PeerLog()
        try await withTestServer({ $0.interceptEvent = { unclustered.intercept($0) } }) { owner in
            _ = try RawWebSocket(
                port: owner.port,
                headers: ["x-shuffleboard-forwarded-for: 203.0.113.7", "x-shuffleboard-cluster-key: \(hexSecret)"])
            #expect(try await unclustered.peer(1) == "127.0.0.1")
        }
    }

    @Test func aForwardingNodeNamesItsClientToTheOwnerWithItsKey() async throws {
        // The node's client here is itself forwarded (by a "node" that holds the key), so its
        // address is not the loopback one every socket in a test has: the owner must see it.
        for (ownerSecret, expected) in [(testSecret, "203.0.113.9"), ([UInt8](repeating: 1, count: 32), "127.0.0.1")] {
            let peers = PeerLog()
            try await withTestServer({
                $0.clusterSecret = ownerSecret
                $0.interceptEvent = { peers.intercept($0) }
            }) { owner in
                let rules = ForwardingRules(owner: "127.0.0.1:\(owner.port)")
                try await withTestServer(forwardingNode(rules)) { node in
                    let client = try RawWebSocket(
                        port: node.port,
                        headers: [
                            "x-shuffleboard-forwarded-for: 203.0.113.9", "x-shuffleboard-cluster-key: \(hexSecret)",
                        ])
                    client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
                    let welcome = try #require(try client.nextMessage())
                    #expect(welcome.text.contains(#""type":"welcome""#))
                    #expect(try await peers.peer(1) == expected)
                }
            }
        }
    }

    @Test func theUpstreamHandshakeCarriesTheClientsOriginTheHeadersAndNoExtensions() async throws {
        let silent = try LoopbackListener()
        let rules = ForwardingRules(owner: "127.0.0.1:\(silent.port)")
        try await withTestServer(forwardingNode(rules) { $0.deflate = true }) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            let head = try silent.readHead(try silent.accept()).lowercased() + "\r\n"
            #expect(head.hasPrefix("get /ws http/1.1"))
            #expect(head.contains("\r\norigin: http://127.0.0.1:\(node.port)\r\n"))  // As the client sent it.
            #expect(head.contains("\r\nsec-websocket-protocol: shuffleboard.v1\r\n"))
            #expect(head.contains("\r\nx-shuffleboard-forwarded-for: 127.0.0.1\r\n"))
            #expect(head.contains("\r\nx-shuffleboard-cluster-key: \(hexSecret)\r\n"))
            #expect(!head.contains("sec-websocket-extensions"))
        }
    }

    @Test func theLinkHandshakeCarriesTheKeyAndTheNodeAndNoExtensions() async throws {
        let silent = try LoopbackListener()
        let rules = ForwardingRules(owner: "127.0.0.1:\(silent.port)")
        try await withTestServer(
            forwardingNode(rules, links: true) {
                $0.deflate = true
                $0.node = "n7"
            }
        ) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            let head = try silent.readHead(try silent.accept()).lowercased() + "\r\n"
            #expect(head.hasPrefix("get /node.v1 http/1.1"))
            #expect(head.contains("\r\nx-shuffleboard-cluster-key: \(hexSecret)\r\n"))
            #expect(head.contains("\r\nx-shuffleboard-node: n7\r\n"))
            // The client's address and Origin go in its open frame, not in the link's head.
            #expect(!head.contains("x-shuffleboard-forwarded-for") && !head.contains("sec-websocket-extensions"))
        }
    }

    @Test(arguments: [false, true])
    func anOwnerThatNeverAnswersTheHandshakeTimesOut(links: Bool) async throws {
        let silent = try LoopbackListener()
        let rules = ForwardingRules(owner: "127.0.0.1:\(silent.port)")
        try await withTestServer(forwardingNode(rules, links: links) { $0.forwardTimeout = .seconds(1) }) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            let end = try await rules.end()
            #expect(end.code == nil && end.answered == false)
            #expect(try await client.connection.waitForClose(timeout: .seconds(5)).code == 1011)
            #expect(try metric(node, #"shuffleboard_forward_ends_total{how="timeout"}"#) == 1)
            #expect(try metric(node, "shuffleboard_forwards_open") == 0)
        }
    }

    /// (Over a link, the owner's first message would be a binary frame: only the silent case.)
    @Test(arguments: [(false, false), (true, false), (false, true)])
    func anOwnerThatStopsAnsweringIsGivenUp(afterAMessage: Bool, links: Bool) async throws {
        // An owner that accepted the upgrade and then stopped (SIGSTOP): no pong ever comes.
        let stopped = try LoopbackListener()
        let rules = ForwardingRules(owner: "127.0.0.1:\(stopped.port)")
        try await withTestServer(forwardingNode(rules, links: links) { $0.forwardTimeout = .seconds(1) }) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            let owner = try stopped.acceptWebSocket()
            if afterAMessage {
                try stopped.sendText(#"{"type":"pong"}"#, to: owner)
                try await client.expect("pong")
            }
            let end = try await rules.end(within: 10)
            #expect(end.code == nil && end.answered == afterAMessage)
            #expect(try metric(node, #"shuffleboard_forward_ends_total{how="closed"}"#) == 1)
        }
    }

    @Test(arguments: [false, true])
    func aRefusedConnectionEndsUnanswered(links: Bool) async throws {
        let rules = ForwardingRules(owner: "127.0.0.1:\(try LoopbackListener.freePort())")
        try await withTestServer(forwardingNode(rules, links: links)) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            let end = try await rules.end()
            #expect(end.code == nil && end.answered == false)
            #expect(try await client.connection.waitForClose().code == 1011)
            #expect(try metric(node, #"shuffleboard_forward_ends_total{how="failed"}"#) == 1)
        }
    }

    @Test(arguments: [false, true])
    func afterAnEndTheConnectionIsTheHubsAgain(links: Bool) async throws {
        let rules = ForwardingRules(owner: "127.0.0.1:\(try LoopbackListener.freePort())")
        rules.state.withLock { $0.keepOnEnd = true }
        try await withTestServer(forwardingNode(rules, links: links)) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            _ = try await rules.end()
            // Not relayed to an upstream that is gone: this node's hub answers it.
            client.send(#"{"type":"ping"}"#)
            try await client.expect("pong")
        }
    }

    @Test(arguments: [false, true])
    func whatAnUnansweredOwnerWasSentGoesBackToTheHubAndARetryDeliversIt(links: Bool) async throws {
        let silent = try LoopbackListener()
        try await withTestServer(keyedOwner) { owner in
            let rules = ForwardingRules(owner: "127.0.0.1:\(silent.port)", retryTo: "127.0.0.1:\(owner.port)")
            try await withTestServer(forwardingNode(rules, links: links) { $0.forwardTimeout = .seconds(1) }) { node in
                let client = try await node.connect()
                client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
                client.send(#"{"type":"toggle","op":"c1","base":0,"item":"t1","on":true}"#)
                client.send(#"{"type":"toggle","op":"c2","base":0,"item":"t2","on":true}"#)
                let end = try await rules.end()
                #expect(end.code == nil && end.answered == false)
                let ops = end.unrelayed.compactMap { message -> String? in
                    guard case .op(let request) = message else { return nil }
                    return request.opID.rawValue
                }
                #expect(ops == ["c1", "c2"])
                // The retry reaches the owner: its welcome, then what the client sent meanwhile.
                try await client.expect("welcome")
                #expect(try await client.expect("toggle")["op"]?.stringValue == "c1")
                #expect(try await client.expect("toggle")["op"]?.stringValue == "c2")
                try await client.expectNothingPending()
                #expect(try metric(node, #"shuffleboard_forward_ends_total{how="timeout"}"#) == 1)
                #expect(try metric(node, "shuffleboard_forwards_total") == 2)
            }
        }
    }

    @Test(arguments: [false, true])
    func theOwnerClosingReachesForwardEndedWithItsCode(links: Bool) async throws {
        try await withTestServer(keyedOwner) { owner in
            let rules = ForwardingRules(owner: "127.0.0.1:\(owner.port)")
            try await withTestServer(forwardingNode(rules, links: links)) { node in
                let (client, _) = try await node.join("doomed", as: "Ada")
                // A board made by hello is stored with its first op: change it, then delete it.
                client.send(#"{"type":"toggle","op":"o1","base":0,"item":"t1","on":true}"#)
                try await client.expect("toggle")
                #expect(try owner.http("DELETE", "/api/boards/doomed").status == 200)
                let end = try await rules.end()
                #expect(end.code == 4410 && end.answered == true)
                #expect(try await client.connection.waitForClose().code == 4410)
                #expect(try metric(node, #"shuffleboard_forward_ends_total{how="closed"}"#) == 1)
            }
        }
    }

    @Test(arguments: [false, true])
    func aClientSendingFasterThanTheOwnerTakesIsClosedWith1008(links: Bool) async throws {
        let silent = try LoopbackListener()
        let rules = ForwardingRules(owner: "127.0.0.1:\(silent.port)")
        try await withTestServer(
            forwardingNode(rules, links: links) {
                $0.maxPendingBytes = 64 * 1024
                $0.forwardTimeout = .seconds(60)
            }
        ) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            // The owner never finishes the handshake, so everything waits in the upstream's queue.
            let filler = String(repeating: "x", count: 8 * 1024)
            for n in 0..<12 { client.send(#"{"type":"ping","n":\#(n),"pad":"\#(filler)"}"#) }
            let close = try await client.connection.waitForClose()
            #expect(close.code == 1008)
            #expect(rules.endCount == 0)
        }
    }

    @Test(arguments: [false, true])
    func theOwnersAllowedOriginsHoldForForwardedClients(links: Bool) async throws {
        let first = ForwardingRules()
        let second = ForwardingRules()
        try await withTestServer(forwardingNode(first, links: links)) { allowed in
            try await withTestServer(forwardingNode(second, links: links)) { refused in
                try await withTestServer({
                    $0.clusterSecret = testSecret
                    $0.hub.origins.allowed = ["http://127.0.0.1:\(allowed.port)"]
                }) { owner in
                    first.setOwner("127.0.0.1:\(owner.port)")
                    second.setOwner("127.0.0.1:\(owner.port)")
                    _ = try await allowed.join(as: "Ada")
                    let client = try await refused.connect()
                    client.send(#"{"type":"hello","board":"demo","name":"Bo"}"#)
                    // Refused at the upgrade, or (over a link, whose clients the owner checks
                    // one by one) closed by the owner with 1008 before any answer (a code about
                    // the client: the hub closes it with that code, answered or not).
                    let end = try await second.end()
                    #expect(!end.answered && end.code == (links ? 1008 : nil))
                    #expect(first.endCount == 0)
                }
            }
        }
    }
}
