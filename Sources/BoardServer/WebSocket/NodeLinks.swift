internal import BoardCore
internal import BoardHub

/// The owner's side of node links (docs/cluster.md#the-node-link---node-links): a WebSocket on `/node.v1`
/// from another node, admitted only with the cluster key, whose clients become sessions of the
/// hub (`NodeLinkPeer`). The hub's sends, broadcasts and closes for those sessions go over the
/// link as frames, each broadcast once per link. Confined to the service thread.
final class NodeLinks {
    /// The path a link is opened on; the version is in it.
    static let path = "/node.v1"
    /// The context's own lws protocol a forwarding node's links bind to (Server.swift).
    static let localProtocol = "shuffleboard-node-link"

    /// Each link's peer, by the link connection's id.
    var peers: [ConnectionID: NodeLinkPeer] = [:]
    /// The link of each session that came over one.
    var linkOf: [ConnectionID: ConnectionID] = [:]
    /// The node each link comes from, as its `x-shuffleboard-node` header names it.
    var nodeOf: [ConnectionID: String] = [:]

    /// How many links each node holds (one per board it forwards clients of), for `/metrics`.
    var linksByNode: [String: Int] {
        nodeOf.values.reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// No link is open.
    var isEmpty: Bool { peers.isEmpty }

    /// What a link's send queue may hold: the output of many clients, so many clients' worth.
    static func sendBound(_ config: ServerConfig) -> Int { config.maxPendingBytes * 16 }

    /// The largest frame a node sends: a client message with its header, or an `open`.
    static func maxFrameBytes(_ config: ServerConfig) -> Int {
        config.maxMessageBytes + 5 + 1 + NodeLinkFrame.maxAddressBytes + NodeLinkFrame.maxOriginBytes
    }

    /// The most clients one link may have open at once.
    static let maxClientsPerLink = 100_000
}

extension WebSockets {
    /// A node's link was accepted.
    func linkOpened(_ connection: Connection) {
        let id = ConnectionID(connection.id)
        nodeLinks.peers[id] = NodeLinkPeer(maxClients: NodeLinks.maxClientsPerLink)
        let node = keys.linkNodeName(connection.wsi) ?? "?"
        nodeLinks.nodeOf[id] = node
        log.info("node link \(id) from node \(node) at \(connection.peer) opened")
    }

    /// A link is gone: every session of it closes.
    func linkClosed(_ connection: Connection) {
        nodeLinks.nodeOf[ConnectionID(connection.id)] = nil
        guard let peer = nodeLinks.peers.removeValue(forKey: ConnectionID(connection.id)) else { return }
        let sessions = peer.lost()
        log.info("node link \(connection.id) from \(connection.peer) closed with \(sessions.count) client(s)")
        for id in sessions {
            nodeLinks.linkOf[id] = nil
            port.handle(.closed(id))
        }
    }

    /// A complete frame from a node.
    func linkReceived(_ bytes: [UInt8], on connection: Connection) {
        let linkID = ConnectionID(connection.id)
        guard let peer = nodeLinks.peers[linkID], connection.closeRequest == nil else { return }
        switch peer.received(bytes, makeID: { ConnectionID(port.makeID()) }) {
        case nil:
            return
        case .opened(let id, let address, let origin):
            nodeLinks.linkOf[id] = linkID
            guard config.hub.origins.allowsUpgrade(from: origin) else {
                clientLog.warning("\(id) over node link \(linkID): origin \(origin ?? "none") is not allowed")
                return closeOverLink(id, code: 1008, reason: "origin not allowed", tellHub: false)
            }
            let peerAddress = Relay.isAddress(address) ? address : connection.address
            port.handle(.opened(id, peer: peerAddress, relayed: true))
        case .received(let id, let payload):
            guard payload.count <= config.maxMessageBytes else {
                port.handle(.transportCounted(.limit(.messageSize)))
                return closeOverLink(id, code: 1009, reason: "message too large")
            }
            guard String(validating: payload, as: UTF8.self) != nil else {
                return closeOverLink(id, code: 1007, reason: "not UTF-8")
            }
            let parsed = ClientMessage.parse(payload)
            let type = ClientMessageType(parsed)
            meters.received.add(type)
            meters.receivedBytes.add(type, UInt64(payload.count))
            port.handle(.received(id, parsed))
        case .closed(let id):
            nodeLinks.linkOf[id] = nil
            port.handle(.closed(id))
        case .violation(let why):
            clientLog.warning(
                "node link \(linkID) from \(connection.peer) broke the protocol: \(why); closing with 1002")
            connection.close(code: 1002, reason: "node link protocol")
        }
    }

    /// The hub's `send` to a session over a link.
    func sendOverLink(_ message: ServerMessage, to id: ConnectionID) {
        guard let linkID = nodeLinks.linkOf[id], let peer = nodeLinks.peers[linkID],
            let link = connections[linkID]
        else { return }
        let isWelcome = if case .welcome = message { true } else { false }
        guard let bytes = peer.send(message.encoded(), to: id, isWelcome: isWelcome) else { return }
        let frame = Frame(payload: bytes, binary: true)
        meters.sent(message, bytes: frame.count, recipients: 1)
        send(frame, to: link)
    }

    /// The hub's `broadcast`, for the members that came over links: one frame per link. Returns
    /// how many links it went to.
    func broadcastOverLinks(_ message: ServerMessage, frame: Frame, to members: [ConnectionID], except: ConnectionID?)
        -> Int
    {
        var links = 0
        let payload = Array(frame.payload)
        for (linkID, peer) in nodeLinks.peers {
            guard let link = connections[linkID], let bytes = peer.broadcast(payload, to: members, except: except)
            else { continue }
            // A broadcast to all of a link's clients is one a newer hover of the same hand may replace.
            let whole = bytes.first == UInt8(ascii: "B")
            send(
                Frame(payload: bytes, binary: true, hand: whole ? frame.hand : nil, isHover: whole && frame.isHover),
                to: link)
            links += 1
        }
        return links
    }

    /// The hub's `close` of a session over a link: a `close` frame, after what was queued for it;
    /// the hub hears the session closed, as when a socket goes.
    func closeOverLink(_ id: ConnectionID, code: UInt16, reason: String, tellHub: Bool = true) {
        guard let linkID = nodeLinks.linkOf.removeValue(forKey: id), let peer = nodeLinks.peers[linkID] else { return }
        if let bytes = peer.close(id, code: code, reason: reason), let link = connections[linkID] {
            send(Frame(payload: bytes, binary: true), to: link)
        }
        if tellHub { port.handle(.closed(id)) }
    }
}
