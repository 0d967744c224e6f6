internal import Basics
internal import BoardCore
internal import BoardHub

/// The connection a forwarding node opens to a board's owner on behalf of one of its clients
/// (`Action.forward`): the client's messages wait here until the owner takes them, and the
/// owner's messages are reassembled here on their way to the client. Memory and arithmetic only;
/// `Service+Forwarding.swift` makes the lws calls. Confined to the service thread.
///
/// **What it holds, and its bound.** `heldBytes` is every message queued and not yet written,
/// every message written that no answer from the owner has followed yet (kept so that the hub can
/// send them again when it retries, see `unrelayed()`), and the size of the last write until the
/// next WRITEABLE (lws keeps what the socket did not take, as for a client's own `SendQueue`). A
/// message that would take it past `limit` is refused: the client is flooding faster than the
/// owner takes it (or than the owner answers), and is closed with 1008.
final class Upstream {
    /// Its own id (in the wsi's opaque user data), distinct from the client connection's.
    let id: UInt64
    /// The client connection it relays.
    let connection: ConnectionID
    /// The owner's address and port (from `advertise`).
    let host: String
    let port: Int
    /// By when the WebSocket handshake must be done (the connect timeout).
    let deadline: Instant
    /// The most bytes held (see above).
    let limit: Int

    /// The client wsi, once lws made one.
    var wsi: OpaquePointer?
    /// The owner accepted the upgrade (`LWS_CALLBACK_CLIENT_ESTABLISHED`).
    var established = false
    /// The owner sent at least one message.
    private(set) var answered = false
    /// The code of the owner's close frame, if it sent one.
    var peerCloseCode: UInt16?
    /// The transport closes it for its own reasons (the client went, shutdown, a timeout); the
    /// close the next WRITEABLE carries out, when established.
    var closeRequest: (code: UInt16, reason: String)?
    /// The close was handed to lws (`LWS.closeFromWriteable`).
    var closeHandedOver = false
    /// Set when the client went: its end is nobody's business, so the hub is not told.
    var abandoned = false
    /// Set when the connect timeout killed it.
    var timedOut = false
    /// Its end has been handled (reported or not); later callbacks for it are ignored.
    var ended = false
    private var writeRequested = false

    /// How many of the first messages came from the hub's `forward` (it sends them again on a retry).
    private let fromHub: Int
    private var queue = FIFO<[UInt8]>()
    private var queuedBytes = 0
    private var unanswered: [[UInt8]] = []
    private var unansweredBytes = 0
    private var lastWrite = 0
    private var buffer: UnsafeMutableRawBufferPointer?
    private let headroom: Int

    /// The owner's message being reassembled from fragments.
    var rx: [UInt8] = []

    /// An upstream that will send `hubMessages` (the `hello` and what followed it), then what comes.
    init(
        id: UInt64, connection: ConnectionID, host: String, port: Int, deadline: Instant, limit: Int,
        headroom: Int, hubMessages: [[UInt8]]
    ) {
        self.id = id
        self.connection = connection
        self.host = host
        self.port = port
        self.deadline = deadline
        self.limit = limit
        self.headroom = headroom
        fromHub = hubMessages.count
        for message in hubMessages { append(message) }
    }

    deinit { buffer?.deallocate() }

    /// Every byte held for the owner (see the type's comment).
    var heldBytes: Int { queuedBytes + unansweredBytes + lastWrite }
    /// True when no message waits to be written.
    var isEmpty: Bool { queue.isEmpty }

    /// Queues a complete client message; false (nothing queued) when it would pass the bound.
    func enqueue(_ message: [UInt8]) -> Bool {
        guard heldBytes + message.count <= limit else { return false }
        append(message)
        return true
    }

    private func append(_ message: [UInt8]) {
        queue.append(message)
        queuedBytes += message.count
    }

    /// Whether a WRITEABLE should be asked for; true once per request (lws merges them anyway).
    func wantsWrite() -> Bool {
        guard !writeRequested, established, !queue.isEmpty || closeRequest != nil else { return false }
        writeRequested = true
        return true
    }

