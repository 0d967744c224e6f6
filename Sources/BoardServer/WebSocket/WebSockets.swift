internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Glibc
internal import LWSSupport

/// The WebSocket part of the transport: the connections on `/ws` and the echo endpoint, their
/// framing checks (WebSocket/Framing.swift), send queues, the boards' feeds and rings, and the
/// pacer that wakes feeds whose hovers wait. The hub's `send`, `broadcast` and `close` actions
/// land here; what a client sends goes to the hub, or to the relay when the connection is
/// forwarded, both through its port to the runtime (`WebSocketsPort`).
///
/// Confined to the service thread, like the runtime that owns it.
final class WebSockets: TransportPart {
    var connections: [ConnectionID: Connection] = [:]
    /// The timer that wakes feeds whose hovers wait (`--hover-pacing`); nil: hovers are not paced.
    var pacer: Pacer?
    /// Feeds with hovers waiting for their next wake-up, in the order they began to wait.
    private var pacedFeeds: [Feed] = []
    /// `--hover-pacing`, converted once.
    private let pacingInterval: Clock.Reading.Span
    /// A feed due within this is woken now rather than the timer set again for a few microseconds.
    private static let wakeSlack = Clock.Reading.Span(microseconds: 100)
    /// The service thread's share of a core over the last tick, and the clocks it was measured on.
    private(set) var saturation: Saturation
    /// Set once the log has said that this libwebsockets cannot tell masked frames from unmasked.
    private var maskUnknownWarned = false
    /// When shutdown began: echo connections (which the hub does not know) get the same grace
    /// as the hub's sessions to take their 1001 before the loop ends.
    private var echoCloseDeadline: Instant?
    /// The hub's events and ids, the relay for forwarded clients, the loop's end (Runtime/Ports.swift).
    unowned let port: any WebSocketsPort
    /// Clients' addresses behind a trusted proxy.
    let addresses: ClientAddresses
    /// Connections opened and closed since the heap was last trimmed, and since the last tick.
    private var churnSinceTrim = 0
    private var churnSinceTick = 0
    /// Other nodes' links and the sessions of their clients (WebSocket/NodeLinks.swift).
    let nodeLinks = NodeLinks()
    /// Pings and hang-ups (Keepalive.swift).
    private var keepalive: Keepalive

    init(_ shared: Shared, port: any WebSocketsPort, addresses: ClientAddresses) {
        self.port = port
        self.addresses = addresses
        saturation = Saturation(threshold: shared.config.hoverPacingBusy)
        pacingInterval = Clock.Reading.Span(shared.config.hoverPacing)
        keepalive = Keepalive(pingAfter: shared.config.pingAfter, hangUpAfter: shared.config.hangUpAfter)
        super.init(shared)
    }

    /// On every tick: how busy the service thread was (hover pacing turns on and off with it);
    /// once a second, the pings and hang-ups due.
    func tick(now: Instant) {
        saturation.sample()
        guard keepalive.sweepDue(now: now) else { return }
        for connection in connections.values {
            switch keepalive.step(connection.keepalive, now: now) {
            case .none: continue
            case .ping: connection.ping()
            // Counted and logged when it closes: by the server, 1006 (`logClose`).
            case .hangUp: connection.hangUp()
            }
        }
    }

    /// A pong: the client is there (RFC 6455 5.5.3; asked for or not).
    func ponged(_ connection: Connection) {
        connection.keepalive.confirmed(at: Clock.now())
    }

    /// A connection opened or closed (for `trimHeapAfterChurn`).
    private func churned() {
        churnSinceTrim += 1
        churnSinceTick += 1
    }

    /// Once a burst of connections opening or closing (at least 256 of them) has been over for a
    /// tick, gives the freed heap pages back to the kernel (`shuffleboard_trim_heap`): their
    /// handshake buffers are freed, but glibc keeps the pages between the connections that stay.
    /// A trim walks the free lists (a few milliseconds for a heap of thousands of connections),
    /// so it happens only after such a burst.
    func trimHeapAfterChurn() {
        defer { churnSinceTick = 0 }
        guard churnSinceTrim >= 256, churnSinceTick == 0 else { return }
        let churn = churnSinceTrim
        churnSinceTrim = 0
        let (released, micros) = Clock.timed { shuffleboard_trim_heap() != 0 }
        log.debug(
            "heap trimmed after \(churn) connections opened or closed in \(micros) µs"
                + (released ? "" : " (nothing to release)"))
    }

