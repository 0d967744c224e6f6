/// The owner's side of one node link (`NodeLink` is the forwarding node's): the node's clients
/// become sessions of the owner's hub, each with a connection id of its own, so that every rule
/// the hub keeps per client — users per board, rates, tokens, holds — holds for them as for
/// direct clients. Pure state; the transport feeds it the link's frames and asks it how to send
/// the hub's actions over the link.
///
/// A broadcast goes over the link once, whatever the number of the node's clients it is for: as
/// `broadcast` when it is for every client of the link that has joined (but perhaps one), else as
/// `some` naming them.
package final class NodeLinkPeer {
    /// The most clients one link may open (a node's clients of one board; more is a violation).
    package let maxClients: Int

    /// What a frame from the node means to the hub.
    package enum Inbound: Equatable {
        /// A client starts, as a session with this id: its address and Origin.
        case opened(ConnectionID, address: String, origin: String?)
        /// A complete message of that session, as the client sent it (checked like a direct client's).
        case received(ConnectionID, [UInt8])
        /// The session's client went.
        case closed(ConnectionID)
        /// The node broke the protocol: close the link (1002), and every session of it.
        case violation(String)
    }

    private var sessions: [UInt32: ConnectionID] = [:]
    private var numbers: [ConnectionID: UInt32] = [:]
    private var joined: Set<UInt32> = []
    private var highest: UInt32 = 0

    /// A peer for a link that may open `maxClients` clients at once.
    package init(maxClients: Int) { self.maxClients = maxClients }

    /// The sessions of the link, by id.
    package var connections: [ConnectionID] { numbers.keys.sorted() }

    /// A frame from the node; `makeID` numbers a new session.
    package func received(_ bytes: [UInt8], makeID: () -> ConnectionID) -> Inbound? {
        guard let frame = NodeLinkFrame.decode(bytes) else { return .violation("a frame that does not decode") }
        switch frame {
        case .open(let number, let address, let origin):
            // Numbers only grow on a link: a reused one is a node out of step.
            guard number > highest else { return .violation("client \(number) opened twice or out of order") }
            guard sessions.count < maxClients else { return .violation("more than \(maxClients) clients") }
            highest = number
            let id = makeID()
            sessions[number] = id
            numbers[id] = number
            return .opened(id, address: address, origin: origin)
        case .message(let number, let payload):
            // A client the owner closed may still have sent something: not a violation.
            guard let id = sessions[number] else { return number <= highest ? nil : .violation("unknown client") }
            return .received(id, payload)
        case .leave(let number, _):
            guard let id = sessions.removeValue(forKey: number) else { return nil }
            numbers[id] = nil
            joined.remove(number)
            return .closed(id)
        case .broadcast, .some, .close:
            return .violation("a frame only an owner sends")
        }
    }

    /// The frame that sends `message` to one session of the link (nil when it is not one of
    /// them); a welcome makes broadcasts count the session from then on.
    package func send(_ message: [UInt8], to id: ConnectionID, isWelcome: Bool) -> [UInt8]? {
        guard let number = numbers[id] else { return nil }
        if isWelcome { joined.insert(number) }
        return NodeLinkFrame.message(client: number, message).encoded()
    }

    /// The one frame that sends a broadcast to the link's sessions among `recipients` (nil when
    /// none of them is this link's).
    package func broadcast(_ message: [UInt8], to recipients: [ConnectionID], except: ConnectionID?) -> [UInt8]? {
        // The hub's `except` is left out whether or not `recipients` name it.
        let excepted = except.flatMap { numbers[$0] }
        var mine = Set(recipients.compactMap { numbers[$0] })
        if let excepted { mine.remove(excepted) }
        guard !mine.isEmpty else { return nil }
        if mine == joined { return NodeLinkFrame.broadcast(except: nil, message).encoded() }
        if let excepted, mine.union([excepted]) == joined {
            return NodeLinkFrame.broadcast(except: excepted, message).encoded()
        }
        return NodeLinkFrame.some(clients: mine.sorted(), message).encoded()
    }

    /// The frame that closes a session (its client is told the code); the session is forgotten.
    package func close(_ id: ConnectionID, code: UInt16, reason: String) -> [UInt8]? {
        guard let number = numbers.removeValue(forKey: id) else { return nil }
        sessions[number] = nil
        joined.remove(number)
        // At most the close frame's limit, cut between characters.
        var bytes = Array(reason.utf8.prefix(NodeLinkFrame.maxReasonBytes))
        while !bytes.isEmpty, String(validating: bytes, as: UTF8.self) == nil { bytes.removeLast() }
        let reason = String(decoding: bytes, as: UTF8.self)
        return NodeLinkFrame.close(client: number, code: code, reason: reason).encoded()
    }

    /// The link is gone: every session of it, which the hub closes.
    package func lost() -> [ConnectionID] {
        defer {
            sessions = [:]
            numbers = [:]
            joined = []
        }
        return connections
    }
}