    /// A WRITEABLE began: lws has sent everything of the last write.
    func writeableBegan() {
        writeRequested = false
        lastWrite = 0
    }

    /// The next message to write, copied after `headroom` writable bytes (lws masks it in place);
    /// nil when nothing is queued. Valid until the next call.
    func nextWrite() -> UnsafeMutableRawBufferPointer? {
        guard let message = queue.popFirst() else {
            releaseBuffer()
            return nil
        }
        queuedBytes -= message.count
        let needed = headroom + message.count
        if (buffer?.count ?? 0) < needed {
            releaseBuffer()
            buffer = .allocate(byteCount: needed, alignment: 16)
        }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: buffer![headroom..<needed])
        message.withUnsafeBytes { bytes.copyMemory(from: $0) }
        lastWrite = message.count
        if !answered {
            unanswered.append(message)
            unansweredBytes += message.count
        }
        if queue.isEmpty { queue.removeAll() }
        return bytes
    }

    /// After a write. lws has sent the bytes or copied what the socket did not take (no
    /// extension reads the buffer later: upstreams offer none), so the buffer can go when nothing
    /// else waits; `wentOut` (`lws_partial_buffered` is 0) says lws holds none of it either.
    func wrote(wentOut: Bool) {
        if wentOut { lastWrite = 0 }
        if queue.isEmpty { releaseBuffer() }
    }

    /// A complete message came from the owner: what was written before it need not be kept.
    func didAnswer() {
        guard !answered else { return }
        answered = true
        unanswered = []
        unansweredBytes = 0
    }

    /// What the client sent that never reached the owner, for the hub's retry: when the owner
    /// never answered, every client message this upstream had, written or not, except the hub's
    /// own (it has them); nothing when the owner answered (it took what it was sent, and the hub
    /// does not retry then).
    func unrelayed() -> [[UInt8]] {
        guard !answered else { return [] }
        return Array((unanswered + Array(queue)).dropFirst(fromHub))
    }

    /// Drops everything held (the upstream is being closed for good).
    func discard() {
        queue.removeAll()
        queuedBytes = 0
        unanswered = []
        unansweredBytes = 0
        rx = []
        releaseBuffer()
    }

    private func releaseBuffer() {
        buffer?.deallocate()
        buffer = nil
    }
}

/// Which relayed messages the client's send queue may coalesce: the owner's drag messages, read
/// from their JSON. The owner writes `type` first (`{"type":"hover",…`), so a prefix check finds
/// the candidates without parsing the rest; those (small: under `maximumDragBytes`) are parsed
/// for their `by`. Anything else, or anything unexpected, is an ordinary frame, which is never
/// dropped: a wrong guess can only cost coalescing, never a message.
enum RelayedMessage {
    /// Drag messages are far smaller than this; a larger one is not looked into.
    static let maximumDragBytes = 2048

    private static let hover = Array(#"{"type":"hover","#.utf8)
    private static let dragStart = Array(#"{"type":"dragStart","#.utf8)
    private static let drop = Array(#"{"type":"drop","#.utf8)

    /// The hand (user) a relayed drag message is about and whether it is a hover; nil for others.
    static func dragHand(_ bytes: [UInt8]) -> (hand: String, isHover: Bool)? {
        guard bytes.count <= maximumDragBytes else { return nil }
        let isHover = bytes.starts(with: hover)
        guard isHover || bytes.starts(with: dragStart) || bytes.starts(with: drop) else { return nil }
        guard let json = try? JSON.parse(bytes), let by = json["by"]?.stringValue else { return nil }
        return (by, isHover)
    }

    /// The frame a relayed message goes to the client in, marked for coalescing when it is a drag message.
    static func frame(_ bytes: [UInt8]) -> Frame {
        let drag = dragHand(bytes)
        return Frame(payload: bytes, hand: drag?.hand, isHover: drag?.isHover ?? false)
    }
}
