internal import Basics
internal import BoardAuth
internal import BoardCore
internal import BoardHub
internal import BoardStore
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
extension Service {
    /// The longest `Origin` a connection keeps for its upstream's handshake.
    static let maximumOriginBytes = 512
    /// The header naming the client a forwarded connection is for (with the colon lws wants).
    static let forwardedForHeader = "x-shuffleboard-forwarded-for:"
    /// The header carrying the cluster secret, in hex.
    static let clusterKeyHeader = "x-shuffleboard-cluster-key:"
    /// The longest value of either header that is read.
    private static let maximumHeaderValue = 256

    /// `bytes` in lower-case hex.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The revocations in force in `store`, read before the server serves (here, on the thread
    /// that makes the server), so that a restarted server refuses a revoked token from its first
    /// connection; the hub reloads them every second afterwards.
    static func revocations(in store: any BoardStore, log: Logger) -> [Revocation] {
        guard let revocations = store as? any RevocationStore else { return [] }
        do {
            return try revocations.revocations(now: Int64(Date().timeIntervalSince1970))
        } catch {
            log.error("cannot read the revoked tokens (\(error)); the first reload tries again within a second")
            return []
        }
    }

    /// The cluster secret: `config.clusterSecret`, else a `ClusterStore`'s (read here, on the
    /// thread that makes the server, never on the service thread); nil when not clustered.
    static func clusterSecret(config: ServerConfig, store: any BoardStore, log: Logger) -> [UInt8]? {
        if let secret = config.clusterSecret { return secret }
        guard let cluster = store as? any ClusterStore else { return nil }
        do {
            return try cluster.clusterSecret()
        } catch {
            log.error(
                "cannot read the cluster secret (\(error)): connections this node forwards will count as the node's own "
                    + "address at their owners, and it trusts no forwarded address")
            return nil
        }
    }

    // MARK: The owner's side

    /// The client address a trusted node forwarded this connection for, or nil: no such header,
    /// or no valid cluster key with it (then the socket's address counts, and the log says so).
    func forwardedAddress(_ wsi: OpaquePointer, socketPeer: String, id: ConnectionID) -> String? {
        guard let address = Self.customHeader(wsi, Self.forwardedForHeader) else { return nil }
        guard let clusterKey, let key = Self.customHeader(wsi, Self.clusterKeyHeader),
            clusterKey.token.matches(key.utf8)
        else {
            clientLog(
                "\(id) from \(socketPeer) names a forwarded-for address without a valid cluster key; "
                    + "using the socket's address")
            return nil
        }
        guard Self.isAddress(address) else {
            clientLog("\(id) from \(socketPeer) names a forwarded-for value that is not an address; ignored")
            return nil
        }
        return address
    }

