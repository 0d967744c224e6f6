import BoardCore
import Foundation
import TestSupport
import Testing

/// HTTP at the connection level: keep-alive, pipelining, body framing, and clients that are
/// slow or send too much. Every read has a deadline, and `withTestServer` fails (instead of
/// hanging) when the server does not stop.
@Suite struct HTTPConnectionTests {
    @Test func sequentialRequestsShareOneConnection() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send(request("GET", "/healthz"))
            let health = try #require(try c.response())
            #expect(health.status == 200 && health.headers["connection"] == nil)
            try c.send(request("POST", "/api/boards", body: boardJSON("kept")))
            #expect(try c.response()?.status == 201)
            try c.send(request("GET", "/api/boards/kept"))
            let board = try #require(try c.response())
            #expect(board.status == 200 && board.body.contains(#""title":"Kept""#))
            try c.send(request("DELETE", "/api/boards/kept"))
            #expect(try c.response()?.status == 200)
            try c.send(request("GET", "/", headers: ["Connection: close"]))
            #expect(try c.response()?.status == 200)
            #expect(try c.closedByServer())
        }
    }

    @Test func expect100ContinueIsAnsweredBeforeTheBodyIsSent() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            let body = boardJSON("eager")
            let whole = request("POST", "/api/boards", body: body, headers: ["Expect: 100-continue"])
            try c.send(String(whole.utf8.dropLast(body.utf8.count))!)  // the headers only
            #expect(try c.response()?.status == 100, "told to go on without waiting for the body")
            try c.send(body)
            #expect(try c.response()?.status == 201)
            // A request without a body needs no 100.
            try c.send(request("GET", "/api/boards/eager", headers: ["Expect: 100-continue"]))
            #expect(try c.response()?.status == 200)
        }
    }

    @Test func anExpectationOtherThan100ContinueIs417AndATooLargeBodyIsRefusedInsteadOf100() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send(request("POST", "/api/boards", body: boardJSON("odd"), headers: ["Expect: 200-ok"]))
            #expect(try c.response()?.status == 417)
            #expect(try c.closedByServer())
            let big = try server.rawConnection()
            try big.send(
                "POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 100000000\r\nExpect: 100-continue\r\n\r\n")
            #expect(try big.response()?.status == 413, "the refusal, not 100: the body is never sent")
        }
    }

    /// That it does not spin either (a CPU measurement of the real binary) is
    /// `test_a_pipelined_request_with_a_body_neither_hangs_nor_spins` in Tests/process/test_http.py.
    @Test(arguments: ["/healthz", "/api/boards/elsewhere"])
    func aPipelinedRequestWithABodyDoesNotHangTheServer(_ first: String) async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            // In one write: lws 4.1.6 used to re-deliver BODY_COMPLETION for the second forever.
            try c.send(request("GET", first) + "POST /x HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1\r\n\r\nA")
            #expect([200, 404].contains(try c.response()?.status))
            // The POST is answered in turn or the connection closed, but not left hanging.
            if let second = try c.response() { #expect(second.status == 405) }
            #expect(try server.http("GET", "/healthz").status == 200)
        }
    }

    @Test func aPipelinedCreateIsAnsweredOnceDurableThenTheConnectionClosesAndLaterReadsSeeTheBoard() async throws {
        // The create is answered once durable; lws 4.1.6 re-delivered BODY_COMPLETION meanwhile.
        try await withTestServer(store: SlowStore(writeLatency: .milliseconds(300))) { server in
            let c = try server.rawConnection()
            try c.send(request("POST", "/api/boards", body: boardJSON("piped")) + request("GET", "/api/boards/piped"))
            let created = try #require(try c.response())
            #expect(created.status == 201, "\(created.body)")
            // A pipelined request is not answered: the first answer says so and the connection closes.
            #expect(created.headers["connection"] == "close")
            #expect(try c.response() == nil)
            let later = try server.http("GET", "/api/boards/piped")
            #expect(later.status == 200 && later.body.contains(#""title":"Piped""#))
        }
    }

    @Test func pipelinedRequestsGetTheFirstAnswerThenTheConnectionCloses() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send(request("GET", "/healthz") + request("GET", "/api/boards"))
            let first = try #require(try c.response())
            #expect(first.status == 200 && first.body.contains("status"))
            #expect(first.headers["connection"] == "close")
            #expect(try c.response() == nil)
        }
    }

    @Test func aRequestWithContentLengthAndTransferEncodingIsRefused() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            let body = boardJSON("smuggled")
            try c.send(request("POST", "/api/boards", body: body, headers: ["Transfer-Encoding: chunked"]))
            let refused = try #require(try c.response())
            #expect(refused.status == 400 && refused.headers["connection"] == "close")
            #expect(try c.closedByServer())
            #expect(try server.http("GET", "/api/boards/smuggled").status == 404)
        }
    }

    @Test func aChunkedBodyIsRefusedWith411() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            let body = boardJSON("chunked")
            try c.send(
                "POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + String(body.utf8.count, radix: 16) + "\r\n" + body + "\r\n0\r\n\r\n")
            let refused = try #require(try c.response())
            #expect(refused.status == 411 && refused.headers["connection"] == "close")
            #expect(try c.closedByServer())
            #expect(try server.http("GET", "/api/boards/chunked").status == 404)
        }
    }

    @Test func aPostWithoutContentLengthIsRefusedWith411() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send("POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let refused = try #require(try c.response())
            #expect(refused.status == 411 && refused.headers["connection"] == "close")
            #expect(try c.closedByServer())
        }
    }

    @Test(arguments: ["Content-Length: 2\r\nContent-Length: 3", "Content-Length: +2", "Content-Length: 2x"])
    func aMalformedContentLengthIsRefused(_ header: String) async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send("POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\n\(header)\r\n\r\n{}")
            let refused = try #require(try c.response())
            #expect(refused.status == 400 && refused.headers["connection"] == "close")
            #expect(try c.closedByServer())
        }
    }

    @Test func aBodyOverTheLimitIsRefusedBeforeItIsSent() async throws {
        try await withTestServer({ $0.maxBodyBytes = 1024 }) { server in
            let c = try server.rawConnection()
            try c.send("POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\n")
            let refused = try #require(try c.response())
            #expect(refused.status == 413 && refused.headers["connection"] == "close")
        }
    }

    @Test func connectIsRefused() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send("CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: 127.0.0.1:22\r\n\r\n")
            #expect(try c.closedByServer())
        }
    }

    @Test func anH2cUpgradeIsAnsweredAsHTTP1() async throws {
        try await withTestServer { server in
            let c = try server.rawConnection()
            try c.send(
                request(
                    "GET", "/healthz",
                    headers: [
                        "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c",
                        "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA",
                    ]))
            #expect(try c.response()?.status == 200)
        }
    }

    @Test func headersOverTheLimitCloseTheConnection() async throws {
        try await withTestServer({ $0.maxHeaderBytes = 2048 }) { server in
            let fits = try server.rawConnection()
            try fits.send(request("GET", "/healthz", headers: ["X-Pad: " + String(repeating: "a", count: 1500)]))
            #expect(try fits.response()?.status == 200)
            let large = try server.rawConnection()
            try large.send(request("GET", "/healthz", headers: ["X-Pad: " + String(repeating: "a", count: 3000)]))
            #expect(try large.response() == nil)
            let many = try server.rawConnection()
            try many.send(request("GET", "/healthz", headers: (0..<400).map { "X-\($0): 1" }))
            #expect(try many.response() == nil)
        }
    }

    @Test func requestHeadersMustArriveInTime() async throws {
        try await withTestServer({ $0.httpTimeout = .seconds(1) }) { server in
            let c = try server.rawConnection()
            try c.send("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            #expect(try dripUntilClosed(c, "X-Slow: 1\r\n"))
            #expect(try server.http("GET", "/healthz").status == 200)
        }
    }

    @Test func aRequestBodyMustArriveInTime() async throws {
        try await withTestServer({ $0.httpTimeout = .seconds(1) }) { server in
            let c = try server.rawConnection()
            try c.send("POST /api/boards HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
            #expect(try dripUntilClosed(c, " "))
            #expect(try server.http("GET", "/healthz").status == 200)
        }
    }

    @Test func connectionsBeyondTheHeaderBuffersWaitForOne() async throws {
        try await withTestServer({ $0.maxHeaderBuffers = 2 }) { server in
            let hogs = try (0..<2).map { _ in try server.rawConnection() }
            for hog in hogs { try hog.send("GET /healthz HTTP/1.1\r\n") }
            let waiting = try server.rawConnection()
            try waiting.send(request("GET", "/api/boards"))
            #expect(throws: RawHTTP.Connection.TimedOut.self) { try waiting.response(timeout: .milliseconds(500)) }
            try hogs[0].send("Host: 127.0.0.1\r\n\r\n")
            #expect(try hogs[0].response()?.status == 200)
            #expect(try waiting.response()?.status == 200)
        }
    }

    @Test func aClientThatSendsMoreWhileItsAnswerIsStillGoingOutIsDropped() async throws {
        let folder = NSTemporaryDirectory() + "shuffleboard-http-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let size = 16 << 20
        try Data(repeating: 0x61, count: size).write(to: URL(fileURLWithPath: folder + "/big.txt"))
        try await withTestServer({ $0.webRoot = folder }) { server in
            let c = try server.rawConnection(receiveBuffer: 4096)
            try c.send(request("GET", "/big.txt"))
            try c.waitForData()
            // The answer cannot all be sent while this client does not read; now it sends more.
            try c.send(request("GET", "/healthz"))
            #expect(try c.waitForHangUp())
            #expect(try server.http("GET", "/healthz").status == 200)
        }
    }
}

/// Sends `piece` every 100 ms (at most 40 times) until the server closes the connection; true if it did.
private func dripUntilClosed(_ c: RawHTTP.Connection, _ piece: String) throws -> Bool {
    for _ in 0..<40 {
        if try c.closedByServer(within: .milliseconds(100)) { return true }
        do { try c.send(piece) } catch { return true }
    }
    return false
}

/// A request with `Host` and, for a body, `Content-Type` and `Content-Length`.
func request(_ method: String, _ target: String, body: String? = nil, headers: [String] = []) -> String {
    var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    for header in headers { text += header + "\r\n" }
    if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
    return text + "\r\n" + (body ?? "")
}

/// A `POST /api/boards` body for a one-item board `id`, titled with `id` capitalised.
func boardJSON(_ id: String) -> String {
    #"{"id":"\#(id)","title":"\#(id.prefix(1).uppercased() + id.dropFirst())","columns":2,"zones":[{"id":"g","items":[{"label":"a","color":"red"}]}]}"#
}
