internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// Requests lws 4.1.6 never hands over as HTTP. It does not parse a method it does not know
/// (TRACE, PROPFIND, FOO …): by itself it answers those with an `HTTP/1.0 403` HTML page. It turns
/// CONNECT into a raw socket. With `LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG` (set
/// in `Server`), both come here as a raw socket (RAW_ADOPT, then RAW_RX with the bytes lws read),
/// and get what docs/openapi.yaml says of every method a path does not take: 405 JSON with
/// `allow` (404 for no route of the API), as HTTP/1.1, then the connection is closed. (The same
/// option makes lws hand a plaintext connection to a `--tls-cert` port over as a raw socket too,
/// with no bytes; lws 4.1.6 then resets it, as it closed it before. Should one ever come here
/// with a request lws parses, it is told to use TLS.)
enum UnknownMethods {
    /// RAW_ADOPT: the connection has the HTTP exchange's time to send its request line.
    static func adopted(_ wsi: OpaquePointer, timeout: Int) {
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, Int32(max(1, timeout)))
    }

    /// RAW_RX: answers the request at the start of `bytes` and says to close (-1); 0 to wait
    /// for bytes (a plaintext connection to a TLS port is handed over before it sent any).
    static func received(_ wsi: OpaquePointer, _ bytes: UnsafeRawBufferPointer) -> Int32 {
        guard !bytes.isEmpty else { return 0 }
        let response = answer(toRequestAt: bytes)
        let head =
            "HTTP/1.1 \(response.status) \(reason(response.status))\r\ncontent-type: \(response.contentType)\r\n"
            + "content-length: \(response.body.count)\r\nconnection: close\r\n"
            + response.headers.map { "\($0.name) \($0.value)\r\n" }.joined()
            + "x-content-type-options: nosniff\r\ncache-control: no-cache\r\n\r\n"
        let pre = shuffleboard_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre) + Array(head.utf8) + response.body
        let length = buffer.count - pre
        buffer.withUnsafeMutableBytes { raw in
            // A few hundred bytes to a socket that has sent only its request: one write. If the
            // socket took less, lws keeps the rest; the close that follows drops it.
            _ = LWS.write(wsi, raw.baseAddress! + pre, length, shuffleboard_write_raw())
        }
        return -1
    }

    /// The answer to the request whose first line starts `bytes`.
    static func answer(toRequestAt bytes: UnsafeRawBufferPointer) -> HTTPResponse {
        let line = bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }.prefix(8192)
        let words = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: true)
        let method = words.first.map { String(decoding: $0, as: UTF8.self) } ?? ""
        if ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].contains(method) {
            // A method lws parses comes here only as plaintext to a TLS port (see above).
            return .error(400, "bad_request", "this port speaks TLS: use https:// (or wss://)")
        }
        let target = words.count > 1 ? String(decoding: words[1], as: UTF8.self) : "/"
        guard let allow = AllowedMethods.of(path(of: target)) else {
            return .error(404, "not_found", "no such API route")
        }
        return .methodNotAllowed(allow)
    }

    /// The path of a request target: origin form (`/a?b`), absolute form (`http://h/a?b`), or
    /// authority form (CONNECT's `host:port`, which names no path: `/`).
    static func path(of target: String) -> String {
        var rest = Substring(target)
        if !rest.hasPrefix("/") {
            guard let scheme = rest.range(of: "://") else { return "/" }
            rest = rest[scheme.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { return "/" }
            rest = rest[slash...]
        }
        return String(rest.prefix { $0 != "?" && $0 != "#" })
    }

    private static func reason(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 404: "Not Found"
        default: "Method Not Allowed"
        }
    }
}
