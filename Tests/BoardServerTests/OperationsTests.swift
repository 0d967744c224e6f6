import TestSupport
import Testing

/// `/readyz` and `/metrics` on the real server: what only the transport can answer.
@Suite struct OperationsTests {
    @Test func metricsAndReadinessAnswerGetOnly() async throws {
        try await withTestServer { server in
            #expect(try server.http("POST", "/metrics", body: "{}").status == 405)
            #expect(try server.http("DELETE", "/readyz").status == 405)
            let metrics = try server.http("GET", "/metrics")
            #expect(metrics.status == 200)
            #expect(metrics.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8")
            #expect(metrics.body.contains("\nshuffleboard_ready 1\n"))
            #expect(metrics.body.contains(#"shuffleboard_http_responses_total{code="405"} 2"#))
        }
    }
}
