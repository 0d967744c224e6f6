internal import Basics
internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// A forwarding node's node link to a board's owner (`NodeLink`, docs/cluster.md#the-node-link---node-links):
/// the lws client connection, the frame being reassembled and the write buffer. Confined to the
/// service thread; `Relay` makes the lws calls.
final class LinkConnection {
    /// Its own id (in the wsi's opaque user data, with `WSIID.upstreamTag`).
    let id: LinkID
    /// `advertise` and board, the key it is found by.
    let key: String
    /// The owner's address.
    let owner: NodeAddress
    let link: NodeLink
    var wsi: OpaquePointer?
    /// The owner's frame being reassembled from fragments.
    var rx: [UInt8] = []
    /// How the connection ended, once known (`shuffleboard_forward_ends_total` of its clients):
    /// a handshake past its deadline (timeout) or a connection error (failed); otherwise closed.
    var endHow: ForwardEndLabel?
    private var buffer: WriteBuffer

    init(id: LinkID, key: String, owner: NodeAddress, link: NodeLink, headroom: Int) {
        self.id = id
        self.key = key
        self.owner = owner
        self.link = link
        buffer = WriteBuffer(headroom: headroom)
    }

    /// The next frame to write, copied after `headroom` writable bytes (lws masks it in place);
    /// nil when none waits. Valid until the next call.
    func nextWrite() -> UnsafeMutableRawBufferPointer? {
        guard let frame = link.nextWrite() else { return nil }
        return buffer.place(frame)
    }
}

extension Relay {
    /// `Action.forward` with `config.nodeLinks`: the client joins the link to `advertise` for
    /// `board`, opened now when there is none that takes clients.
    func forwardOverLink(
        _ connection: Connection, board: BoardID, to advertise: String, owner: NodeAddress,
        messages: [ClientMessage]
    ) {
        let key = "\(advertise) \(board)"
        let link: LinkConnection
        if let id = linkByKey[key], let found = links[id], found.link.accepting {
            link = found
        } else {
            let made = LinkConnection(
                id: LinkID(hub.makeID()), key: key, owner: owner,
                link: NodeLink(
                    advertise: advertise, board: board,
                    deadline: Clock.now() + Instant.Span(config.forwardTimeout), limit: config.maxPendingBytes),
                headroom: shuffleboard_lws_pre())
            links[made.id] = made
            linkByKey[key] = made.id
            warnIfHostName(owner, advertise)
            log.debug("\(made.id) to \(advertise) for board \(board)")
            link = made
            connectLink(made)
        }
        connection.upstream = .link(link.id)
        // A forward is a client's, over a link as over an upstream (a retry counts again).
        meters.forwards.add()
        let id = ConnectionID(connection.id)
        log.debug("\(id) from \(connection.peer) forwarded to \(advertise) over \(link.id)")
        carryOut(
            link.link.handle(
                .attach(
                    id, address: connection.address, origin: connection.origin,
                    messages: messages.map { $0.encoded() })),
            link)
    }

    /// Starts the link's lws client connection, as `connect` does an upstream's, on `/node.v1`.
    private func connectLink(_ link: LinkConnection) {
        guard let context else { return carryOut(link.link.handle(.lost), link) }
        var connect = ClientConnect.toNode(
            link.owner, path: NodeLinks.path, tls: config.tlsCertificate != nil)
        connect.localProtocol = NodeLinks.localProtocol
        connect.retryPolicy = UnsafeRawPointer(forwarding.retry)
        connect.opaqueUserData = WSIID.opaque(link.id.rawValue | WSIID.upstreamTag)
        if let wsi = connect.start(on: context) {
            link.wsi = wsi
        } else {
            carryOut(link.link.handle(.lost), link)
        }
    }

