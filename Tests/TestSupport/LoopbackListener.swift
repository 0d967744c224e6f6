internal import CCrypto
import Foundation

/// A TCP socket listening on 127.0.0.1 on a free port that never answers anything: a stand-in
/// for a peer that accepts connections and then says nothing (a stopped process, a black hole).
/// The kernel completes the TCP handshake of up to `backlog` connections without `accept`, so a
/// client's connect succeeds and its first bytes are taken. `accept` and `readHead` let a test
/// read what a client sent.
package final class LoopbackListener {
    /// The port it listens on.
    package let port: Int
    private let fd: Int32
    private var accepted: [Int32] = []

    /// Listens on 127.0.0.1 on `port`, or on a free one when it is 0.
    package init(port: Int = 0, backlog: Int32 = 16) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw RawHTTP.Failure(description: "socket failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && listen(fd, backlog) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Foundation.close(fd)
            throw RawHTTP.Failure(description: "cannot listen on 127.0.0.1")
        }
        self.fd = fd
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        for connection in accepted { Foundation.close(connection) }
        Foundation.close(fd)
    }

    /// A port nothing listens on: connecting there is refused until a test starts a server on
    /// it (a cluster node must name its address before it starts). It lies below Linux's
    /// ephemeral range (32768 up), so no connection another test opens meanwhile, and no
    /// listener on port 0, takes it.
    package static func freePort() throws -> Int {
        for _ in 0..<200 {
            let port = Int.random(in: 20_000..<32_768)
            if (try? LoopbackListener(port: port, backlog: 1)) != nil { return port }
        }
        throw RawHTTP.Failure(description: "no free port below 32768 on 127.0.0.1")
    }

    /// Accepts the next connection, waiting at most `timeout` seconds; the listener closes it.
    package func accept(timeout: Int = 5) throws -> Int32 {
        var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard Foundation.poll(&poll, 1, Int32(timeout * 1000)) == 1 else {
            throw RawHTTP.Failure(description: "no connection within \(timeout) s")
        }
        let connection = Foundation.accept(fd, nil, nil)
        guard connection >= 0 else { throw RawHTTP.Failure(description: "accept failed") }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(connection, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        accepted.append(connection)
        return connection
    }

    /// Closes a connection `accept` returned, before the client has had an answer.
    package func hangUp(_ connection: Int32) {
        guard let index = accepted.firstIndex(of: connection) else { return }
        accepted.remove(at: index)
        Foundation.close(connection)
    }

    /// Accepts the next connection and completes its WebSocket upgrade (choosing `subprotocol`),
    /// and then says nothing unless told to (`sendText`): an owner that stopped after accepting.
    package func acceptWebSocket(subprotocol: String = "shuffleboard.v1", timeout: Int = 5) throws -> Int32 {
        let connection = try accept(timeout: timeout)
        let head = try readHead(connection)
        let keyLine = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("sec-websocket-key:") }
        guard let keyLine else { throw RawHTTP.Failure(description: "no Sec-WebSocket-Key") }
        let key = keyLine.dropFirst("sec-websocket-key:".count).trimmingCharacters(in: .whitespaces)
        let response =
            "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Accept: \(Self.acceptValue(for: key))\r\nSec-WebSocket-Protocol: \(subprotocol)\r\n\r\n"
        try write(Array(response.utf8), to: connection)
        return connection
    }

    /// Sends one unmasked text frame (as a server does) of under 64 KiB.
    package func sendText(_ text: String, to connection: Int32) throws {
        let payload = Array(text.utf8)
        precondition(payload.count < 65_536)
        var frame: [UInt8] = [0x81]
        if payload.count < 126 {
            frame.append(UInt8(payload.count))
        } else {
            frame += [126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        try write(frame + payload, to: connection)
    }

    private func write(_ bytes: [UInt8], to connection: Int32) throws {
        guard send(connection, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw RawHTTP.Failure(description: "send failed")
        }
    }

    /// `Sec-WebSocket-Accept` for a key: base64 of the SHA-1 of the key and the RFC 6455 GUID.
    static func acceptValue(for key: String) -> String {
        let input = Array((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        var length: UInt32 = 20
        _ = EVP_Digest(input, input.count, &digest, &length, EVP_sha1(), nil)
        return Data(digest).base64EncodedString()
    }

    /// What a client sent on `connection` up to the end of its request head (`\r\n\r\n`), at most 16 KiB.
    package func readHead(_ connection: Int32) throws -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // Each read adds at least a byte or ends the loop, and the head is bounded.
        while bytes.count < 16_384 {
            if let end = String(decoding: bytes, as: UTF8.self).range(of: "\r\n\r\n") {
                return String(String(decoding: bytes, as: UTF8.self)[..<end.lowerBound])
            }
            let n = recv(connection, &chunk, chunk.count, 0)
            guard n > 0 else { throw RawHTTP.Failure(description: "the client sent no complete request head") }
            bytes += chunk[0..<n]
        }
        throw RawHTTP.Failure(description: "a request head over 16 KiB")
    }
}
