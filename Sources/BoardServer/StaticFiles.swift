internal import BoardCore
internal import BoardHub
import Foundation

/// Serves the web client's folder, and nothing outside it.
///
/// The folder is read into memory once, when the server starts (the service thread never reads
/// the disk): every regular file below it whose path `safeRelativePath` accepts and that does not
/// lead out of it through a symlink, up to `maxFiles` files and `maxBytes` bytes in all. A file
/// changed on disk is served as it was at start; restart the server to serve the new one.
struct StaticFiles {
    /// The most files read from the folder.
    static let maxFiles = 4_096
    /// The most bytes read from the folder, in all.
    static let maxBytes = 64 << 20

    /// The folder, resolved to an absolute path without symlinks; nil serves the built-in page.
    let root: String?
    /// The files read at start, by path below the root.
    private let contents: [String: HTTPResponse]
    /// What was left out at start and why, for the log.
    let skipped: [String]

    init(root: String?) {
        guard let root else {
            self.root = nil
            contents = [
                "index.html": HTTPResponse(
                    status: 200, contentType: "text/html; charset=utf-8", body: Array(Self.builtInPage.utf8))
            ]
            skipped = []
            return
        }
        let resolved = URL(fileURLWithPath: root).resolvingSymlinksInPath().path
        self.root = resolved
        var contents: [String: HTTPResponse] = [:]
        var skipped: [String] = []
        var bytes = 0
        let files = FileManager.default.enumerator(atPath: resolved)
        while let relative = files?.nextObject() as? String {
            guard Self.safeRelativePath("/" + relative) == relative else {
                if relative.hasPrefix(".") || relative.contains("/.") { files?.skipDescendants() }
                continue
            }
            let candidate = URL(fileURLWithPath: resolved).appendingPathComponent(relative).resolvingSymlinksInPath()
                .path
            // A symlink inside the folder must not lead out of it.
            guard candidate.hasPrefix(resolved + "/") else { continue }
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), !isDirectory.boolValue
            else { continue }
            guard contents.count < Self.maxFiles else {
                skipped.append("\(relative) and the rest: more than \(Self.maxFiles) files")
                break
            }
            guard let data = FileManager.default.contents(atPath: candidate) else {
                skipped.append("\(relative): cannot be read")
                continue
            }
            guard bytes + data.count <= Self.maxBytes else {
                skipped.append("\(relative): over \(Self.maxBytes >> 20) MiB in all")
                continue
            }
            bytes += data.count
            // The SDK is for other sites' pages too: a browser imports a module from another
            // origin only with this header. Public files, no credentials: nothing to leak.
            let shared = relative.hasPrefix("sdk/") ? [HTTPResponse.Header("access-control-allow-origin:", "*")] : []
            contents[relative] = HTTPResponse(
                status: 200, contentType: Self.contentType(of: candidate), body: [UInt8](data), headers: shared)
        }
        self.contents = contents
        self.skipped = skipped
    }

    /// The response for a GET of `path` (already URL-decoded by lws).
    func response(for path: String) -> HTTPResponse {
        if let redirect = Self.boardPathRedirect(path) { return redirect }
        guard let relative = Self.safeRelativePath(path), let response = contents[relative] else {
            return .text(404, "not found\n")
        }
        return response
    }

    /// `/b/ID` (a share link's address, Hub+Links.swift) sends the browser to `/?board=ID&join=1`
    /// (`join`: the page asks the guest's name, then drops it from the address). The browser keeps
    /// the link's `#token=…` fragment across the redirect (RFC 9110 §10.2.2), and never sends it here.
    static func boardPathRedirect(_ path: String) -> HTTPResponse? {
        guard path.hasPrefix("/b/"), let id = BoardID(String(path.dropFirst(3))) else { return nil }
        var response = HTTPResponse.text(302, "see /?board=\(id.rawValue)&join=1\n")
        response.headers.append(HTTPResponse.Header("location:", "/?board=\(id.rawValue)&join=1"))
        return response
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
