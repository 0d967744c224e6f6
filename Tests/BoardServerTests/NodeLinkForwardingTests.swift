import BoardClient
import BoardCore
import BoardHub
import BoardServer
import BoardStore
import Foundation
import TestSupport
import Testing

/// Node links (`ServerConfig.nodeLinks`, docs/cluster.md#the-node-link---node-links) between real servers in
/// this process: an owner and two forwarding nodes, each forwarding node's clients of the board
/// over one link.
@Suite struct NodeLinkForwardingTests {
    /// A forwarding node that forwards every hello to `rules`' owner over node links.
    func linkingNode(_ rules: ForwardingRules, name: String) -> (inout ServerConfig) -> Void {
        forwardingNode(rules) {
            $0.nodeLinks = true
            $0.node = name
        }
    }

    /// The next message of `type`, passing over others (joins, presence) — at most 50 of them.
    func skipping(to type: String, on client: TestClient) async throws -> JSON {
        for _ in 0..<50 {
            let message = try await client.next()
            if message["type"]?.stringValue == type { return message }
        }
        throw ForwardingTestFailure(description: "no \(type) within 50 messages")
    }

    @Test func clientsOnThreeNodesSeeOneOrderAndEachOthersDragsOverOneLinkPerNode() async throws {
        try await withTestServer({ $0.clusterSecret = testSecret }) { owner in
            let rules = ForwardingRules(owner: "127.0.0.1:\(owner.port)")
            try await withTestServer(linkingNode(rules, name: "n2")) { n2 in
                try await withTestServer(linkingNode(rules, name: "n3")) { n3 in
                    let (o1, w1) = try await owner.join(as: "O1")
                    var clients = [o1]
                    var ids = [try #require(w1["you"]?.stringValue)]
                    for (node, name) in [(n2, "A1"), (n2, "A2"), (n3, "B1"), (n3, "B2")] {
                        let (client, welcome) = try await node.join(as: name)
                        clients.append(client)
                        ids.append(try #require(welcome["you"]?.stringValue))
                    }
                    // Everyone is present everywhere.
                    let (last, welcome) = try await n3.join(as: "B3")
                    clients.append(last)
                    ids.append(try #require(welcome["you"]?.stringValue))
                    #expect(welcome["users"]?.arrayValue?.count == 6)

                    // A drag from a client of one forwarding node reaches every other client.
                    let a1 = clients[1]
                    a1.send(#"{"type":"dragStart","item":"t1"}"#)
                    for client in clients {
                        #expect(try await skipping(to: "dragStart", on: client)["by"]?.stringValue == ids[1])
                    }
                    // Its hovers reach the others, never itself (the owner's broadcast leaves it out).
                    a1.send(#"{"type":"hover","item":"t1","over":"t3"}"#)
                    for client in clients where client !== a1 {
                        #expect(try await skipping(to: "hover", on: client)["by"]?.stringValue == ids[1])
                    }
                    a1.send(#"{"type":"drop","item":"t1","op":"a1","base":0,"action":{"type":"swap","with":"t5"}}"#)
                    #expect(try await a1.next()["type"]?.stringValue == "drop")
                    for client in clients where client !== a1 {
                        #expect(try await skipping(to: "drop", on: client)["item"]?.stringValue == "t1")
                    }

                    // Ops from every node at once: every client sees seqs 1..N in one order.
                    // (Items of their own, none of them the swap's: every op commits.)
                    for (i, client) in clients.enumerated() {
                        let item = [2, 3, 4, 6, 7, 8][i]
                        client.send(#"{"type":"toggle","op":"x\#(i)","base":1,"item":"t\#(item)","on":true}"#)
                    }
                    var orders: [[String]] = []
                    for client in clients {
                        var order: [String] = []
                        while order.count < clients.count + 1 {
                            let message = try await client.next()
                            guard let seq = message["seq"]?.intValue else { continue }
                            order.append("\(seq):\(message["type"]?.stringValue ?? "")")
                        }
                        orders.append(order)
                    }
                    #expect(Set(orders.map { $0.joined(separator: ",") }).count == 1, "\(orders)")

                    // One link per forwarding node, whatever its clients (a forward is a client's).
                    #expect(try metric(n2, "shuffleboard_forwards_open") == 1)
                    #expect(try metric(n3, "shuffleboard_forwards_open") == 1)
                    #expect(try metric(n2, "shuffleboard_forwards_total") == 2)
                    #expect(try metric(owner, "shuffleboard_node_links_open") == 2)
                    #expect(try metric(owner, "shuffleboard_node_link_clients") == 5)
                    #expect(try metric(owner, #"shuffleboard_node_links{node="n2"}"#) == 1)
                    #expect(try metric(owner, #"shuffleboard_node_links{node="n3"}"#) == 1)
                    // A link per board: a client of another board on n2 makes n2's second.
                    let (other, _) = try await n2.join("second", as: "C1")
                    #expect(try metric(owner, #"shuffleboard_node_links{node="n2"}"#) == 2)
                    #expect(try metric(n2, "shuffleboard_forwards_open") == 2)
                    other.close()

                    // A client leaving is seen to leave everywhere.
                    clients[4].close()
                    #expect(try await skipping(to: "leave", on: clients[0])["user"]?["id"]?.stringValue == ids[4])
                    #expect(try await skipping(to: "leave", on: clients[5])["user"]?["id"]?.stringValue == ids[4])
                    #expect(rules.endCount == 0)
                }
            }
        }
    }

    @Test func aClientCannotAskForTheLinksOwnProtocolNorOpenALinkWithoutTheKey() async throws {
        try await withTestServer({ $0.clusterSecret = testSecret }) { owner in
            var refused = 0
            for (subprotocol, path) in [("shuffleboard-node-link", "/ws"), ("shuffleboard.v1", "/node.v1")] {
                do {
                    _ = try await owner.connect(subprotocol: subprotocol, path: path)
                } catch {
                    refused += 1
                }
            }
            let links = try metric(owner, "shuffleboard_node_links_open")
            #expect(refused == 2 && links == 0)
        }
    }

    @Test func losingTheLinkEndsTheForwardOfEveryClientOfThatNode() async throws {
        let rules = ForwardingRules()
        try await withTestServer(linkingNode(rules, name: "n2")) { node in
            var clients: [TestClient] = []
            try await withTestServer({ $0.clusterSecret = testSecret }) { owner in
                rules.setOwner("127.0.0.1:\(owner.port)")
                for name in ["A1", "A2", "A3"] { clients.append(try await node.join(as: name).0) }
            }
            // The owner stopped: each client's forward ended, answered (the owner's 1001, or the
            // link's loss), and the rules close it with that code (1011 without one).
            for n in 1...3 {
                let end = try await rules.end(n)
                #expect(end.answered && (end.code == 1001 || end.code == nil), "\(end)")
            }
            for client in clients {
                #expect([1001, 1011].contains(try await client.connection.waitForClose().code))
            }
        }
    }
}