    /// The endpoint a WebSocket upgrade asks for, or nil when its path has none.
    func endpoint(of wsi: OpaquePointer) -> Endpoint? {
        // `/ws%0Aanything` arrives as `/ws`: a request line lws cut short asks for no endpoint.
        guard !LWS.requestLineWasCut(wsi) else { return nil }
        let path = LWS.header(wsi, WSI_TOKEN_GET_URI)
        if path == "/ws" { return .board }
        if let echo = config.echoPath, path == echo { return .echo }
        if path == NodeLinks.path, keys.forwards { return .node }
        return nil
    }

    // MARK: Opening and closing

    /// ESTABLISHED: a new connection; returns its id (for the wsi's opaque user data).
    func opened(_ wsi: OpaquePointer, endpoint: Endpoint) -> UInt64 {
        let id = ConnectionID(port.makeID())
        churned()
        let deflate = config.deflate && LWS.header(wsi, WSI_TOKEN_EXTENSIONS)?.contains("permessage-deflate") == true
        // An echo connection's bound fits one message as large as the echo endpoint takes.
        let bound =
            switch endpoint {
            case .echo: max(config.maxPendingBytes, config.echoMaxMessageBytes + Frame.maximumHeaderLength)
            case .node: NodeLinks.sendBound(config)
            case .board: config.maxPendingBytes
            }
        let connection = Connection(
            id: id.rawValue, wsi: wsi, deflate: deflate, maxPendingBytes: bound, maxWriteBytes: config.maxWriteBytes,
            now: Clock.now())
        connection.endpoint = endpoint
        connections[id] = connection
        LWS.limitUnsent(wsi, to: config.unsentBytes, log: log)
        let socketPeer = LWS.peer(of: wsi)
        let proxied = addresses.proxied(wsi, socketPeer: socketPeer)
        let direct = proxied ?? socketPeer
        let forwardedFor = endpoint == .board ? keys.forwardedAddress(wsi, socketPeer: direct, id: id) : nil
        if forwardedFor != nil, proxied == nil { port.handle(.clusterPeer(socketPeer)) }
        let peer = forwardedFor ?? direct
        connection.address = peer
        connection.peer =
            forwardedFor.map { "\($0) (via \(socketPeer))" } ?? proxied.map { "\($0) (via proxy \(socketPeer))" }
            ?? socketPeer
        if keys.forwards {  // Only a cluster node forwards, and so needs it later.
            connection.origin = LWS.header(wsi, WSI_TOKEN_ORIGIN).flatMap {
                $0.utf8.count <= Relay.maximumOriginBytes ? $0 : nil
            }
        }
        meters.accepted.add(EndpointLabel(endpoint))
        if deflate { log.debug("\(id) from \(connection.peer) uses permessage-deflate") }
        switch endpoint {
        case .board:
            // A connection another node forwarded is that node's, not a proxy's (Hub+Proxy.swift).
            let proxy = forwardedFor == nil ? addresses.proxy(wsi) : nil
            port.handle(.opened(id, peer: peer, relayed: forwardedFor != nil, proxy: proxy))
        case .echo: log.debug("\(id) from \(peer) is on the echo endpoint")
        case .node: linkOpened(connection)
        }
        return id.rawValue
    }

    /// CLOSED: the connection is gone.
    func closed(_ id: UInt64) {
        guard let connection = connections.removeValue(forKey: ConnectionID(id)) else { return }
        churned()
        connection.closed()
        logClose(of: connection)
        if connection.upstream != nil { port.forwardedClientWent(connection) }
        switch connection.endpoint {
        case .board: port.handle(.closed(ConnectionID(id)))
        case .echo: port.echoClosed()
        case .node: linkClosed(connection)
        }
    }