    /// The callbacks of a link's wsi; nil for reasons left to lws's defaults.
    func linkCallback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ link: LinkConnection,
        _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32? {
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            guard let input, let clusterKey = keys.presented else { return -1 }
            let p = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
            guard let start = p.pointee else { return -1 }
            let end = start + length
            return LWS.addHeader(wsi, Self.clusterKeyHeader, clusterKey.hex, p, end)
                && LWS.addHeader(wsi, Self.nodeHeader, config.node, p, end) ? 0 : -1
        case LWS_CALLBACK_CLIENT_CONFIRM_EXTENSION_SUPPORTED:
            return 1
        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            forwarding.untrustedOwners.remove(link.owner)
            carryOut(link.link.handle(.established), link)
            return 0
        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard lws_frame_is_binary(wsi) != 0 else {
                carryOut(link.link.handle(.received([])), link)
                return 0
            }
            guard link.rx.count + length <= NodeLinks.maxFrameBytes(config) + config.maxPendingBytes else {
                link.rx = []
                carryOut(link.link.handle(.received([])), link)
                return 0
            }
            guard let frame = LWS.message(input, length, wsi: wsi, buffer: &link.rx) else { return 0 }
            carryOut(link.link.handle(.received(frame)), link)
            return 0
        case LWS_CALLBACK_CLIENT_WRITEABLE:
            for action in link.link.handle(.writeable) {
                if case .sendClose(let code) = action {
                    LWS.setCloseReason(wsi, code: code, reason: "no clients left")
                    return -1
                }
            }
            guard let bytes = link.nextWrite() else { return 0 }
            let written = LWS.write(wsi, bytes.baseAddress!, bytes.count, LWS_WRITE_BINARY)
            meters.relayed.add(.toOwner)
            meters.relayedBytes.add(.toOwner, UInt64(bytes.count))
            if link.link.wantsWrite() { lws_callback_on_writable(wsi) }
            return written ? 0 : -1
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            log.debug("\(link.id) to \(link.link.advertise) failed: \(LWS.errorText(input, length))")
            if let problem = shuffleboard_tls_verify_error(wsi) {
                untrusted(owner: link.owner, String(cString: problem))
            }
            link.endHow = link.endHow ?? .failed
            carryOut(link.link.handle(.lost), link)
            return nil
        case LWS_CALLBACK_CLIENT_CLOSED, LWS_CALLBACK_WSI_DESTROY:
            carryOut(link.link.handle(.lost), link)
            return nil
        default:
            return nil
        }
    }

    /// Carries out what a link's machine asks for.
    func carryOut(_ actions: [NodeLink.Action], _ link: LinkConnection) {
        let webSockets = clients
        for action in actions {
            switch action {
            case .requestWrite:
                if let wsi = link.wsi { lws_callback_on_writable(wsi) }
            case .deliver(let payload, let to):
                // One frame, shared by every client's queue (coalescing and bounds as on the owner).
                let frame = RelayedMessage.frame(payload)
                for id in to {
                    guard let connection = webSockets.connections[id], connection.upstream == .link(link.id) else {
                        continue
                    }
                    meters.relayed.add(.toClient)
                    meters.relayedBytes.add(.toClient, UInt64(payload.count))
                    webSockets.send(frame, to: connection)
                }
            case .deliverAll(let payload, let members, let except):
                let recipients = webSockets.deliver(RelayedMessage.frame(payload), to: members, except: except)
                meters.relayed.add(.toClient, UInt64(recipients))
                meters.relayedBytes.add(.toClient, UInt64(payload.count * recipients))
            case .closeClient(let id, let code, let reason):
                // It stays attached until its socket goes (`clientWent`): the owner hears it leave.
                guard let connection = webSockets.connections[id] else { continue }
                hub.handle(.transportCounted(.limit(.sendQueue)))
                clientLog.warning("\(id) from \(connection.peer) sends faster than its board's owner takes it; closing")
                connection.close(code: code, reason: reason)
            case .kill:
                // Killed while connecting: the handshake's deadline passed.
                if link.link.phase == .connecting { link.endHow = .timeout }
                if let wsi = link.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
            case .sendClose:
                // Only from a WRITEABLE, which handles it.
                break
            case .answered(let id):
                guard let connection = webSockets.connections[id], connection.upstream == .link(link.id) else {
                    continue
                }
                hub.handle(.forwardAnswered(id))
            case .ended(let id, let code, let answered, let unrelayed):
                guard let connection = webSockets.connections[id], connection.upstream == .link(link.id) else {
                    continue
                }
                connection.upstream = nil
                meters.forwardEnds.add(code != nil ? .closed : link.endHow ?? .closed)
                // It leaves the link's feed, keeping what it was sent: the hub has it from now on.
                connection.feed?.remove(connection, keepingPending: true)
                let messages = unrelayed.compactMap { try? ClientMessage.parse($0).get() }
                hub.handle(.forwardEnded(id, code: code, answered: answered, unrelayed: messages))
            }
        }
        if link.link.phase == .ended, links[link.id] != nil {
            links[link.id] = nil
            if linkByKey[link.key] == link.id { linkByKey[link.key] = nil }
            log.debug("\(link.id) to \(link.link.advertise) ended")
        }
    }
}
