internal import Basics
internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// Forwarding between the nodes of a cluster: a client connected to a node that does not own its
/// board is relayed, message by message, to the owner over a WebSocket of the node's own (an
/// *upstream*, an lws client connection from the server's context, so its callbacks come to the
/// same protocol callback). The hub decides when (`Action.forward`) and what happens when an
/// upstream ends (`Event.forwardEnded`); this file carries it out.
///
/// **The forwarding node.** On `.forward(connection, advertise:, messages:)` it connects to
/// `ws://HOST:PORT/ws` with subprotocol `shuffleboard.v1`, and its handshake carries the client's
/// `Origin` (so the owner's `--allow-origin` still holds), `x-shuffleboard-forwarded-for: ADDRESS`
/// and, when it has the cluster secret, `x-shuffleboard-cluster-key: HEX`. Once the owner accepts
/// it sends the hub's messages (the `hello` and what followed it, encoded again), then every
/// complete message the client sends, as it came (after the usual checks: 1009, text only,
/// UTF-8, masks). Every message from the owner goes to the client as one frame through the
/// client's own `SendQueue`, so the send bound and the coalescing of a slow reader's hovers hold
/// as on the owner (`RelayedMessage` tells drag messages by their JSON). What waits for the owner
/// is bounded by `--max-pending-bytes` too (`Upstream`): a client that sends faster than the owner
/// takes it is closed with 1008. The handshake must be done within `--forward-timeout`; after it,
/// lws pings the owner after that long without a pong and hangs up after twice that long, so an
/// owner that stopped (SIGSTOP) is noticed.
///
/// **Ends.** The owner closing (its code, if it sent a close frame) or the upstream failing (no
/// connection, a refused or unanswered handshake, a timeout, a ping unanswered) becomes
/// `.forwardEnded(connection, code:, answered:, unrelayed:)`, where `unrelayed` is what the client
/// sent after the forward that the owner never answered (nothing once it answered). From then on
/// the connection is the hub's again: it closes the client, joins it here, or forwards it again
/// (a new `.forward` for the same connection). The client going closes its upstream (1000 when it
/// sent a close frame, 1001 otherwise), and the hub is not told about that upstream.
///
/// **The owner.** A connection whose handshake names `x-shuffleboard-forwarded-for` is taken to
/// come from that address (per-address limits and log lines see the real client) only when it
/// also carries this node's cluster key, compared in constant time; otherwise the header is
/// ignored (logged within the budget) and the socket's address is used.
/// Confined to the service thread. It owns the upstreams and node links (the cluster keys are
/// the `ClusterKeyRing`'s); the client connections are the WebSocket part's (`clients`), and the
/// hub hears of ends through its port.
final class Relay: TransportPart {
    /// The upstreams to boards' owners, by their own id (tagged in their wsi, see `WSIID`).
    private(set) var upstreams: [UpstreamID: Upstream] = [:]
    /// The node links to boards' owners (`config.nodeLinks`), by their own id, tagged like
    /// upstreams' (Relay/LinkConnection.swift), and by owner and board.
    var links: [LinkID: LinkConnection] = [:]
    var linkByKey: [String: LinkID] = [:]

    /// Where a forwarded client's messages go: an upstream of its own, or a node link it shares.
    enum Route: Equatable {
        case upstream(UpstreamID)
        case link(LinkID)
    }
    /// The upstreams' ping policy and a warning's state.
    let forwarding: ForwardingSetup
    /// The hub's events and ids.
    unowned let hub: any HubPort
    /// The client connections it forwards (the WebSocket part): found by id, and sent to.
    unowned let clients: WebSockets
    /// The lws context upstreams and node links are opened on (set once it is made).
    var context: OpaquePointer?

    init(_ shared: Shared, hub: any HubPort, clients: WebSockets) {
        self.hub = hub
        self.clients = clients
        forwarding = ForwardingSetup(timeout: shared.config.forwardTimeout)
        super.init(shared)
    }

    /// Forgets every upstream (after the context is gone: their callbacks found no client).
    func removeAll() {
        upstreams.removeAll()
        links.removeAll()
        linkByKey.removeAll()
    }

    // MARK: The forwarding node's side