    /// Shutdown began: echo connections (the hub does not know them) are closed with 1001 and
    /// get `--shutdown-grace` to take it.
    func shutdown(now: Instant) {
        guard echoCloseDeadline == nil else { return }
        echoCloseDeadline = now + Instant.Span(config.hub.shutdownGrace)
        for connection in connections.values where connection.endpoint == .echo {
            connection.close(code: 1001, reason: "server shutting down")
        }
    }

    /// True while an echo connection is still closing within its grace.
    func echoClosing(now: Instant) -> Bool {
        let echoLeft = connections.values.contains { $0.endpoint == .echo }
        return echoLeft && now < echoCloseDeadline ?? now
    }

    /// The close line (info) and the close metric: the code the server sent, or the one the client
    /// sent, or 1006 when the connection ended without a close frame.
    private func logClose(of connection: Connection) {
        let code: UInt16
        let reason: String
        let initiator: CloseLabel.Initiator
        if let request = connection.closeRequest {
            (code, reason, initiator) = (request.code, request.reason, .server)
        } else if let closing = connection.closing {
            (code, reason, initiator) = (closing.code, closing.reason, closing.byServer ? .server : .client)
        } else if let failure = connection.lwsFailure {
            // lws failed the connection (its close frame may not have gone out before it ended).
            (code, reason, initiator) = (failure.code, failure.reason, .server)
        } else {
            (code, reason, initiator) = (1006, "", .network)
        }
        meters.closes.add(CloseLabel(code: code, initiator: initiator))
        clientLog.write(
            .info,
            initiator == .network
                ? "connection \(connection.id) from \(connection.peer) closed without a close frame (1006)"
                : "connection \(connection.id) from \(connection.peer) closed by the \(initiator.rawValue): \(code)"
                    + (reason.isEmpty ? "" : " \(reason)"))
    }

    // MARK: Messages in

    /// A complete text message from a client on `/ws`: to the hub, or to the board's owner when
    /// the connection is forwarded.
    func received(_ bytes: [UInt8], on connection: Connection) {
        if connection.upstream != nil { return port.relay(bytes, from: connection) }
        let parsed = ClientMessage.parse(bytes)
        let type = ClientMessageType(parsed)
        meters.received.add(type)
        meters.receivedBytes.add(type, UInt64(bytes.count))
        port.handle(.received(ConnectionID(connection.id), parsed))
    }

    /// A complete message on the echo endpoint goes back to its sender, under the same send
    /// bound as everything else (raised to fit one message as large as the echo endpoint takes).
    /// The connection reads nothing more until the echo is written (`pauseReadingUntilWritten`):
    /// what came after the message is parsed only then, so a frame lws fails the connection for
    /// (or a close) cannot overtake the echo, however the bytes were split into reads.
    func echo(_ frame: Frame, to connection: Connection) {
        send(frame, to: connection)
        connection.pauseReadingUntilWritten()
    }

    /// Says once that frames cannot be checked for a mask (a libwebsockets other than 4.1).
    func warnMaskUnknown() {
        guard !maskUnknownWarned else { return }
        maskUnknownWarned = true
        log.warning("this libwebsockets does not say whether client frames are masked; unmasked frames are accepted")
    }

    // MARK: Messages out

    /// The hub's `send`: one message to one connection.
    func send(_ message: ServerMessage, to id: ConnectionID) {
        guard let connection = connections[id] else { return sendOverLink(message, to: id) }
        let frame = Frame(message)
        meters.sent(message, bytes: frame.count, recipients: 1)
        send(frame, to: connection)
    }

    /// The hub's `broadcast`: one frame, encoded once, on the feed of the board whose members these are.
    func broadcast(_ message: ServerMessage, to members: [ConnectionID], except: ConnectionID?) {
        let frame = Frame(message)
        var recipients = deliver(frame, to: members, except: except)
        if !nodeLinks.isEmpty { recipients += broadcastOverLinks(message, frame: frame, to: members, except: except) }
        meters.sent(message, bytes: frame.count, recipients: recipients)
    }

