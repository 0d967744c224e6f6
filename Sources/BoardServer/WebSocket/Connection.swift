internal import BoardCore
internal import CLibWebSockets
internal import LWSSupport

/// One WebSocket connection on the transport side: its output (it is its own `SendQueue`, one
/// object per connection) and the message being reassembled. Owned and touched only by the
/// service thread; the session itself is the hub's.
final class Connection: SendQueue {
    let wsi: OpaquePointer
    /// The board this connection reads broadcasts of (set by `Feed`).
    var feed: Feed?
    /// The client's address as the hub knows it (the forwarded-for address of a connection a
    /// trusted node forwarded, else the socket's), and what an upstream names as forwarded-for.
    var address = "?"
    /// What a cluster node keeps for forwarding; nil until there is something (on a single node,
    /// always), so that an idle connection does not carry it.
    private var forwarding: Forwarding?
    /// The message being reassembled from fragments (a message in one frame never lands here).
    var rx: [UInt8] = []
    /// The client's address, for log lines. Set once, at ESTABLISHED.
    var peer = "?"
    /// How it is closing; nil until then (most connections never need the room).
    private var closeState: CloseState?
    let deflate: Bool
    private var writeRequested = false
    /// Set while lws reads nothing more from the client (`pauseReadingUntilWritten`).
    private var readingPaused = false
    /// Counted in `feed.behind`: on the ring with some of it not yet written (kept by `Feed`).
    var behind = false
    /// Set once the transport decided to close the connection for what it sent (1002, 1003,
    /// 1009): lws may still deliver frames that came in the same read, and they are dropped.
    var rxRefused = false
    /// Where the connection was opened: `/ws` or the echo endpoint. Set once, at ESTABLISHED.
    var endpoint = Endpoint.board
    /// When it was last valid and whether it was pinged since (Keepalive.swift).
    var keepalive: Keepalive.State

    private final class Forwarding {
        var origin: String?
        var upstream: Relay.Route?
    }

    /// The client's `Origin`, kept for an upstream's handshake (so the owner's `--allow-origin`
    /// holds). Only a node that may forward keeps it.
    var origin: String? {
        get { forwarding?.origin }
        set {
            if forwarding == nil && newValue != nil { forwarding = Forwarding() }
            forwarding?.origin = newValue
        }
    }

    /// While the hub has the connection forwarded to a board's owner: its upstream, or the node
    /// link it shares. Its messages go there instead of to the hub.
    var upstream: Relay.Route? {
        get { forwarding?.upstream }
        set {
            if forwarding == nil && newValue != nil { forwarding = Forwarding() }
            forwarding?.upstream = newValue
        }
    }

    /// How a connection is closing.
    private final class CloseState {
        var request: (code: UInt16, reason: String)?
        var closing: (code: UInt16, reason: String, byServer: Bool)?
        /// The close was handed to lws (`LWS.closeFromWriteable`).
        var handedOver = false
    }

    /// Set when the server decided to close; the close happens from the next WRITEABLE.
    var closeRequest: (code: UInt16, reason: String)? { closeState?.request }

    /// The close the client started (its code and reason), or the 1002 answering a bad close
    /// frame: with `closeRequest`, what the close metric and log line say.
    var closing: (code: UInt16, reason: String, byServer: Bool)? {
        get { closeState?.closing }
        set {
            if closeState == nil { closeState = CloseState() }
            closeState!.closing = newValue
        }
    }

    init(id: UInt64, wsi: OpaquePointer, deflate: Bool, maxPendingBytes: Int, maxWriteBytes: Int, now: Instant) {
        self.wsi = wsi
        self.deflate = deflate
        keepalive = Keepalive.State(validSince: now)
        super.init(limit: maxPendingBytes, writeLimit: maxWriteBytes, headroom: shuffleboard_lws_pre(), id: id)
    }

