internal import Basics
internal import CLibWebSockets
internal import LWSSupport

/// One WebSocket connection on the transport side: its send queue and the message being
/// reassembled. Owned and touched only by the service thread; the session itself is the hub's.
final class Connection {
    let id: UInt64
    let wsi: OpaquePointer
    let deflate: Bool

    /// Frames waiting to be written, oldest first.
    private var queue = FIFO<Frame>()
    private(set) var pendingBytes = 0
    private var writeRequested = false

    /// Set when the server decided to close; the close happens from the next WRITEABLE.
    private(set) var closeRequest: (code: UInt16, reason: String)?

    /// Where the connection was opened: `/ws` or the echo endpoint. Set once, at ESTABLISHED.
    var endpoint = Endpoint.board
    /// The message being reassembled from fragments (a message in one frame never lands here).
    var rx: [UInt8] = []
    /// Set once the transport decided to close the connection for what it sent (1002, 1003,
    /// 1009): lws may still deliver frames that came in the same read, and they are dropped.
    var rxRefused = false

    /// Holds the bytes of the last write: with permessage-deflate, zlib may still read them until
    /// the next WRITEABLE, so the buffer lives as long as the connection and is only reused then.
    private var sendBuffer: UnsafeMutableRawBufferPointer

    init(id: UInt64, wsi: OpaquePointer, deflate: Bool) {
        self.id = id
        self.wsi = wsi
        self.deflate = deflate
        sendBuffer = .allocate(byteCount: 16 * 1024, alignment: 16)
    }

    deinit { sendBuffer.deallocate() }

    /// Queues a frame; returns false when the connection is over its pending-bytes bound.
    /// A single frame larger than the bound still goes out on an empty queue (a long resume
    /// welcome, say): the bound is there to catch clients that stop reading, not big messages.
    func enqueue(_ frame: Frame, limit: Int) -> Bool {
        guard closeRequest == nil else { return true }
        if pendingBytes > 0 && pendingBytes + frame.count > limit { return false }
        queue.append(frame)
        pendingBytes += frame.count
        requestWrite()
        return true
    }

    /// Asks lws for a WRITEABLE callback unless one is already on its way.
    func requestWrite() {
        guard !writeRequested else { return }
        writeRequested = true
        lws_callback_on_writable(wsi)
    }

    /// Closes with `code` from a WRITEABLE: after what is queued when `flush` is set (so a final
    /// error reaches the client), at once otherwise (a client over its limit gets nothing more).
    func close(code: UInt16, reason: String, flush: Bool = false) {
        guard closeRequest == nil else { return }
        closeRequest = (code, reason)
        if !flush {
            queue.removeAll()
            pendingBytes = 0
        }
        requestWrite()
    }

    /// The WRITEABLE callback: exactly one `lws_write`, of every pending frame up to `maxFrames`.
    /// Returns -1 when lws should close the connection.
    func writeable(maxFrames: Int) -> Int32 {
        writeRequested = false
        if let request = closeRequest, queue.isEmpty {
            LWS.setCloseReason(wsi, code: request.code, reason: request.reason)
            return -1
        }
        guard !queue.isEmpty else { return 0 }
        let pre = shuffleboard_lws_pre()
        let written: Bool
        if deflate {
            // lws must frame (and compress) the message itself: one message per write.
            let frame = queue.popFirst()!
            let payload = frame.payload
            reserve(pre + payload.count)
            copy(payload, to: pre)
            written = LWS.write(wsi, sendBuffer.baseAddress! + pre, payload.count, LWS_WRITE_TEXT)
            pendingBytes -= frame.count
        } else {
            // Pre-built frames back to back, in one raw write.
            let batch = queue.prefix(maxFrames)
            let total = batch.reduce(0) { $0 + $1.count }
            reserve(pre + total)
            var offset = pre
            for frame in batch {
                copy(frame.bytes[...], to: offset)
                offset += frame.count
            }
            queue.removeFirst(batch.count)
            pendingBytes -= total
            written = LWS.write(wsi, sendBuffer.baseAddress! + pre, total, shuffleboard_write_raw())
        }
        if !queue.isEmpty || closeRequest != nil { requestWrite() }
        return written ? 0 : -1
    }

    private func reserve(_ count: Int) {
        guard sendBuffer.count < count else { return }
        let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, sendBuffer.count * 2), alignment: 16)
        sendBuffer.deallocate()
        sendBuffer = bigger
    }

    private func copy(_ bytes: ArraySlice<UInt8>, to offset: Int) {
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: sendBuffer[offset..<offset + source.count]).copyMemory(from: source)
        }
    }
}