    /// One frame on the feed of the board whose members these are: the hub's broadcasts on an
    /// owner, and a node link's (`NodeLink.Action.deliverAll`) on a forwarding node, with the same
    /// ring, coalescing, pacing and bounds. Returns how many clients it went to.
    func deliver(_ frame: Frame, to members: [ConnectionID], except: ConnectionID?) -> Int {
        guard let feed = feed(of: members) else { return 0 }
        // The clock only while pacing: without it, no hover waits for a time.
        let pacing = hoverPacing
        let now = pacing == .zero ? .zero : Clock.reading()
        let recipients = feed.append(frame, except: except, now: now, pacing: pacing) {
            overBound($0, holding: $0.heldBytes)
        }
        if feed.wakePending && !feed.paced { pace(feed) }
        return recipients
    }

    /// The hub's `close`.
    func close(_ id: ConnectionID, code: UInt16, reason: String, flush: Bool) {
        guard let connection = connections[id] else { return closeOverLink(id, code: code, reason: reason) }
        connection.close(code: code, reason: reason, flush: flush)
    }

    /// The feed of the board whose members these are (the feed of the first of them on one),
    /// made to read exactly these; nil when none of them is open.
    private func feed(of members: [ConnectionID]) -> Feed? {
        var found: Feed?
        var open = false
        for id in members {
            guard let connection = connections[id] else { continue }
            open = true
            if let feed = connection.feed {
                found = feed
                break
            }
            if connection.closeRequest == nil { break }
        }
        guard open else { return nil }
        let feed =
            found
            ?? Feed(capacity: config.ringBytes) { [unowned self] connection, bytes in
                clientLog.write(
                    .debug,
                    "connection \(connection.id) from \(connection.peer) fell \(bytes) bytes behind its board's "
                        + "broadcasts; it gets copies until it catches up")
            }
        if feed.members != members { feed.reconcile(members, connections: connections) }
        return feed
    }

    /// The least time between two wake-ups of a board's readers for hovers: `--hover-pacing`
    /// while the service thread is saturated, otherwise zero (every hover wakes them at once:
    /// when the thread has time to spare, pacing would only add latency).
    private var hoverPacing: Clock.Reading.Span {
        pacer != nil && saturation.saturated ? pacingInterval : .zero
    }

    /// `feed` has hovers waiting: the pacer wakes it once its pacing interval is over.
    private func pace(_ feed: Feed) {
        feed.paced = true
        pacedFeeds.append(feed)
        pacer?.fire(at: feed.wakeDue)
    }

    /// The pacer's timer fired: wakes the feeds whose interval is over (or nearly: within 100 µs,
    /// rather than set the timer again for a few microseconds), and sets it for the next.
    func pacerFired() {
        guard let pacer else { return }
        pacer.fired()
        let now = Clock.reading()
        var next: Clock.Reading?
        pacedFeeds.removeAll { feed in
            guard feed.wakePending else {
                feed.paced = false
                return true
            }
            let due = feed.wakeDue
            if now + Self.wakeSlack >= due {
                feed.wakeReaders(now: now)
                feed.paced = false
                return true
            }
            next = min(next ?? due, due)
            return false
        }
        if let next { pacer.fire(at: next) }
    }

    /// Queues `frame`; a connection it would take over `--max-pending-bytes` (counting what lws
    /// still holds of its last write) is closed with 1008 instead, even when its queue is empty.
    func send(_ frame: Frame, to connection: Connection) {
        guard !connection.enqueue(frame) else { return }
        overBound(connection, holding: connection.heldBytes + frame.count)
    }

    /// A frame would take `connection` to `held` bytes, over `--max-pending-bytes`: it is closed
    /// with 1008.
    private func overBound(_ connection: Connection, holding held: Int) {
        port.handle(.transportCounted(.limit(.sendQueue)))
        clientLog.warning(
            "connection \(connection.id) from \(connection.peer) would hold \(held) bytes of output, "
                + "over its send limit of \(config.maxPendingBytes) bytes; closing with 1008")
        connection.close(code: 1008, reason: "send queue over limit")
    }
}
