import Foundation

/// A WebSocket client on a plain POSIX socket that sends any frame as given: unmasked, with
/// reserved opcodes, odd close payloads, several frames in one TCP write. (The lws client always
/// frames correctly, so it cannot show how the server treats a client that does not.)
package final class RawWebSocket {
    /// One frame from the server.
    package struct Frame: Sendable, CustomStringConvertible {
        /// The FIN bit.
        package var fin: Bool
        /// The opcode (1 text, 2 binary, 8 close, 9 ping, 10 pong).
        package var opcode: UInt8
        /// The payload, unmasked.
        package var payload: [UInt8]

        /// The payload as UTF-8 text.
        package var text: String { String(decoding: payload, as: UTF8.self) }
        /// For a close frame: its status code, or nil when it carries none.
        package var closeCode: Int? {
            guard opcode == 8, payload.count >= 2 else { return nil }
            return Int(payload[0]) << 8 | Int(payload[1])
        }
        /// Opcode and payload, for failure messages.
        package var description: String { "opcode \(opcode), \(payload.count) bytes: \(text.prefix(200))" }
    }

    /// Why talking to the server failed.
    package struct Failure: Error, CustomStringConvertible {
        /// What happened.
        package var description: String
    }

    private let fd: Int32
    private var buffered: [UInt8] = []
    /// Set once a read found the connection reset (a TCP RST, not an orderly end).
    package private(set) var wasReset = false
    /// Set once a send failed (the server's socket is gone).
    package private(set) var sendFailed = false
    private var generator = SplitMix64(seed: 0x5eed)

    /// Connects to 127.0.0.1:`port` and completes the opening handshake on `path`, with
    /// `headers` (`name: value` lines) added. Every read gives up after `timeout` seconds.
    package init(port: Int, path: String = "/ws", headers: [String] = [], timeout: Int = 5) throws {
        fd = try connectLoopback(port: port, timeout: timeout)
        // When this throws, deinit runs (every stored property is set) and closes the socket.
        // Closing it here as well closed it twice: in between, another test's thread could be
        // given the same number for a new socket, and the second close took that one away.
        try handshake(port: port, path: path, headers: headers)
    }

    deinit { close(fd) }

    private func handshake(port: Int, path: String, headers: [String]) throws {
        let request =
            "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
            + headers.map { $0 + "\r\n" }.joined() + "\r\n"
        sendRaw(Array(request.utf8))
        let separator: [UInt8] = [13, 10, 13, 10]
        // The response head is short; a bounded number of reads finds its end.
        for _ in 0..<64 {
            if let end = find(separator, in: buffered) {
                let head = String(decoding: buffered[..<end], as: UTF8.self)
                buffered.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    throw Failure(description: "the upgrade was refused: \(head.prefix(80))")
                }
                return
            }
            guard try fill() else { break }
        }
        throw Failure(description: "no handshake response")
    }

    // MARK: Sending

    /// One frame's bytes: FIN (or not), opcode, RSV bits, masked with a random key (or not).
    package func frame(
        opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0
    ) -> [UInt8] {
        var bytes: [UInt8] = [(fin ? 0x80 : 0) | (rsv & 0x7) << 4 | (opcode & 0xF)]
        let maskBit: UInt8 = masked ? 0x80 : 0
        let n = payload.count
        if n < 126 {
            bytes.append(maskBit | UInt8(n))
        } else if n <= 0xFFFF {
            bytes += [maskBit | 126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            bytes.append(maskBit | 127)
            for shift in stride(from: 56, through: 0, by: -8) {
                bytes.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF))
            }
        }
        guard masked else { return bytes + payload }
        let key = withUnsafeBytes(of: UInt32(truncatingIfNeeded: generator.next())) { Array($0) }
        bytes += key
        for (i, byte) in payload.enumerated() { bytes.append(byte ^ key[i & 3]) }
        return bytes
    }

    /// Sends one frame (see `frame`).
    package func send(opcode: UInt8, _ payload: [UInt8], fin: Bool = true, masked: Bool = true, rsv: UInt8 = 0) {
        sendRaw(frame(opcode: opcode, payload, fin: fin, masked: masked, rsv: rsv))
    }

    /// Sends one masked text frame.
    package func send(_ text: String) { send(opcode: 1, Array(text.utf8)) }

    /// Writes `bytes` as they are, in as few TCP writes as the socket allows.
    package func sendRaw(_ bytes: [UInt8]) {
        var offset = 0
        // Each send either makes progress or fails (the send timeout bounds a stuck one).
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes {
                Foundation.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard n > 0 else {
                sendFailed = true
                return
            }
            offset += n
        }
    }

    // MARK: Receiving

    /// The next frame, or nil once the server has closed the TCP connection.
    package func next() throws -> Frame? {
        // Every round either parses a frame, reads more, or ends; a frame is at most 16 MiB + 14
        // bytes, so the loop is bounded by the reads that takes.
        while true {
            if let frame = parse() { return frame }
            guard try fill() else { return nil }
        }
    }

    /// The next message with its fragments joined (the server splits long messages into a frame
    /// and continuations), or a control frame; nil once the server has closed the TCP connection.
    package func nextMessage() throws -> Frame? {
        guard var message = try next() else { return nil }
        while !message.fin && message.opcode < 8 {
            guard let more = try next() else { return nil }
            if more.opcode >= 8 { continue }  // Control frames may come between fragments.
            message.payload += more.payload
            message.fin = more.fin
        }
        return message
    }

    /// Reads until the server's close frame (returned) or the end of the connection (nil),
    /// collecting every data frame before it into `frames`.
    package func readUntilClose(_ frames: inout [Frame], limit: Int = 10_000) throws -> Frame? {
        for _ in 0..<limit {
            guard let frame = try next() else { return nil }
            if frame.opcode == 8 { return frame }
            frames.append(frame)
        }
        throw Failure(description: "no close within \(limit) frames")
    }

    /// Reads until the server's close frame (returned) or the end of the connection (nil),
    /// ignoring what comes before it.
    package func readUntilClose() throws -> Frame? {
        var ignored: [Frame] = []
        return try readUntilClose(&ignored)
    }

    /// True when the server closed the TCP connection with nothing more to read.
    package func readsEnd() throws -> Bool { try next() == nil }

    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = recv(fd, &chunk, chunk.count, 0)
        if n < 0 {
            if errno == EAGAIN || errno == EWOULDBLOCK {
                throw Failure(description: "timed out waiting for the server")
            }
            if errno == ECONNRESET {
                wasReset = true
                return false
            }
            throw Failure(description: "recv failed: errno \(errno)")
        }
        if n == 0 { return false }
        buffered += chunk[0..<n]
        return true
    }

    private func parse() -> Frame? {
        guard buffered.count >= 2 else { return nil }
        var length = Int(buffered[1] & 0x7F)
        var header = 2
        if length == 126 {
            guard buffered.count >= 4 else { return nil }
            length = Int(buffered[2]) << 8 | Int(buffered[3])
            header = 4
        } else if length == 127 {
            guard buffered.count >= 10 else { return nil }
            length = buffered[2..<10].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        let masked = buffered[1] & 0x80 != 0
        let start = header + (masked ? 4 : 0)
        guard buffered.count >= start + length else { return nil }
        var payload = Array(buffered[start..<start + length])
        if masked {
            let key = Array(buffered[header..<header + 4])
            for i in payload.indices { payload[i] ^= key[i & 3] }
        }
        let frame = Frame(fin: buffered[0] & 0x80 != 0, opcode: buffered[0] & 0x0F, payload: payload)
        buffered.removeFirst(start + length)
        return frame
    }

    private func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }
}
