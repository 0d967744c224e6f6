internal import CLibWebSockets
internal import LWSSupport

/// One WebSocket connection on the transport side: its send queue and the message being
/// reassembled. Owned and touched only by the service thread; the session itself is the hub's.
final class Connection {
    let id: UInt64
    let wsi: OpaquePointer
    let deflate: Bool

    /// What waits to be written and what lws may still hold; the send bound counts all of it.
    private let output: SendQueue
    private var writeRequested = false

    /// Set when the server decided to close; the close happens from the next WRITEABLE.
    private(set) var closeRequest: (code: UInt16, reason: String)?

    /// Where the connection was opened: `/ws` or the echo endpoint. Set once, at ESTABLISHED.
    var endpoint = Endpoint.board
    /// The client's address, for log lines. Set once, at ESTABLISHED.
    var peer = "?"
    /// The client's address as the hub knows it (the forwarded-for address of a connection a
    /// trusted node forwarded, else the socket's), and what an upstream names as forwarded-for.
    var address = "?"
    /// The client's `Origin`, kept for an upstream's handshake (so the owner's `--allow-origin` holds).
    var origin: String?
    /// While the hub has the connection forwarded to a board's owner: the upstream's id. Its
    /// messages go there instead of to the hub.
    var upstream: UInt64?
    /// The close the client started (its code and reason), or the 1002 answering a bad close
    /// frame: with `closeRequest`, what the close metric and log line say.
    var closing: (code: UInt16, reason: String, byServer: Bool)?
    /// The message being reassembled from fragments (a message in one frame never lands here).
    var rx: [UInt8] = []
    /// Set once the transport decided to close the connection for what it sent (1002, 1003,
    /// 1009): lws may still deliver frames that came in the same read, and they are dropped.
    var rxRefused = false

    init(id: UInt64, wsi: OpaquePointer, deflate: Bool, maxPendingBytes: Int, maxWriteBytes: Int) {
        self.id = id
        self.wsi = wsi
        self.deflate = deflate
        output = SendQueue(limit: maxPendingBytes, writeLimit: maxWriteBytes, headroom: shuffleboard_lws_pre())
    }

    /// Every byte of output the connection holds: queued frames, and what lws may still hold of
    /// the last write.
    var pendingBytes: Int { output.heldBytes }

    /// Queues a frame; returns false (and queues nothing) when it would take the connection over
    /// its bound. That holds for every frame, on an empty queue too: the legitimate frames (the
    /// largest welcome the board limits allow) are well under the default bound, and one frame
    /// as large as the bound is the memory the bound is there to cap.
    func enqueue(_ frame: Frame) -> Bool {
        guard closeRequest == nil else { return true }
        guard output.enqueue(frame) else { return false }
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
        if !flush { output.discardQueued() }
        requestWrite()
    }

    /// The WRITEABLE callback: exactly one `lws_write`, of up to `maxFrames` frames and at most
    /// `--max-write-bytes`. Returns -1 when lws should close the connection.
    func writeable(maxFrames: Int) -> Int32 {
        writeRequested = false
        // lws calls WRITEABLE only once it has sent everything it kept of the last write.
        output.writeableBegan()
        if let request = closeRequest, output.isEmpty {
            LWS.setCloseReason(wsi, code: request.code, reason: request.reason)
            return -1
        }
        let written: Bool
        if deflate {
            // lws must frame (and compress) the message itself: one message per write. zlib reads
            // the buffer until the next WRITEABLE, so ask for one even when nothing else is queued:
            // that is when the buffer is released.
            guard let message = output.nextMessage() else { return 0 }
            written = LWS.write(wsi, message.baseAddress!, message.count, LWS_WRITE_TEXT)
            requestWrite()
        } else {
            // Pre-built frames back to back (or one fragment of a large one), in one raw write.
            guard let bytes = output.nextWrite(maxFrames: maxFrames) else { return 0 }
            written = LWS.write(wsi, bytes.baseAddress!, bytes.count, shuffleboard_write_raw())
            // lws has sent the bytes or copied them: the buffer can go if nothing else waits, and
            // when the socket took them all, lws holds none of them either.
            if lws_partial_buffered(wsi) == 0 { output.lastWriteWentOut() }
            output.releaseBufferIfDrained()
            if !output.isEmpty || closeRequest != nil { requestWrite() }
        }
        return written ? 0 : -1
    }
}
