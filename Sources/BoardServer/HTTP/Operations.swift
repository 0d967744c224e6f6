internal import BoardAuth
internal import BoardCore
internal import BoardHub
internal import BoardMetrics

/// `GET /metrics` and `GET /readyz`, answered by the transport: they describe the whole process
/// (connections and send queues, the writer thread's statistics behind its lock, the hub's
/// registry), which only the service thread sees all of, and they are no session rule.
extension HTTP {
    /// The answer to an operations request, or nil when `request` is not one.
    func operationsResponse(_ request: HTTPRequest) -> HTTPResponse? {
        guard request.path == "/metrics" || request.path == "/readyz" else { return nil }
        guard request.method == .get || request.method == .head else { return .methodNotAllowed("GET") }
        return request.path == "/metrics" ? metrics(request) : readiness()
    }

    /// 200 `{"status":"ready"}`, or 503 `{"status":"not_ready","reasons":[…]}`.
    private func readiness() -> HTTPResponse {
        let reasons = port.unreadiness
        return .json(reasons.isEmpty ? 200 : 503) { w in
            w.beginObject()
            w.write("status", reasons.isEmpty ? "ready" : "not_ready")
            w.beginArray("reasons")
            for reason in reasons { w.write(nil, reason) }
            w.endArray()
            w.endObject()
        }
    }

    /// Every metric in the Prometheus text format, behind `--metrics-token` when there is one.
    private func metrics(_ request: HTTPRequest) -> HTTPResponse {
        if let token = config.metricsToken {
            let header = request.authorization ?? ""
            let bearer = header.count > 7 && header.lowercased().hasPrefix("bearer ")
            guard bearer, token.matches(String(header.dropFirst(7)).trimmingWhitespace().utf8) else {
                port.handle(.transportCounted(.authFailure(AuthFailure(.metrics, bearer ? .forged : .missing))))
                if bearer { clientLog.warning("GET /metrics from \(request.peer): wrong bearer token") }
                var response = HTTPResponse.error(401, "unauthorized", "/metrics needs Authorization: Bearer TOKEN")
                response.headers.append(HTTPResponse.Header("www-authenticate:", "Bearer"))
                return response
            }
        }
        return HTTPResponse(status: 200, contentType: Metrics.contentType, body: Array(port.metricsText().utf8))
    }
}
