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
        let fd = try connectLoopback(port: port)
        defer { close(fd) }
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

    /// One TCP connection to the server that sends bytes exactly as given and reads responses one
    /// at a time, for pipelining, keep-alive and framing tests. Every read has a deadline.
    package final class Connection {
        private let fd: Int32
        private var buffer: [UInt8] = []
        private var ended = false

        /// Connects to 127.0.0.1:`port`; `receiveBuffer` shrinks the socket's receive buffer (set
        /// before connecting, so the TCP window is small too).
        package init(port: Int, receiveBuffer: Int? = nil) throws {
            fd = try connectLoopback(port: port, timeout: 0, receiveBuffer: receiveBuffer)
        }

        deinit { Foundation.close(fd) }

        /// Sends all of `text` (fails if the server has closed the connection).
        package func send(_ text: String) throws { try send(Array(text.utf8)) }

        /// Sends all of `bytes`.
        package func send(_ bytes: [UInt8]) throws {
            var sent = 0
            while sent < bytes.count {
                let n = bytes[sent...].withUnsafeBytes {
                    Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard n > 0 else { throw Failure(description: "send failed: errno \(errno)") }
                sent += n
            }
        }

        /// The next response; nil when the server closed the connection first. `head` says the
        /// request was HEAD (no body follows, whatever `content-length` says).
        package func response(head: Bool = false, timeout: Duration = .seconds(5)) throws -> Response? {
            let deadline = ContinuousClock.now + timeout
            while true {
                if let (response, length) = RawHTTP.parse(buffer, head: head) {
                    buffer.removeFirst(length)
                    return response
                }
                if ended { return nil }
                try fill(until: deadline)
            }
        }

        /// Reads until the server closes the connection: true if it did before `timeout`, false if
        /// it was still open then. What arrived meanwhile is dropped.
        package func closedByServer(within timeout: Duration = .seconds(5)) throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while !ended {
                buffer.removeAll()
                do { try fill(until: deadline) } catch is TimedOut { return false }
            }
            return true
        }

        /// Waits until something has arrived from the server, without reading it.
        package func waitForData(timeout: Duration = .seconds(5)) throws {
            guard try wait(for: Int16(POLLIN), timeout: timeout) else { throw TimedOut() }
        }

        /// Waits, without reading, until the server has closed or reset the connection; false if
        /// it had not within `timeout`.
        package func waitForHangUp(timeout: Duration = .seconds(10)) throws -> Bool {
            try wait(for: Int16(0x2000) /* POLLRDHUP */, timeout: timeout)
        }

        private func wait(for events: Int16, timeout: Duration) throws -> Bool {
            let deadline = ContinuousClock.now + timeout
            while true {
                let left = deadline - ContinuousClock.now
                guard left > .zero else { return false }
                var poller = pollfd(fd: fd, events: events, revents: 0)
                let milliseconds = Int32(
                    left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
                if poll(&poller, 1, max(1, milliseconds)) > 0 { return true }  // Hang-ups are always reported.
            }
        }

        /// The read timed out.
        package struct TimedOut: Error, CustomStringConvertible {
            /// What happened.
            package var description: String { "no data from the server in time" }
        }

        private func fill(until deadline: ContinuousClock.Instant) throws {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { throw TimedOut() }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(
                left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            guard poll(&poller, 1, max(1, milliseconds)) > 0 else { throw TimedOut() }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 {
                ended = true  // Closed (or reset) by the server.
            } else {
                buffer += chunk[..<n]
            }
        }
    }

    /// A complete response at the start of `bytes`, and how many bytes it takes. A response to
    /// HEAD has no body, whatever its `content-length` says.
    static func parse(_ bytes: [UInt8], head: Bool) -> (Response, Int)? {
        guard var (response, _) = parse(bytes) else { return nil }
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            return nil
        }
        let length = head ? 0 : (response.headers["content-length"].flatMap(Int.init) ?? 0)
        guard bytes.count >= end + 4 + length else { return nil }
        response.body = String(decoding: bytes[(end + 4)..<(end + 4 + length)], as: UTF8.self)
        return (response, end + 4 + length)
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
