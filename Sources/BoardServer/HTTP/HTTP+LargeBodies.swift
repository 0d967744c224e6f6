internal import BoardHub

/// The one route that takes a large body: `POST /api/boards/import/trello` (a Trello export, up
/// to `Hub.trelloImportMaxBytes`); every other request's body is bounded by `--max-body-bytes`.
/// Content-Length is checked before a byte of the body is read, and lws passes no more bytes
/// than it says (`body`), so what a request holds is counted as it arrives. So that large bodies
/// cannot add up, at most `maxLargeBodies` are read at a time; another gets 503 at once.
extension HTTP {
    /// Large bodies read at once, over all connections.
    static let maxLargeBodies = 2

    /// The body limit of a request for `path`.
    func maxBodyBytes(_ path: String) -> Int {
        path == Hub.trelloImportPath ? max(Hub.trelloImportMaxBytes, config.maxBodyBytes) : config.maxBodyBytes
    }

    /// 503 for a body over `--max-body-bytes` while `maxLargeBodies` such bodies are being read.
    func largeBodyRefusal(_ framing: HTTPFraming) -> HTTPResponse? {
        let length: Int
        switch framing {
        case .body(let n), .bodyAfterContinue(let n): length = n
        case .refused: return nil
        }
        guard length > config.maxBodyBytes else { return nil }
        let reading = exchanges.values.count { $0.bodyLength > config.maxBodyBytes }
        guard reading >= Self.maxLargeBodies else { return nil }
        return .error(503, "unavailable", "other large imports are being received; try again shortly")
    }
}
