internal import BoardCore

/// One server message, encoded once and framed once, shared by every recipient's queue.
///
/// `bytes` is a complete unmasked WebSocket frame (header and payload): a text frame, or a binary
/// one for the echo endpoint, so a batch of frames can go out in one raw write. Connections that negotiated permessage-deflate send `payload`
/// through lws instead, which compresses and frames it.
final class Frame: Sendable {
    let bytes: [UInt8]
    let headerLength: Int

    /// The opcode of a text frame: the first (or only) frame of a message.
    static let text: UInt8 = 0x1
    /// The opcode of a binary frame (the echo endpoint only).
    static let binary: UInt8 = 0x2
    /// The opcode of every later fragment of a message.
    static let continuation: UInt8 = 0x0
    /// The longest header a server frame has: two bytes and a 64-bit length.
    static let maximumHeaderLength = 10

    /// The opcode of the message: `text`, or `binary` on the echo endpoint.
    let opcode: UInt8

    init(payload: [UInt8], binary: Bool = false, hand: String? = nil, isHover: Bool = false) {
        opcode = binary ? Self.binary : Self.text
        self.hand = hand
        self.isHover = isHover
        var header = [UInt8](repeating: 0, count: Self.maximumHeaderLength)
        headerLength = header.withUnsafeMutableBytes { [opcode] in
            Self.writeHeader(into: $0, opcode: opcode, final: true, length: payload.count)
        }
        bytes = header[..<headerLength] + payload
    }

    /// A frame from its bytes (a ring entry's, for a reader leaving the ring).
    init(bytes: [UInt8], headerLength: Int, opcode: UInt8, hand: String?, isHover: Bool) {
        self.bytes = bytes
        self.headerLength = headerLength
        self.opcode = opcode
        self.hand = hand
        self.isHover = isHover
    }

    /// The hand a drag message is about (its user), for coalescing a slow reader's hovers.
    let hand: String?
    /// True for a hover: an older unsent hover of the same hand may be dropped for it.
    let isHover: Bool

    convenience init(_ message: ServerMessage) {
        switch message {
        case .hover(_, _, _, _, let by, _, _): self.init(payload: message.encoded(), hand: by.rawValue, isHover: true)
        case .dragStart(_, let by, _, _, _), .drop(_, let by, _, _):
            self.init(payload: message.encoded(), hand: by.rawValue, isHover: false)
        default: self.init(payload: message.encoded())
        }
    }

    var count: Int { bytes.count }
    var payload: ArraySlice<UInt8> { bytes[headerLength...] }
    var payloadCount: Int { bytes.count - headerLength }

    /// The length of the header of a frame carrying `length` payload bytes.
    static func headerLength(for length: Int) -> Int {
        length < 126 ? 2 : length <= 0xFFFF ? 4 : 10
    }

    /// Writes an unmasked frame header at the start of `buffer` (which has room for
    /// `headerLength(for: length)` bytes) and returns its length.
    static func writeHeader(
        into buffer: UnsafeMutableRawBufferPointer, opcode: UInt8, final: Bool, length: Int
    ) -> Int {
        buffer[0] = (final ? 0x80 : 0) | opcode
        switch headerLength(for: length) {
        case 2:
            buffer[1] = UInt8(length)
        case 4:
            buffer[1] = 126
            buffer[2] = UInt8(length >> 8)
            buffer[3] = UInt8(length & 0xFF)
        default:
            buffer[1] = 127
            for i in 0..<8 { buffer[2 + i] = UInt8((UInt64(length) >> UInt64(56 - 8 * i)) & 0xFF) }
        }
        return headerLength(for: length)
    }
}
