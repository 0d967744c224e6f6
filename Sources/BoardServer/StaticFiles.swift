internal import BoardHub
import Foundation

/// Serves the web client's folder, and nothing outside it.
struct StaticFiles {
    /// The folder, resolved to an absolute path without symlinks; nil serves the built-in page.
    let root: String?

    init(root: String?) {
        self.root = root.map { URL(fileURLWithPath: $0).resolvingSymlinksInPath().path }
    }

    /// The response for a GET of `path` (already URL-decoded by lws).
    func response(for path: String) -> HTTPResponse {
        guard let relative = Self.safeRelativePath(path) else { return .text(404, "not found\n") }
        guard let root else {
            if relative == "index.html" {
                return HTTPResponse(
                    status: 200, contentType: "text/html; charset=utf-8", body: Array(Self.builtInPage.utf8))
            }
            return .text(404, "not found\n")
        }
        let candidate = URL(fileURLWithPath: root).appendingPathComponent(relative).resolvingSymlinksInPath().path
        // A symlink inside the folder must not lead out of it.
        guard candidate.hasPrefix(root + "/") else { return .text(404, "not found\n") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue,
            let data = FileManager.default.contents(atPath: candidate)
        else { return .text(404, "not found\n") }
        return HTTPResponse(status: 200, contentType: Self.contentType(of: candidate), body: [UInt8](data))
    }

    /// The path below the web root that `path` names, or nil for anything suspicious: `..` or `.`
    /// segments, hidden files, backslashes, percent signs left after decoding, control characters.
    static func safeRelativePath(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return nil }
        if path == "/" { return "index.html" }
        var segments: [Substring] = []
        for segment in path.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            if segment.isEmpty || segment.hasPrefix(".") { return nil }
            if segment.contains(where: {
                $0 == "\\" || $0 == "%" || $0 == ":" || $0.asciiValue.map { $0 < 0x20 || $0 == 0x7F } == true
            }) {
                return nil
            }
            segments.append(segment)
        }
        return segments.joined(separator: "/")
    }

    static func contentType(of path: String) -> String {
        switch (path as NSString).pathExtension.lowercased() {
        case "html": "text/html; charset=utf-8"
        case "js", "mjs": "text/javascript; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "json": "application/json"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        case "ico": "image/x-icon"
        case "txt", "md": "text/plain; charset=utf-8"
        default: "application/octet-stream"
        }
    }

    static let builtInPage = """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>shuffleboard</title></head>
        <body>
        <h1>shuffleboard</h1>
        <p>A real-time collaborative board server. This server was started without its web client
        (<code>--web DIR</code>), so here is how to connect by hand:</p>
        <pre>websocat -H 'Sec-WebSocket-Protocol: shuffleboard.v1' ws://HOST:PORT/ws
        {"type":"hello","board":"demo","name":"Ada"}</pre>
        <p>The wire protocol is described in docs/protocol.md. Health: <a href="/healthz">/healthz</a>.</p>
        </body></html>

        """
}