    /// `Action.forward`: from now on the connection's messages go to the owner at `advertise`,
    /// after `messages`.
    func forward(_ id: ConnectionID, to advertise: String, messages: [ClientMessage]) {
        guard let connection = clients.connections[id], connection.closeRequest == nil else { return }
        if let old = ownUpstream(of: connection) {
            // Forwarded again while an upstream is live: that one is given up, with what it held.
            closeUpstream(old, code: 1001, reason: "forwarded again")
        }
        if let link = sharedLink(of: connection) {
            meters.forwardEnds.add(.client)
            carryOut(link.link.handle(.detach(id, code: 1001)), link)
        }
        connection.upstream = nil
        guard let owner = NodeAddress(advertise: advertise) else {
            log.error("\(id): cannot forward to \"\(advertise)\": not HOST:PORT")
            return hub.handle(.forwardEnded(id, code: nil, answered: false))
        }
        if config.nodeLinks, case .hello(let board, _, _, _, _) = messages.first {
            return forwardOverLink(connection, board: board, to: advertise, owner: owner, messages: messages)
        }
        let upstream = Upstream(
            id: UpstreamID(hub.makeID()), connection: id, owner: owner,
            deadline: Clock.now() + Instant.Span(config.forwardTimeout), limit: config.maxPendingBytes,
            headroom: shuffleboard_lws_pre(), hubMessages: messages.map { $0.encoded() })
        guard upstream.heldBytes <= upstream.limit else { return flooded(connection, holding: upstream.heldBytes) }
        connection.upstream = .upstream(upstream.id)
        upstreams[upstream.id] = upstream
        meters.forwards.add()
        warnIfHostName(owner, advertise)
        log.debug("\(id) from \(connection.peer) forwarded to \(advertise) (\(upstream.id))")
        connect(upstream)
    }

    /// Warns once that `advertise` names a host, which lws resolves on the service thread.
    func warnIfHostName(_ owner: NodeAddress, _ advertise: String) {
        guard inet_addr(owner.host) == INADDR_NONE, !forwarding.warnedHostName else { return }
        forwarding.warnedHostName = true
        log.warning(
            "forwarding to \(advertise): a host name is resolved on the service thread, which waits for it; "
                + "advertise an IP address")
    }

    /// Starts the upstream's lws client connection; a connection lws cannot even start ends it at once.
    private func connect(_ upstream: Upstream) {
        guard let context else {
            carryOut(upstream.handle(.failed), upstream)
            return
        }
        var connect = ClientConnect.toNode(
            upstream.owner, path: "/ws", tls: config.tlsCertificate != nil)
        // The Origin goes in CLIENT_APPEND_HANDSHAKE_HEADER: lws would prefix an `origin` with http://.
        connect.retryPolicy = UnsafeRawPointer(forwarding.retry)
        // The id, not a pointer: callbacks find the upstream in `upstreams` (WSIID).
        connect.opaqueUserData = WSIID.opaque(upstream.id.rawValue | WSIID.upstreamTag)
        if let wsi = connect.start(on: context) {
            upstream.wsi = wsi
        } else {
            carryOut(upstream.handle(.failed), upstream)
        }
    }

    /// The connection's own upstream, if it is forwarded over one.
    private func ownUpstream(of connection: Connection) -> Upstream? {
        guard case .upstream(let id)? = connection.upstream else { return nil }
        return upstreams[id]
    }

    /// The node link the connection is forwarded over, if any.
    private func sharedLink(of connection: Connection) -> LinkConnection? {
        guard case .link(let id)? = connection.upstream else { return nil }
        return links[id]
    }