    /// A header lws does not know, by its lower-case name with the colon; "" when it is longer
    /// than `maximumHeaderValue` or holds a control byte, nil when the request has none.
    private static func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        name.withCString { cName in
            let nameLength = Int32(strlen(cName))
            let length = lws_hdr_custom_length(wsi, cName, nameLength)
            guard length >= 0 else { return nil }
            guard length <= maximumHeaderValue else { return "" }
            var buffer = [CChar](repeating: 0, count: Int(length) + 1)
            guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), cName, nameLength) >= 0 else { return nil }
            // lws copies with strncpy: a NUL in the value leaves NULs to its end. A value with a
            // control byte is no value a node sends (and must not match a key by its prefix).
            let bytes = buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }
            guard !bytes.contains(where: LWS.isControl) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// An IPv4 or IPv6 address as `lws_get_peer_simple` writes one (what a node forwards).
    static func isAddress(_ text: String) -> Bool {
        (1...45).contains(text.utf8.count)
            && text.utf8.allSatisfy { c in
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
                    return true
                default:
                    return false
                }
            }
    }

    // MARK: The forwarding node's side

    /// `HOST:PORT` (`[V6]:PORT` too) as host and port, or nil.
    static func hostAndPort(_ advertise: String) -> (host: String, port: Int)? {
        guard let colon = advertise.lastIndex(of: ":") else { return nil }
        var host = String(advertise[..<colon])
        guard let port = Int(advertise[advertise.index(after: colon)...]), (1...65_535).contains(port) else {
            return nil
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        return (host, port)
    }

    /// `Action.forward`: from now on the connection's messages go to the owner at `advertise`,
    /// after `messages`.
    func forward(_ id: ConnectionID, to advertise: String, messages: [ClientMessage]) {
        guard let connection = connections[id], connection.closeRequest == nil else { return }
        if let old = connection.upstream.flatMap({ upstreams[$0] }) {
            // Forwarded again while an upstream is live: that one is given up, with what it held.
            closeUpstream(old, code: 1001, reason: "forwarded again")
        }
        connection.upstream = nil
        guard let (host, port) = Self.hostAndPort(advertise) else {
            log.error("\(id): cannot forward to \"\(advertise)\": not HOST:PORT")
            return handle(.forwardEnded(id, code: nil, answered: false))
        }
        let upstream = Upstream(
            id: makeID(), connection: id, host: host, port: port,
            deadline: Clock.now() + Int64(config.forwardTimeout * 1000), limit: config.maxPendingBytes,
            headroom: shuffleboard_lws_pre(), hubMessages: messages.map { $0.encoded() })
        guard upstream.heldBytes <= upstream.limit else { return flooded(connection, holding: upstream.heldBytes) }
        connection.upstream = upstream.id
        upstreams[upstream.id] = upstream
        meters.forwards.add()
        if inet_addr(host) == INADDR_NONE && !forwarding.warnedHostName {
            forwarding.warnedHostName = true
            log.warning(
                "forwarding to \(advertise): a host name is resolved on the service thread, which waits for it; "
                    + "advertise an IP address")
        }
        log.debug("\(id) from \(connection.peer) forwarded to \(advertise) (upstream \(upstream.id))")
        connect(upstream)
    }

    /// Starts the upstream's lws client connection; a connection lws cannot even start ends it at once.
    private func connect(_ upstream: Upstream) {
        guard let context else { return ended(upstream, how: .failed) }
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { for copy in owned { free(copy) } }
        func cString(_ text: String) -> UnsafePointer<CChar>? {
            guard let copy = strdup(text) else { return nil }
            owned.append(copy)
            return UnsafePointer(copy)
        }
        // lws copies these strings (into the wsi's stash) before lws_client_connect_via_info returns.
        var info = lws_client_connect_info()
        info.context = context
        info.address = cString(upstream.host)
        info.port = Int32(upstream.port)
        info.path = cString("/ws")
        info.host = cString(
            upstream.host.contains(":") ? "[\(upstream.host)]:\(upstream.port)" : "\(upstream.host):\(upstream.port)")
        info.protocol = cString("shuffleboard.v1")
        // The Origin goes in CLIENT_APPEND_HANDSHAKE_HEADER: lws would prefix `info.origin` with http://.
        info.retry_and_idle_policy = UnsafePointer(forwarding.retry)
        // The id, not a pointer: callbacks find the upstream in `upstreams` (WSIID).
        info.opaque_user_data = WSIID.opaque(upstream.id | WSIID.upstreamTag)
        if let wsi = lws_client_connect_via_info(&info) {
            upstream.wsi = wsi
        } else {
            ended(upstream, how: .failed)
        }
    }

    /// Handles the callbacks of the upstream `id`'s wsi (which carries the id as opaque user
    /// data); nil for reasons left to lws's defaults.
    func upstreamCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ id: UInt64, _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32? {
        guard let upstream = upstreams[id] else {
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
            guard !upstream.abandoned, !upstream.timedOut, connections[upstream.connection] != nil else { return -1 }
            upstream.established = true
            requestWrite(upstream)
            return 0
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
            // lws's reason: text of `length` bytes (a NUL may end it sooner).
            let detail = input.map {
                String(
                    decoding: UnsafeRawBufferPointer(start: $0, count: min(length, 200)).prefix { $0 != 0 },
                    as: UTF8.self)
            }
            log.debug("upstream \(upstream.id) to \(upstream.host):\(upstream.port) failed: \(detail ?? "")")
            ended(upstream, how: upstream.timedOut ? .timeout : .failed)
            return 0
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WSI_DESTROY:
            ended(upstream, how: upstream.timedOut ? .timeout : upstream.established ? .closed : .failed)
            return nil
        default:
            return nil
        }
    }

    /// The handshake's own headers: the client's Origin, forwarded-for and the cluster key.
    private func appendHandshakeHeaders(
        _ upstream: Upstream, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Bool {
        guard let input, let connection = connections[upstream.connection] else { return false }
        let p = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = p.pointee else { return false }
        let end = start + length
        func add(_ name: String, _ value: String) -> Bool {
            var value = Array(value.utf8)
            return name.withCString { cName in
                cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 1) { name in
                    lws_add_http_header_by_name(wsi, name, &value, Int32(value.count), p, end) == 0
                }
            }
        }
        if let origin = connection.origin, !add("origin:", origin) { return false }
        guard add(Self.forwardedForHeader, connection.address) else { return false }
        if let clusterKey, !add(Self.clusterKeyHeader, clusterKey.hex) { return false }
        return true
    }

    /// A piece of a message from the owner: reassembled, then relayed to the client as one frame.
    private func received(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, from upstream: Upstream)
    {
        guard !upstream.abandoned, let connection = connections[upstream.connection] else { return }
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
        upstream.didAnswer()
        meters.relayed.add(.toClient)
        meters.relayedBytes.add(.toClient, UInt64(message.count))
        send(RelayedMessage.frame(message), to: connection)
    }

    /// An upstream's WRITEABLE: its close, or exactly one `lws_write` of one message (lws masks it).
    private func writeable(_ upstream: Upstream, _ wsi: OpaquePointer) -> Int32 {
        upstream.writeableBegan()
        if let request = upstream.closeRequest {
            return LWS.closeFromWriteable(
                wsi, code: request.code, reason: request.reason, handedOver: &upstream.closeHandedOver)
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
        guard connection.closeRequest == nil, let upstream = connection.upstream.flatMap({ upstreams[$0] }) else {
            return
        }
        guard upstream.enqueue(message) else { return flooded(connection, holding: upstream.heldBytes + message.count) }
        requestWrite(upstream)
    }

    /// Closes a client whose upstream would hold more than the bound (or whose owner sent more
    /// than it could be sent) with 1008; its upstream goes when it does.
    private func flooded(_ connection: Connection, holding bytes: Int, towardsClient: Bool = false) {
        hub.meters.limitHits.add(.sendQueue)
        clientLog(
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
        guard let upstream = connection.upstream.flatMap({ upstreams[$0] }) else { return }
        let clientClosed = connection.closing.map { !$0.byServer } ?? false
        closeUpstream(
            upstream, code: clientClosed ? 1000 : 1001, reason: clientClosed ? "client closed" : "client gone")
    }

    /// Closes an upstream for the transport's own reasons; its end is not reported to the hub.
    private func closeUpstream(_ upstream: Upstream, code: UInt16, reason: String) {
        upstream.abandoned = true
        upstream.discard()
        if upstream.established {
            upstream.closeRequest = (code, reason)
            requestWrite(upstream)
        } else if let wsi = upstream.wsi {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        } else {
            ended(upstream, how: .client)
        }
    }

    /// On every tick: an upstream whose handshake is not done by its deadline is killed (again
    /// on each tick until lws reports it gone, in case lws set a timeout of its own meanwhile).
    func sweepUpstreams(now: Instant) {
        for upstream in upstreams.values where !upstream.established && now >= upstream.deadline {
            if !upstream.timedOut {
                upstream.timedOut = true
                log.debug("upstream \(upstream.id) to \(upstream.host):\(upstream.port): no handshake in time")
            }
            if let wsi = upstream.wsi {
                lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
            } else {
                ended(upstream, how: .timeout)
            }
        }
    }

    /// An upstream is gone. Unless the client went first, the connection is the hub's again (what
    /// it sends next goes to the hub) and the hub hears `.forwardEnded`, with what the client sent
    /// that the owner never answered.
    private func ended(_ upstream: Upstream, how: ForwardEndLabel) {
        guard !upstream.ended else { return }
        upstream.ended = true
        upstreams[upstream.id] = nil
        meters.forwardEnds.add(upstream.abandoned ? .client : how)
        defer { upstream.discard() }
        guard !upstream.abandoned, let connection = connections[upstream.connection],
            connection.upstream == upstream.id
        else { return }
        connection.upstream = nil
        // The client's own messages passed the transport's checks; one that does not parse was
        // never going to do anything on the owner but earn an error.
        let unrelayed = upstream.unrelayed().compactMap { try? ClientMessage.parse($0).get() }
        let code = how == .closed ? upstream.peerCloseCode : nil
        log.debug(
            "upstream \(upstream.id) of connection \(connection.id) ended (\(how.rawValue), "
                + "code \(code.map(String.init) ?? "none"), "
                + (upstream.answered ? "answered)" : "never answered, \(unrelayed.count) message(s) unrelayed)"))
        handle(.forwardEnded(upstream.connection, code: code, answered: upstream.answered, unrelayed: unrelayed))
    }
}

/// What forwarding needs for the life of the service: the upstreams' ping policy (lws keeps
/// pointing at it) and whether the log has warned about host names.
final class ForwardingSetup {
    /// The upstreams' `retry_and_idle_policy`: ping after `--forward-timeout` without a pong,
    /// hang up after twice that.
    let retry: UnsafeMutablePointer<lws_retry_bo_t>
    /// Set once the log said that a host name in `advertise` blocks the service thread.
    var warnedHostName = false

    init(timeout: Double) {
        let ping = UInt16(min(max(1, Int(timeout.rounded(.up))), 30_000))
        retry = .allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        retry.pointee.secs_since_valid_ping = ping
        retry.pointee.secs_since_valid_hangup = 2 * ping
    }

    deinit { retry.deallocate() }
}
