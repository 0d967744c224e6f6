internal import BoardCore

/// One server message, encoded once and framed once, shared by every recipient's queue.
///
/// `bytes` is a complete unmasked WebSocket frame (header and payload): a text frame, or a binary
/// one for the echo endpoint, so a batch of frames can go out in one raw write. Connections that negotiated permessage-deflate send `payload`
/// through lws instead, which compresses and frames it.
final class Frame: Sendable {
    let bytes: [UInt8]
    let headerLength: Int

    init(payload: [UInt8], binary: Bool = false) {
        var header: [UInt8] = [binary ? 0x82 : 0x81]  // FIN, binary or text
        let n = payload.count
        if n < 126 {
            header.append(UInt8(n))
        } else if n <= 0xFFFF {
            header += [126, UInt8(n >> 8), UInt8(n & 0xFF)]
        } else {
            header.append(127)
            for shift in stride(from: 56, through: 0, by: -8) {
                header.append(UInt8((UInt64(n) >> UInt64(shift)) & 0xFF))
            }
        }
        headerLength = header.count
        bytes = header + payload
    }

    convenience init(_ message: ServerMessage) {
        self.init(payload: message.encoded())
    }

    var count: Int { bytes.count }
    var payload: ArraySlice<UInt8> { bytes[headerLength...] }
}
