import BoardCore
import TestSupport
import Testing

/// The accept-time limits through the real transport (Service+Sockets.swift): lws's accept, the
/// wsi that follows it, its close, and the kernel's count of bytes received.
@Suite struct AcceptLimitTests {
    @Test func overThePendingCapAConnectionIsClosedAtAcceptAndASilentOneAfterItsTimeout() async throws {
        try await withTestServer({
            $0.hub.maxPendingPerAddress = 2
            $0.hub.firstByteTimeout = .seconds(1)
        }) { server in
            let silent = try server.rawConnection()
            let talking = try server.rawConnection()
            try talking.send("GET /healthz HTTP/1.1\r\n")  // a byte, and not yet a whole request
            let refused = try server.rawConnection()
            #expect(try refused.closedByServer(within: .seconds(5)), "over the cap: closed at accept")
            #expect(try silent.closedByServer(within: .seconds(5)), "no byte within a second: closed")
            try talking.send("Host: x\r\n\r\n")
            #expect(try talking.response()?.status == 200, "the connection that sent a byte was kept")
            let metrics = try server.http("GET", "/metrics").body
            #expect(metrics.contains(#"shuffleboard_connections_refused_total{reason="pending_per_address"} 1"#))
            #expect(metrics.contains(#"shuffleboard_connections_refused_total{reason="first_byte_timeout"} 1"#))
        }
    }

    @Test func anUpgradedConnectionNoLongerCountsAsPending() async throws {
        try await withTestServer({
            $0.hub.maxPendingPerAddress = 1
            $0.hub.connectRate = nil
        }) { server in
            let (first, _) = try await server.join(as: "Ada")
            let (second, _) = try await server.join(as: "Bo")
            #expect(try server.http("GET", "/healthz").status == 200, "two WebSockets, no pending connection")
            first.close()
            second.close()
        }
    }
}
