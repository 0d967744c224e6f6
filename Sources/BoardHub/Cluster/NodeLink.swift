internal import Basics
package import BoardCore

/// A forwarding node's one connection to a board's owner for all its clients of that board
/// (`NodeLinkFrame` says the wire). Pure state: events in, actions out, the clock passed in; the
/// transport opens the WebSocket, writes what `nextWrite` gives, and carries the actions out.
///
/// - **Clients.** A client the hub forwards is attached with the hub's messages (its `hello` and
///   what followed it): an `open` frame, then one `message` frame each. What it sends later
///   follows as `message` frames; its going, as a `leave`.
/// - **From the owner.** A `message` or `close` goes to its client (a client's first message
///   is its answer: `Action.answered`; a close before any, a forward not answered); a `broadcast` to every
///   client that has joined (seen its `welcome`) but the one excepted; `some` to the clients it
///   names. Frames come in order on one connection, so each client sees the owner's order: its
///   welcome before any broadcast that counts it. A frame for a client that left is dropped; a
///   frame that does not decode, or that only a node sends, ends the link.
/// - **Bounds.** Per client, what waits to be written plus what was written before the owner
///   first answered it (kept for a retry) may not pass `limit`: over it the client is closed with
///   1008, as a per-client upstream would (`Upstream`). Each client keeps its own send queue on
///   the node, so the send bound and hover coalescing toward it hold as on the owner.
/// - **The end.** When the link fails or closes, every attached client ends as its own upstream
///   would have (`Action.ended`, for `Hub.forwardEnded`): one the owner answered is closed with
///   1012 by the hub and resumes with `since`; one it never answered is retried, with what it
///   sent. A link whose last client left, or was closed by the owner, closes (1000).
package final class NodeLink {
    /// The owner's `--advertise` address and the board.
    package let advertise: String
    package let board: BoardID
    /// By when the handshake must be done.
    package let deadline: Instant
    /// The most bytes held per client (see the type's comment).
    package let limit: Int

    /// Where the link's life is.
    package enum Phase: Equatable {
        /// The WebSocket is connecting (by `deadline`).
        case connecting
        /// The owner accepted it: frames flow.
        case established
        /// Its close (code) goes at the next WRITEABLE.
        case closing(code: UInt16, handedOver: Bool)
        /// Gone.
        case ended
    }

    /// What happens to a link.
    package enum Event: Equatable {
        /// The hub forwards a client: its address, Origin and the hub's messages (encoded).
        case attach(ConnectionID, address: String, origin: String?, messages: [[UInt8]])
        /// A complete message of an attached client.
        case fromClient(ConnectionID, [UInt8])
        /// An attached client went (its close code).
        case detach(ConnectionID, code: UInt16)
        /// The owner accepted the upgrade.
        case established
        /// A complete frame from the owner.
        case received([UInt8])
        /// A WRITEABLE began.
        case writeable
        /// A tick at `now`.
        case tick(Instant)
        /// The connection failed or closed.
        case lost
    }

    /// What the transport does.
    package enum Action: Equatable {
        /// Ask for a WRITEABLE: a frame waits (`nextWrite`).
        case requestWrite
        /// Send these bytes (a server message) to each of these clients, in order, through its own queue.
        case deliver([UInt8], to: [ConnectionID])
        /// Send these bytes to every client of the link that has joined (`members`, always the
        /// same set between joins and leaves) but `except`: the board's feed on this node.
        case deliverAll([UInt8], members: [ConnectionID], except: ConnectionID?)
        /// Close this client: it passed its bound (1008).
        case closeClient(ConnectionID, code: UInt16, reason: String)
        /// Kill the connection (a handshake past its deadline, or an owner that broke the protocol).
        case kill
        /// Hand this close to lws (return -1 from the WRITEABLE).
        case sendClose(code: UInt16)
        /// A client's forward ended — the owner closed it (its code), or the link went (nil) — as
        /// its own upstream's would have: tell the hub (`Event.forwardEnded`).
        case ended(ConnectionID, code: UInt16?, answered: Bool, unrelayed: [[UInt8]])
        /// The owner sent this client its first message: tell the hub (`Event.forwardAnswered`).
        case answered(ConnectionID)
    }

    private struct Client {
        let connection: ConnectionID
        /// The owner answered it (a message for it came): written messages need not be kept.
        var answered = false
        /// Its welcome came: broadcasts count it.
        var joined = false
        /// How many of the first messages came from the hub (it has them already).
        var fromHub: Int
        /// Messages not yet written, and (until answered) those written, oldest first.
        var kept: [[UInt8]] = []
        var keptBytes = 0
    }

    package private(set) var phase = Phase.connecting
    private var clients: [UInt32: Client] = [:]
    private var numbers: [ConnectionID: UInt32] = [:]
    private var nextNumber: UInt32 = 1
    /// Frames to write, each with the client (and its message's size) it carries, if one.
    private var queue = FIFO<(frame: [UInt8], client: UInt32?, size: Int)>()
    private var writeRequested = false

    /// A link to `advertise` for `board`, connecting until `deadline`.
    package init(advertise: String, board: BoardID, deadline: Instant, limit: Int) {
        self.advertise = advertise
        self.board = board
        self.deadline = deadline
        self.limit = limit
    }

    /// The clients attached, by connection.
    package var attached: [ConnectionID] { numbers.keys.sorted() }

    /// Every transition, and what the transport must do about it.
    package func handle(_ event: Event) -> [Action] {
        guard phase != .ended else { return [] }
        switch event {
        case .attach(let id, let address, let origin, let messages):
            return attach(id, address: address, origin: origin, messages: messages)
        case .fromClient(let id, let message):
            guard let number = numbers[id] else { return [] }
            return enqueue(message, for: number)
        case .detach(let id, let code):
            guard let number = numbers.removeValue(forKey: id) else { return [] }
            clients[number] = nil
            if clients.isEmpty {
                // Nobody left: the link goes (a connecting one is killed, and reports `.lost`).
                guard phase == .established else { return phase == .connecting ? [.kill] : [] }
                phase = .closing(code: 1000, handedOver: false)
                return wantWrite()
            }
            return queueFrame(.leave(client: number, code: code), client: nil, size: 0)
        case .established:
            guard phase == .connecting else { return [.kill] }
            phase = .established
            return wantWrite()
        case .received(let bytes):
            return received(bytes)
        case .writeable:
            writeRequested = false
            if case .closing(let code, false) = phase {
                phase = .closing(code: code, handedOver: true)
                return [.sendClose(code: code)]
            }
            return []
        case .tick(let now):
            return phase == .connecting && now >= deadline ? [.kill] : []
        case .lost:
            return end()
        }
    }

    /// The next frame to write, in order; nil when none waits. Written messages of a client the
    /// owner has not answered stay kept (for its retry); the others are let go.
    package func nextWrite() -> [UInt8]? {
        guard phase == .established, let next = queue.popFirst() else { return nil }
        if let number = next.client, let client = clients[number], client.answered {
            clients[number]?.keptBytes -= next.size
            if !client.kept.isEmpty { clients[number]?.kept.removeFirst() }
        }
        return next.frame
    }

    /// Whether a WRITEABLE should be asked for now; true once per request.
    package func wantsWrite() -> Bool {
        guard !writeRequested else { return false }
        switch phase {
        case .established where !queue.isEmpty, .closing(_, false): break
        default: return false
        }
        writeRequested = true
        return true
    }

    private func wantWrite() -> [Action] { wantsWrite() ? [.requestWrite] : [] }

    /// Whether a new client may be attached (a closing or ended link takes none: the transport opens another).
    package var accepting: Bool { phase == .connecting || phase == .established }

    private func attach(_ id: ConnectionID, address: String, origin: String?, messages: [[UInt8]]) -> [Action] {
        guard numbers[id] == nil, accepting else { return [] }
        let number = nextNumber
        nextNumber += 1
        numbers[id] = number
        clients[number] = Client(connection: id, fromHub: messages.count)
        var actions = queueFrame(.open(client: number, address: address, origin: origin), client: nil, size: 0)
        for message in messages { actions += enqueue(message, for: number) }
        return actions
    }

    /// Queues a client's message, or closes the client when it would pass its bound.
    private func enqueue(_ message: [UInt8], for number: UInt32) -> [Action] {
        guard let client = clients[number] else { return [] }
        guard client.keptBytes + message.count <= limit else {
            return [.closeClient(client.connection, code: 1008, reason: "sending faster than the board's owner takes")]
        }
        clients[number]?.kept.append(message)
        clients[number]?.keptBytes += message.count
        return queueFrame(.message(client: number, message), client: number, size: message.count)
    }

    private func queueFrame(_ frame: NodeLinkFrame, client: UInt32?, size: Int) -> [Action] {
        guard let bytes = frame.encoded() else { return [] }
        queue.append((bytes, client, size))
        return wantWrite()
    }

    /// A frame from the owner.
    private func received(_ bytes: [UInt8]) -> [Action] {
        guard phase == .established || isClosing, let frame = NodeLinkFrame.decode(bytes) else {
            return [.kill] + end()
        }
        switch frame {
        case .message(let number, let payload):
            guard var client = clients[number] else { return [] }
            var actions: [Action] = []
            if !client.answered {
                actions.append(.answered(client.connection))
                client.answered = true
                // What was written is the owner's now; what waits is still to be written.
                let waiting = queue.reduce(into: 0) { $0 += $1.client == number ? 1 : 0 }
                let written = client.kept.count - waiting
                client.keptBytes -= client.kept.prefix(written).reduce(0) { $0 + $1.count }
                client.kept.removeFirst(written)
            }
            if payload.starts(with: Self.welcome) { client.joined = true }
            clients[number] = client
            return actions + [.deliver(payload, to: [client.connection])]
        case .broadcast(let except, let payload):
            let members = clients.values.filter(\.joined).map(\.connection).sorted()
            let excepted = except.flatMap { clients[$0] }.map(\.connection)
            guard members.contains(where: { $0 != excepted }) else { return [] }
            return [.deliverAll(payload, members: members, except: excepted)]
        case .some(let numbers, let payload):
            let to = numbers.compactMap { clients[$0]?.connection }
            return to.isEmpty ? [] : [.deliver(payload, to: to)]
        case .close(let number, let code, let reason):
            guard let client = clients.removeValue(forKey: number) else { return [] }
            numbers[client.connection] = nil
            _ = reason  // The hub closes the client with the code, or with 1012 (`Cluster.isFinal`).
            // Closed before any answer (an owner that is not one any more sends the client back
            // with 1012): as an upstream's, a forward the hub may try again, with what was sent.
            let ended = Action.ended(
                client.connection, code: code, answered: client.answered,
                unrelayed: client.answered ? [] : Array(client.kept.dropFirst(client.fromHub)))
            // The owner closed the last client (a deleted board): the link goes, as at a last leave.
            guard clients.isEmpty, phase == .established else { return [ended] }
            phase = .closing(code: 1000, handedOver: false)
            return [ended] + wantWrite()
        case .open, .leave:
            return [.kill] + end()
        }
    }

    private var isClosing: Bool {
        if case .closing = phase { true } else { false }
    }

    /// The link is gone: each client's forward ends, oldest client first.
    private func end() -> [Action] {
        phase = .ended
        queue.removeAll()
        let ended = clients.sorted { $0.key < $1.key }.map { number, client in
            Action.ended(
                client.connection, code: nil, answered: client.answered,
                unrelayed: client.answered ? [] : Array(client.kept.dropFirst(client.fromHub)))
        }
        clients = [:]
        numbers = [:]
        return ended
    }

    /// How a server message that is a welcome starts (the owner writes `type` first).
    private static let welcome = Array(#"{"type":"welcome""#.utf8)
}