    /// Handles the callbacks of the upstream `id`'s wsi (which carries the id as opaque user
    /// data); nil for reasons left to lws's defaults.
    func upstreamCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ id: UInt64, _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32? {
        if let link = links[LinkID(id)] { return linkCallback(wsi, reason, link, input, length) }
        guard let upstream = upstreams[UpstreamID(id)] else {
            // Ended already: whatever lws still has for it is not wanted.
            switch reason {
            case LWS_CALLBACK_CLIENT_ESTABLISHED, LWS_CALLBACK_CLIENT_RECEIVE, LWS_CALLBACK_CLIENT_WRITEABLE,
                LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
                return -1
            default:
                return nil
            }
        }
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            return appendHandshakeHeaders(upstream, wsi, input, length) ? 0 : -1
        case LWS_CALLBACK_CLIENT_CONFIRM_EXTENSION_SUPPORTED:
            // No permessage-deflate between nodes: zlib would read the write buffer after lws_write.
            return 1
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            forwarding.untrustedOwners.remove(upstream.owner)
            guard clients.connections[upstream.connection] != nil else { return -1 }
            return carryOut(upstream.handle(.established), upstream)
        case LWS_CALLBACK_CLIENT_RECEIVE:
            received(input, length, wsi: wsi, from: upstream)
            return 0
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            return writeable(upstream, wsi)
        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            if length >= 2, let input {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                upstream.peerCloseCode = UInt16(bytes[0]) << 8 | UInt16(bytes[1])
            }
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            log.debug(
                "\(upstream.id) to \(upstream.owner) failed: \(LWS.errorText(input, length))")
            if let problem = shuffleboard_tls_verify_error(wsi) {
                untrusted(owner: upstream.owner, String(cString: problem))
            }
            carryOut(upstream.handle(.failed), upstream)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WSI_DESTROY:
            carryOut(upstream.handle(.closed), upstream)
            return nil
        default:
            return nil
        }
    }

    /// The owner's TLS certificate did not verify: nothing was sent to it (the cluster key goes in
    /// the WebSocket handshake, after TLS). The upstream or node link fails like any unreachable
    /// owner's: the hub tries again while the owner holds the lease, then closes the client with 1013.
    func untrusted(owner: NodeAddress, _ problem: String) {
        guard forwarding.untrustedOwners.insert(owner).inserted else { return }
        log.warning(
            "not forwarding to the board owner at \(owner): its TLS certificate does not verify (\(problem)) against "
                + (config.clusterCA.map { "--cluster-ca \($0)" } ?? "the system's trusted authorities")
                + "; its boards' clients here are closed with 1013")
    }

    /// The handshake's own headers: the client's Origin, forwarded-for and the cluster key.
    private func appendHandshakeHeaders(
        _ upstream: Upstream, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Bool {
        guard let input, let connection = clients.connections[upstream.connection] else { return false }
        let p = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = p.pointee else { return false }
        let end = start + length
        func add(_ name: String, _ value: String) -> Bool { LWS.addHeader(wsi, name, value, p, end) }
        if let origin = connection.origin, !add("origin:", origin) { return false }
        guard add(Self.forwardedForHeader, connection.address) else { return false }
        if let key = keys.presented, !add(Self.clusterKeyHeader, key.hex) { return false }
        return true
    }

    /// A piece of a message from the owner: reassembled, then relayed to the client as one frame.
    private func received(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, from upstream: Upstream)
    {
        guard !upstream.isAbandoned, let connection = clients.connections[upstream.connection] else {
            return
        }
        // The owner sends text only; anything else is not for a browser.
        guard lws_frame_is_binary(wsi) == 0 else {
            if lws_is_final_fragment(wsi) != 0 { upstream.rx = [] }
            return
        }
        guard upstream.rx.count + length <= config.maxPendingBytes else {
            // More than the client could be sent in one piece: the same end as on the owner.
            let bytes = upstream.rx.count + length
            upstream.rx = []
            return flooded(connection, holding: bytes, towardsClient: true)
        }
        guard let message = LWS.message(input, length, wsi: wsi, buffer: &upstream.rx) else { return }
        if upstream.didAnswer() { hub.handle(.forwardAnswered(upstream.connection)) }
        meters.relayed.add(.toClient)
        meters.relayedBytes.add(.toClient, UInt64(message.count))
        clients.send(RelayedMessage.frame(message), to: connection)
    }

    /// An upstream's WRITEABLE: its close, or exactly one `lws_write` of one message (lws masks it).
    private func writeable(_ upstream: Upstream, _ wsi: OpaquePointer) -> Int32 {
        switch upstream.handle(.writeable) {
        case .sendClose(let code, let reason):
            LWS.setCloseReason(wsi, code: code, reason: reason)
            return -1
        case .write:
            break
        default:
            return 0
        }
        guard let bytes = upstream.nextWrite() else { return 0 }
        let written = LWS.write(wsi, bytes.baseAddress!, bytes.count, LWS_WRITE_TEXT)
        upstream.wrote(wentOut: lws_partial_buffered(wsi) == 0)
        meters.relayed.add(.toOwner)
        meters.relayedBytes.add(.toOwner, UInt64(bytes.count))
        requestWrite(upstream)
        return written ? 0 : -1
    }

    /// Asks lws for the upstream's WRITEABLE when it has something to write (or to close) and is established.
    private func requestWrite(_ upstream: Upstream) {
        guard let wsi = upstream.wsi, upstream.wantsWrite() else { return }
        lws_callback_on_writable(wsi)
    }

    /// A complete message from a forwarded client: to its upstream, as it came.
    func relay(_ message: [UInt8], from connection: Connection) {
        if let link = sharedLink(of: connection) {
            guard connection.closeRequest == nil else { return }
            return carryOut(link.link.handle(.fromClient(ConnectionID(connection.id), message)), link)
        }
        guard connection.closeRequest == nil, let upstream = ownUpstream(of: connection) else {
            return
        }
        guard upstream.enqueue(message) else { return flooded(connection, holding: upstream.heldBytes + message.count) }
        requestWrite(upstream)
    }

    /// Closes a client whose upstream would hold more than the bound (or whose owner sent more
    /// than it could be sent) with 1008; its upstream goes when it does.
    private func flooded(_ connection: Connection, holding bytes: Int, towardsClient: Bool = false) {
        hub.handle(.transportCounted(.limit(.sendQueue)))
        clientLog.warning(
            towardsClient
                ? "connection \(connection.id) from \(connection.peer): its board's owner sent a message of "
                    + "\(bytes) bytes, over the send limit of \(config.maxPendingBytes) bytes; closing with 1008"
                : "connection \(connection.id) from \(connection.peer) sends faster than its board's owner takes it: "
                    + "its upstream would hold \(bytes) bytes, over the limit of \(config.maxPendingBytes); closing with 1008"
        )
        connection.close(code: 1008, reason: towardsClient ? "send queue over limit" : "upstream queue over limit")
    }

    /// The client connection is gone: its upstream closes (1000 when the client sent a close frame,
    /// 1001 otherwise) and the hub hears nothing more of it.
    func clientWent(_ connection: Connection) {
        let clientClosed = connection.closing.map { !$0.byServer } ?? false
        if let link = sharedLink(of: connection) {
            let code: UInt16 = clientClosed ? 1000 : 1001
            meters.forwardEnds.add(.client)
            return carryOut(link.link.handle(.detach(ConnectionID(connection.id), code: code)), link)
        }
        guard let upstream = ownUpstream(of: connection) else { return }
        closeUpstream(
            upstream, code: clientClosed ? 1000 : 1001, reason: clientClosed ? "client closed" : "client gone")
    }

    /// Closes an upstream for the transport's own reasons; its end is not reported to the hub.
    private func closeUpstream(_ upstream: Upstream, code: UInt16, reason: String) {
        carryOut(upstream.handle(.abandon(code: code, reason: reason)), upstream)
    }

    /// On every tick: an upstream whose handshake is not done by its deadline is killed (again
    /// on each tick until lws reports it gone, in case lws set a timeout of its own meanwhile).
    func tick(now: Instant) {
        for link in Array(links.values) { carryOut(link.link.handle(.tick(now)), link) }
        for upstream in upstreams.values {
            let before = upstream.phase
            let action = upstream.handle(.tick(now))
            if before == .connecting, upstream.phase == .timedOut {
                log.debug("\(upstream.id) to \(upstream.owner): no handshake in time")
            }
            carryOut(action, upstream)
        }
    }

    /// Carries out what the upstream's phase machine asks for; the result for lws (-1: refuse).
    @discardableResult
    private func carryOut(_ action: Upstream.Action, _ upstream: Upstream) -> Int32 {
        switch action {
        case .none, .write:
            return 0
        case .requestWrite:
            requestWrite(upstream)
            return 0
        case .refuse:
            return -1
        case .kill:
            if let wsi = upstream.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
            return 0
        case .end(let how):
            ended(upstream, how: how)
            return 0
        case .sendClose(let code, let reason):
            if let wsi = upstream.wsi { LWS.setCloseReason(wsi, code: code, reason: reason) }
            return -1
        }
    }

    /// An upstream is gone. Unless the client went first, the connection is the hub's again (what
    /// it sends next goes to the hub) and the hub hears `.forwardEnded`, with what the client sent
    /// that the owner never answered.
    private func ended(_ upstream: Upstream, how: ForwardEndLabel) {
        upstreams[upstream.id] = nil
        meters.forwardEnds.add(how)
        defer { upstream.discard() }
        guard how != .client, let connection = clients.connections[upstream.connection],
            connection.upstream == .upstream(upstream.id)
        else { return }
        connection.upstream = nil
        // The client's own messages passed the transport's checks; one that does not parse was
        // never going to do anything on the owner but earn an error.
        let unrelayed = upstream.unrelayed().compactMap { try? ClientMessage.parse($0).get() }
        let code = how == .closed ? upstream.peerCloseCode : nil
        log.debug(
            "\(upstream.id) of connection \(connection.id) ended (\(how.rawValue), "
                + "code \(code.map(String.init) ?? "none"), "
                + (upstream.answered ? "answered)" : "never answered, \(unrelayed.count) message(s) unrelayed)"))
        hub.handle(
            .forwardEnded(upstream.connection, code: code, answered: upstream.answered, unrelayed: unrelayed))
    }
}
