internal import CLibWebSockets

/// One WebSocket frame ready for `lws_write`: its payload sits after
/// `LWS_PRE` bytes of headroom where libwebsockets writes the frame header.
///
/// `@unchecked Sendable`: built on the sender's thread and never touched there
/// again; after it crosses the inbox only the service thread uses it (lws
/// writes the header into the headroom and masks the payload in place, which is
/// also why a frame is never shared between connections).
final class OutgoingFrame: @unchecked Sendable {
    private let buffer: UnsafeMutableRawBufferPointer
    private let headroom: Int
    /// Payload length in bytes.
    let count: Int
    /// The `lws_write_protocol` value: opcode plus `LWS_WRITE_NO_FIN` when more follows.
    let mode: UInt32

    init(_ payload: some Collection<UInt8>, mode: UInt32) {
        headroom = shuffleboard_lws_pre()
        count = payload.count
        self.mode = mode
        buffer = .allocate(byteCount: headroom + max(count, 1), alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        UnsafeMutableRawBufferPointer(rebasing: buffer[headroom...]).copyBytes(from: payload)
    }

    deinit {
        buffer.deallocate()
    }

    /// The payload pointer to hand to `lws_write`; headroom precedes it.
    var payload: UnsafeMutablePointer<UInt8> {
        (buffer.baseAddress! + headroom).assumingMemoryBound(to: UInt8.self)
    }

    /// The frames of one text message, `fragmentSize` payload bytes each
    /// (one frame when `fragmentSize` covers the whole message).
    static func textMessage(_ text: String, fragmentSize: Int = .max) -> [OutgoingFrame] {
        message(Array(text.utf8), opcode: LWS_WRITE_TEXT, fragmentSize: fragmentSize)
    }

    /// The single frame of one binary message.
    static func binaryMessage(_ bytes: [UInt8]) -> [OutgoingFrame] {
        message(bytes, opcode: LWS_WRITE_BINARY, fragmentSize: .max)
    }

    private static func message(_ bytes: [UInt8], opcode: lws_write_protocol, fragmentSize: Int) -> [OutgoingFrame] {
        let size = max(fragmentSize, 1)
        var frames: [OutgoingFrame] = []
        var start = 0
        repeat {
            let end = bytes.count - start > size ? start + size : bytes.count
            let flags = lws_write_ws_flags(
                Int32(opcode.rawValue), start == 0 ? 1 : 0, end == bytes.count ? 1 : 0)
            frames.append(OutgoingFrame(bytes[start..<end], mode: UInt32(flags)))
            start = end
        } while start < bytes.count
        return frames
    }
}
