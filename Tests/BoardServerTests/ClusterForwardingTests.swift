import BoardCore
import BoardHub
import BoardServer
import BoardStore
import Foundation
import TestSupport
import Testing

/// Forwarding as a cluster does it: real servers on `MemoryClusterStore`s sharing one in-memory
/// database, so the hub's cluster rules make the `.forward` (ForwardingTests drive the transport
/// directly). Each node listens on a port chosen first, because its store advertises it.
@Suite struct ClusterForwardingTests {
    /// A store for node `name` of the cluster on `database`, and the port it advertises.
    static func node(_ name: String, on database: MemoryClusterDatabase, lease: Double = 30) throws -> (
        MemoryClusterStore, port: Int
    ) {
        let port = try LoopbackListener.freePort()
        let store = MemoryClusterStore(
            database: database, node: name, advertise: "127.0.0.1:\(port)", leaseSeconds: lease)
        return (store, port)
    }

    @Test func aClientOnAnotherNodeWorksAsOnTheOwnerUntilTheBoardIsDeleted() async throws {
        let database = MemoryClusterDatabase()
        let (a, portA) = try Self.node("a", on: database)
        let (b, portB) = try Self.node("b", on: database)
        try await withTestServer({ $0.port = portA }, store: a) { owner in
            let (ada, _) = try await owner.join("demo", as: "Ada")
            try await withTestServer({ $0.port = portB }, store: b) { node in
                let (bo, welcome) = try await node.join("demo", as: "Bo")
                #expect(welcome["users"]?.arrayValue?.count == 2)
                try await ada.expect("join")
                bo.send(#"{"type":"toggle","op":"b1","base":0,"item":"t1","on":true}"#)
                #expect(try await ada.expect("toggle")["seq"]?.intValue == 1)
                #expect(try await bo.expect("toggle")["seq"]?.intValue == 1)
                ada.send(#"{"type":"dragStart","item":"t2"}"#)
                ada.send(#"{"type":"hover","item":"t2","over":"t3"}"#)
                #expect(try await bo.expect("dragStart")["item"]?.stringValue == "t2")
                #expect(try await bo.expect("hover")["over"]?.stringValue == "t3")
                bo.send(#"{"type":"dragStart","item":"t2"}"#)
                #expect(try await bo.expect("reject")["reason"]?.stringValue == "held")
                // Either node names the owner.
                let snapshot = try JSON.parse(try node.http("GET", "/api/boards/demo").body)
                #expect(snapshot["owner"]?.stringValue == "a" && snapshot["seq"]?.intValue == 1)
                #expect(try metric(node, "shuffleboard_forwards_open") == 1)
                // The owner deletes the board: its 4410 reaches the forwarded client.
                #expect(try owner.http("DELETE", "/api/boards/demo").status == 200)
                #expect(try await bo.connection.waitForClose().code == 4410)
                #expect(try metric(node, #"shuffleboard_forward_ends_total{how="closed"}"#) == 1)
            }
        }
    }

    @Test func theOwnerStoppingSendsForwardedClientsAwayAndTheyResumeOnTheirNode() async throws {
        let database = MemoryClusterDatabase()
        let (a, portA) = try Self.node("a", on: database, lease: 1)
        let (b, portB) = try Self.node("b", on: database, lease: 1)
        try await withTestServer({ $0.port = portB }, store: b) { node in
            var bo: TestClient?
            try await withTestServer({ $0.port = portA }, store: a) { owner in
                let (ada, _) = try await owner.join("demo", as: "Ada")
                ada.send(#"{"type":"toggle","op":"a1","base":0,"item":"t1","on":true}"#)
                try await ada.expect("toggle")
                let (client, welcome) = try await node.join("demo", as: "Bo")
                #expect(welcome["seq"]?.intValue == 1)
                bo = client
            }
            // 1012, which the test client's libwebsockets reports as 1002; the reason says which.
            let close = try #require(try await bo?.connection.waitForClose())
            #expect(close.reason == "board owner gone; reconnect")
            let (again, welcome) = try await node.join("demo", as: "Bo", since: 1)
            #expect(welcome["seq"]?.intValue == 1)
            again.send(#"{"type":"toggle","op":"b2","base":1,"item":"t2","on":true}"#)
            #expect(try await again.expect("toggle")["seq"]?.intValue == 2)
            let snapshot = try JSON.parse(try node.http("GET", "/api/boards/demo").body)
            #expect(snapshot["owner"]?.stringValue == "b" && snapshot["seq"]?.intValue == 2)
        }
    }

    @Test func aClientForwardedToADeadOwnerGetsTheBoardOnceTheLeaseLapsesWithWhatItSent() async throws {
        // The database's time moves only when told, so a's lease lapses exactly when the test says.
        let clock = ManualClock()
        let database = MemoryClusterDatabase(clock: { clock.now })
        // The dead owner: its lease on the board is live, and its address hangs up on whoever comes.
        let dead = try LoopbackListener()
        let a = MemoryClusterStore(database: database, node: "a", advertise: "127.0.0.1:\(dead.port)", leaseSeconds: 1)
        _ = try a.claim(BoardID("demo")!, force: false)
        let (b, portB) = try Self.node("b", on: database)
        // However late the test gets round to hanging up, each try fails rather than times out.
        let config: @Sendable (inout ServerConfig) -> Void = {
            $0.port = portB
            $0.forwardTimeout = .seconds(600)
        }
        try await withTestServer(config, store: b) { node in
            let client = try await node.connect()
            client.send(#"{"type":"hello","board":"demo","name":"Bo"}"#)
            client.send(#"{"type":"toggle","op":"b1","base":0,"item":"t1","on":true}"#)
            // Forwarded to a, which fails; b tries again, and a still holds the lease.
            dead.hangUp(try dead.accept())
            dead.hangUp(try dead.accept())
            // Now a's lease lapses: b's next try claims the board for itself.
            clock.advance(2_000)
            let welcome = try await client.expect("welcome", timeout: .seconds(10))
            #expect(welcome["seq"]?.intValue == 0)
            #expect(try await client.expect("toggle")["op"]?.stringValue == "b1")
            let snapshot = try JSON.parse(try node.http("GET", "/api/boards/demo").body)
            #expect(snapshot["owner"]?.stringValue == "b")
            #expect(try metric(node, #"shuffleboard_forward_ends_total{how="failed"}"#) ?? 0 >= 2)
        }
    }
}