    /// Queues a frame for this connection alone, in order with the broadcasts it reads; returns
    /// false (and queues nothing) when it would take the connection over its bound. That holds for
    /// every frame, on an empty queue too: the legitimate frames (the largest welcome the board
    /// limits allow) are well under the default bound, and one frame as large as the bound is the
    /// memory the bound is there to cap.
    override func enqueue(_ frame: Frame) -> Bool {
        guard closeState?.request == nil else { return true }
        guard super.enqueue(frame) else { return false }
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
    /// Either way it reads no broadcast after this.
    func close(code: UInt16, reason: String, flush: Bool = false) {
        guard closeRequest == nil else { return }
        if closeState == nil { closeState = CloseState() }
        closeState!.request = (code, reason)
        if let feed {
            feed.remove(self, keepingPending: flush)
        } else if !flush {
            discardQueued()
        }
        requestWrite()
    }

    /// Asks for a ping from the next WRITEABLE (Keepalive.swift).
    func ping() {
        keepalive.pinged = true
        keepalive.pingDue = true
        requestWrite()
    }

    /// Hangs up at once, without a close frame: the client answered no ping (Keepalive.swift).
    func hangUp() {
        closing = (1006, "no answer to a ping", true)
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    /// The connection is gone: it leaves its board's feed.
    func closed() {
        feed?.remove(self, keepingPending: false)
    }

    /// The WRITEABLE callback: exactly one `lws_write`, of up to `maxFrames` frames and at most
    /// `--max-write-bytes`, assembled in `scratch` (the service thread's one raw-write buffer).
    /// Returns -1 when lws should close the connection.
    func writeable(maxFrames: Int, scratch: UnsafeMutableRawBufferPointer) -> Int32 {
        writeRequested = false
        // lws calls WRITEABLE only once it has sent everything it kept of the last write.
        writeableBegan()
        if let failure = lwsFailure {
            // lws failed the connection itself and its close frame has gone out (it calls
            // WRITEABLE only after that): nothing more may follow it (RFC 6455 5.5.1), and TCP is
            // closed now rather than after lws's 5 s wait for a close reply (7.1.7).
            if closing == nil { closing = (failure.code, failure.reason, true) }
            return -1
        }
        if let request = closeRequest, isEmpty {
            return LWS.closeFromWriteable(
                wsi, code: request.code, reason: request.reason, handedOver: &closeState!.handedOver)
        }
        if keepalive.pingDue {
            // The ping alone in this write; what is queued goes in the next one, which runs the
            // rest of this callback's work (rejoining the feed, resuming reads).
            keepalive.pingDue = false
            requestWrite()
            // With a payload: lws 4.1.6 hands the server no RECEIVE_PONG for an empty pong.
            let payload = scratch.baseAddress! + headroom
            for (i, byte) in Keepalive.pingPayload.enumerated() {
                payload.storeBytes(of: byte, toByteOffset: i, as: UInt8.self)
            }
            return LWS.write(wsi, payload, Keepalive.pingPayload.count, LWS_WRITE_PING) ? 0 : -1
        }
        var written = true
        if deflate {
            // lws must frame (and compress) the message itself: one message per write. zlib reads
            // the buffer until the next WRITEABLE, so ask for one even when nothing else is queued:
            // that is when the buffer is released.
            if let message = nextMessage() {
                written = LWS.write(wsi, message.baseAddress!, message.count, LWS_WRITE_TEXT)
                requestWrite()
            }
        } else if let bytes = nextWrite(maxFrames: maxFrames, into: scratch) {
            // Pre-built frames back to back (or one fragment of a large one), in one raw write.
            written = LWS.write(wsi, bytes.baseAddress!, bytes.count, shuffleboard_write_raw())
            // lws has sent the bytes or copied them; when the socket took them all, lws holds
            // none of them either.
            if lws_partial_buffered(wsi) == 0 { lastWriteWentOut() }
            releaseStorageIfDrained()
            if !isEmpty || closeRequest != nil { requestWrite() }
        }
        if readingPaused && isEmpty { resumeReadingOnceSent() }
        if let feed {
            if behind && caughtUp { feed.caughtUp(self) }
            if ring == nil && isEmpty { feed.rejoin(self) }
        }
        return written ? 0 : -1
    }

    /// Stops lws from parsing what the client sent after the message just received until what is
    /// queued has been written: for the echo endpoint. When what comes next is a frame lws fails
    /// the connection for (a reserved opcode, reserved bits, a bad continuation), lws sends its
    /// close frame at once and calls no WRITEABLE before it, so an echo still queued was lost or
    /// depended on how the bytes were split into reads (Autobahn 3.2-3.4, 4.1.3-4.2.5,
    /// NON-STRICT on some runs). lws keeps the rest of the read (`lws_rx_flow_control`) and
    /// parses it once reading resumes, after the echo, and after any pong lws owes (it writes
    /// those before calling WRITEABLE), so order is kept. Not while closing: lws reads on then.
    func pauseReadingUntilWritten() {
        guard !readingPaused, closeRequest == nil else { return }
        readingPaused = true
        lws_rx_flow_control(wsi, 0)
    }

    /// Reading resumes once lws holds nothing of the last write either: were lws to fail the
    /// connection while it still held some, it would send that and close without a close frame.
    private func resumeReadingOnceSent() {
        guard lws_partial_buffered(wsi) == 0 else { return requestWrite() }
        readingPaused = false
        lws_rx_flow_control(wsi, 1)
    }

    /// The close lws's own frame parser set when it failed the connection (1002, or 1007 for
    /// text that is not UTF-8), or the 1002 `WebSockets.peerClosing` set for a bad close frame;
    /// nil while the connection is not failing, and once the server handed its own close to lws.
    var lwsFailure: (code: UInt16, reason: String)? {
        guard closeState?.handedOver != true else { return nil }
        return LWS.closeReason(of: wsi)
    }
}
