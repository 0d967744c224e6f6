/// The methods each path of the server takes, for a 405's `allow` header when the request's
/// method is one the server never reads: lws 4.1.6 does not parse TRACE, PROPFIND or any other
/// method it does not know, and turns CONNECT into a raw socket (BoardServer's
/// `UnknownMethods`). The hub's own routes answer 405 with the same lists.
package enum AllowedMethods {
    /// What `path` (without its query) allows, or nil when it is no route of the API (a 404).
    package static func of(_ path: String) -> String? {
        switch path {
        case "/healthz", "/readyz", "/metrics", "/api/templates", "/api/cluster", "/api/inbox", "/api/search",
            "/api/me":
            return "GET"
        case "/api/inbox/read": return "POST"
        case "/api/boards", "/api/revocations": return "GET, POST"
        case Hub.trelloImportPath: return "POST"
        default: break
        }
        guard Hub.routes(path) else { return "GET" }  // the web client's files
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).map(String.init)
        guard segments.first == "boards", segments.count >= 2, segments.count <= 4, !segments[1].isEmpty else {
            return nil
        }
        if segments.count == 2 { return "GET, DELETE" }
        if segments.count == 4 {
            switch segments[2] {
            case "members": return "GET, PUT, DELETE"
            case "links": return "DELETE"
            default: return nil
            }
        }
        switch segments[2] {
        case "grants", "members": return "GET"
        case "links": return "GET, POST"
        case "ops": return "GET, POST"
        case "events", "history", "export", "export.csv": return "GET"
        default: return nil
        }
    }
}
