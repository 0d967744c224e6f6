internal import Basics
internal import BoardCore
internal import BoardHub

/// The connection a forwarding node opens to a board's owner on behalf of one of its clients
/// (`Action.forward`): the client's messages wait here until the owner takes them, and the
/// owner's messages are reassembled here on their way to the client. Memory and arithmetic only;
/// `Relay` makes the lws calls. Confined to the service thread.
///
/// **What it holds, and its bound.** `heldBytes` is every message queued and not yet written,
/// every message written that no answer from the owner has followed yet (kept so that the hub can
/// send them again when it retries, see `unrelayed()`), and the size of the last write until the
/// next WRITEABLE (lws keeps what the socket did not take, as for a client's own `SendQueue`). A
/// message that would take it past `limit` is refused: the client is flooding faster than the
/// owner takes it (or than the owner answers), and is closed with 1008.
final class Upstream {
    /// Its own id (in the wsi's opaque user data), distinct from the client connection's.
    let id: UpstreamID
    /// The client connection it relays.
    let connection: ConnectionID
    /// The owner's address and port (from `advertise`).
    let owner: NodeAddress
    /// By when the WebSocket handshake must be done (the connect timeout).
    let deadline: Instant
    /// The most bytes held (see above).
    let limit: Int

    /// Where an upstream's life is. Every change goes through `handle`; how it ended is read
    /// from `.ended`.
    enum Phase: Equatable {
        /// lws is connecting and shaking hands (by `deadline`).
        case connecting
        /// The handshake was not done by `deadline`: lws is told to kill it (again on every tick).
        case timedOut
        /// The owner accepted the upgrade (`LWS_CALLBACK_CLIENT_ESTABLISHED`): messages flow.
        case established
        /// Given up by the transport before it was established (the client went, or was
        /// forwarded again): lws is told to kill it, and the hub never hears of its end.
        case abandoned
        /// Given up by the transport once established: its close frame goes at the next
        /// WRITEABLE (`handedOver` once lws has it), and the hub never hears of its end.
        case closing(code: UInt16, reason: String, handedOver: Bool)
        /// Gone, and how (the metric's label; `.client` when the transport gave it up). Later
        /// callbacks for it are ignored.
        case ended(ForwardEndLabel)
    }

    /// What happens to an upstream.
    enum Event: Equatable {
        /// The owner accepted the upgrade.
        case established
        /// The transport gives it up (its close code and reason, used once established).
        case abandon(code: UInt16, reason: String)
        /// A tick at `now`: the handshake deadline is checked.
        case tick(Instant)
        /// lws cannot connect, or reports a connection error.
        case failed
        /// lws closed its wsi.
        case closed
        /// A WRITEABLE began: lws has sent everything of the last write.
        case writeable
    }

    /// What the relay does about an event.
    enum Action: Equatable {
        /// Nothing.
        case none
        /// Ask lws for a WRITEABLE (when something waits: `wantsWrite`).
        case requestWrite
        /// Refuse what lws offers (return -1: the handshake, or the connection).
        case refuse
        /// Tell lws to kill the connection (it reports `.closed` or `.failed` later).
        case kill
        /// It ended, as the label says: forget it (and tell the hub, unless `.client`).
        case end(ForwardEndLabel)
        /// Write one message (`nextWrite`).
        case write
        /// Hand this close to lws (return -1 from the WRITEABLE).
        case sendClose(code: UInt16, reason: String)
    }

    /// The client wsi, once lws made one.
    var wsi: OpaquePointer?
    private(set) var phase = Phase.connecting
    /// The owner sent at least one message.
    private(set) var answered = false
    /// The code of the owner's close frame, if it sent one.
    var peerCloseCode: UInt16?
    private var writeRequested = false

    /// Every transition of `phase`, and what the relay must do about it.
    func handle(_ event: Event) -> Action {
        switch (phase, event) {
        case (.ended, _):
            return event == .established ? .refuse : .none
        case (.connecting, .established):
            phase = .established
            return .requestWrite
        case (_, .established):
            return .refuse
        case (.connecting, .abandon), (.timedOut, .abandon):
            discard()
            phase = .abandoned
            return wsi == nil ? end(.client) : .kill
        case (.established, .abandon(let code, let reason)):
            discard()
            phase = .closing(code: code, reason: reason, handedOver: false)
            return .requestWrite
        case (_, .abandon):
            return .none
        case (.connecting, .tick(let now)), (.timedOut, .tick(let now)), (.abandoned, .tick(let now)):
            guard now >= deadline else { return .none }
            if phase == .connecting { phase = .timedOut }
            return wsi == nil ? end(phase == .abandoned ? .client : .timeout) : .kill
        case (_, .tick):
            return .none
        case (_, .failed), (_, .closed):
            switch phase {
            case .timedOut: return end(.timeout)
            case .abandoned, .closing: return end(.client)
            case .established: return end(event == .closed ? .closed : .failed)
            default: return end(.failed)
            }
        case (.closing(let code, let reason, let handedOver), .writeable):
            writeableBegan()
            guard !handedOver else { return .none }
            phase = .closing(code: code, reason: reason, handedOver: true)
            return .sendClose(code: code, reason: reason)
        case (_, .writeable):
            writeableBegan()
            return .write
        }
    }

    /// Ends it; what it held stays for the relay to read (`unrelayed`) until it discards it.
    private func end(_ how: ForwardEndLabel) -> Action {
        phase = .ended(how)
        return .end(how)
    }

    /// The transport gave it up (the client went): what the owner sends is not wanted.
    var isAbandoned: Bool {
        switch phase {
        case .abandoned, .closing, .ended(.client): true
        default: false
        }
    }

    /// How many of the first messages came from the hub's `forward` (it sends them again on a retry).
    private let fromHub: Int
    private var queue = FIFO<[UInt8]>()
    private var queuedBytes = 0
    private var unanswered: [[UInt8]] = []
    private var unansweredBytes = 0
    private var lastWrite = 0
    private var buffer: WriteBuffer

    /// The owner's message being reassembled from fragments.
    var rx: [UInt8] = []

    /// An upstream that will send `hubMessages` (the `hello` and what followed it), then what comes.
    init(
        id: UpstreamID, connection: ConnectionID, owner: NodeAddress, deadline: Instant, limit: Int,
        headroom: Int, hubMessages: [[UInt8]]
    ) {
        self.id = id
        self.connection = connection
        self.owner = owner
        self.deadline = deadline
        self.limit = limit
        buffer = WriteBuffer(headroom: headroom)
        fromHub = hubMessages.count
        for message in hubMessages { append(message) }
    }

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
        guard !writeRequested else { return false }
        switch phase {
        case .established where !queue.isEmpty, .closing: break
        default: return false
        }
        writeRequested = true
        return true
    }

    /// A WRITEABLE began: lws has sent everything of the last write.
    private func writeableBegan() {
        writeRequested = false
        lastWrite = 0
    }

    /// The next message to write, copied after `headroom` writable bytes (lws masks it in place);
    /// nil when nothing is queued. Valid until the next call.
    func nextWrite() -> UnsafeMutableRawBufferPointer? {
        guard let message = queue.popFirst() else {
            buffer.release()
            return nil
        }
        queuedBytes -= message.count
        let bytes = buffer.place(message)
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
        if queue.isEmpty { buffer.release() }
    }

    /// A complete message came from the owner: what was written before it need not be kept.
    /// True for the first (the owner's answer to the `hello`).
    @discardableResult
    func didAnswer() -> Bool {
        guard !answered else { return false }
        answered = true
        unanswered = []
        unansweredBytes = 0
        return true
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
        buffer.release()
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
