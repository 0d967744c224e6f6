import Foundation

/// A minimal HTTP/1.1 client on a POSIX socket that sends the request target exactly as given
/// (URL libraries normalise `..` away, which would hide path-traversal bugs).
package enum RawHTTP {
    /// A response.
    package struct Response: Sendable {
        /// The status code.
        package var status: Int
        /// Header names lowercased.
        package var headers: [String: String]
        /// The body as text.
        package var body: String
    }

    /// Why a request failed.
    package struct Failure: Error, CustomStringConvertible {
        /// What happened.
        package var description: String
    }

    /// Sends one request with `Connection: close` and reads the whole response (5 s timeout).
    package static func request(port: Int, method: String, target: String, body: String? = nil) throws -> Response {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket failed") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect to port \(port) failed") }
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        if let body { text += "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n" }
        text += "\r\n" + (body ?? "")
        let bytes = Array(text.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw Failure(description: "send failed") }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { break }
            received += buffer[0..<n]
            if let response = parse(received), response.complete { return response.response }
        }
        guard let response = parse(received) else {
            throw Failure(description: "no HTTP response for \(method) \(target)")
        }
        return response.response
    }

    private static func parse(_ bytes: [UInt8]) -> (response: Response, complete: Bool)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = head.first, statusLine.split(separator: " ").count >= 2,
            let status = Int(statusLine.split(separator: " ")[1])
        else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let body = Array(bytes[(end + 4)...])
        let complete = headers["content-length"].flatMap(Int.init).map { body.count >= $0 } ?? false
        return (Response(status: status, headers: headers, body: String(decoding: body, as: UTF8.self)), complete)
    }
}
