import BoardCore
import Foundation
import TestSupport
import Testing

@Suite struct HTTPTests {
    @Test func healthAndBoardSnapshot() async throws {
        try await withTestServer { server in
            #expect(try server.http("GET", "/healthz").status == 200)
            #expect(try server.http("GET", "/api/boards/never-made").status == 404)
            _ = try await server.join("made", as: "Ada")
            let response = try server.http("GET", "/api/boards/made")
            #expect(response.status == 200 && response.headers["content-type"] == "application/json")
            let json = try JSON.parse(response.body)
            #expect(json["seq"]?.intValue == 0)
            #expect(json["board"]?["columns"]?.intValue == 3)
            #expect(json["board"]?["items"]?.arrayValue?.count == 12)
            #expect(json["board"]?["zones"]?.arrayValue?.map { $0["id"]?.stringValue } == ["grid", "tray"])
        }
    }

    @Test func indexIsServedWithACSP() async throws {
        try await withTestServer { server in
            let index = try server.http("GET", "/")
            #expect(index.status == 200 && index.body.contains("shuffleboard"))
            #expect(index.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        }
    }

    @Test(arguments: [
        "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/web/../../etc/passwd", "/.git/config", "/..\\..\\etc\\passwd", "/%252e%252e/etc/passwd", "//etc/passwd",
    ])
    func nothingOutsideTheWebFolderIsServed(_ target: String) async throws {
        try await withTestServer({ $0.webRoot = webRoot() }) { server in
            let response = try server.http("GET", target)
            #expect(response.status != 200 || !response.body.contains("root:"), "\(target) leaked")
            #expect(!response.body.contains("root:x:0:0"))
        }
    }

    @Test func headIsAnsweredWhereverGetIs() async throws {
        try await withTestServer({ $0.webRoot = webRoot() }) { server in
            _ = try await server.join("made", as: "Ada")
            for target in [
                "/healthz", "/api/boards", "/api/boards/made", "/api/boards/made/ops?since=0", "/api/boards/never-made",
                "/", "/index.html", "/app.js", "/no-such-file.js",
            ] {
                let c = try server.rawConnection()
                try c.send(request("GET", target))
                let get = try #require(try c.response())
                try c.send(request("HEAD", target))
                let head = try #require(try c.response(head: true))
                #expect(head.status == get.status, "HEAD \(target)")
                #expect(head.headers["content-length"] == get.headers["content-length"], "HEAD \(target)")
                #expect(head.headers["content-type"] == get.headers["content-type"], "HEAD \(target)")
                // No body came: the next answer on the connection starts where the head ended.
                try c.send(request("GET", "/healthz"))
                #expect(try c.response()?.status == 200, "after HEAD \(target)")
            }
        }
    }

    @Test func theWebFolderIsReadAtStartAndNotAgain() async throws {
        let folder = NSTemporaryDirectory() + "shuffleboard-web-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder + "/js", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try "one".write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
        try "let a = 1".write(toFile: folder + "/js/a.js", atomically: true, encoding: .utf8)
        try "secret".write(toFile: folder + "/.hidden", atomically: true, encoding: .utf8)
        try await withTestServer({ $0.webRoot = folder }) { server in
            try "two".write(toFile: folder + "/index.html", atomically: true, encoding: .utf8)
            try "late".write(toFile: folder + "/late.txt", atomically: true, encoding: .utf8)
            #expect(try server.http("GET", "/index.html").body == "one")
            let script = try server.http("GET", "/js/a.js")
            #expect(script.body == "let a = 1" && script.headers["content-type"]?.hasPrefix("text/javascript") == true)
            #expect(try server.http("GET", "/late.txt").status == 404)
            #expect(try server.http("GET", "/.hidden").status == 404)
        }
    }

    @Test func filesFromTheWebFolderAreServed() async throws {
        try await withTestServer({ $0.webRoot = webRoot() }) { server in
            let index = try server.http("GET", "/index.html")
            #expect(index.status == 200 && index.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(try server.http("GET", "/no-such-file.js").status == 404)
        }
    }
}

/// The repository's web folder.
func webRoot() -> String {
    var path = #filePath
    for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) }
    return path + "/web"
}
