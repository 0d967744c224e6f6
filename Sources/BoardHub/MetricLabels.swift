package import BoardCore
internal import BoardMetrics

// The label values of the server's metrics: every one an enum of the server's own (or a board id
// for the top boards only), so that nothing a client sends can make a new series.

/// A client message's `type`, or `invalid` for one that did not parse (whatever its `type` said).
package enum ClientMessageType: String, MetricLabels, CaseIterable {
    case hello, swap, move, toggle, add, edit, remove, addZone, editZone, removeZone, retitle, restore, tag, assign,
        addTag, editTag, removeTag, addCheck, editCheck, removeCheck, comment, editComment, removeComment, moveMany,
        archive, unarchive, dragStart, hover, drop, ping, auth, invalid

    /// `type`.
    package static let names = ["type"]

    /// The type of a parsed message, or `invalid`.
    package init(_ parsed: Result<ClientMessage, ProtocolError>) {
        switch parsed {
        case .failure: self = .invalid
        case .success(.hello): self = .hello
        case .success(.op(let request)): self = ClientMessageType(request.op)
        case .success(.dragStart): self = .dragStart
        case .success(.hover): self = .hover
        case .success(.drop): self = .drop
        case .success(.ping): self = .ping
        case .success(.auth): self = .auth
        }
    }

    private init(_ op: Op) { self = Self.byKind[op.opKind.index] }

    /// The type of each op kind, by `Op.Kind.index`: the same names (built once, so that counting
    /// an op's message looks up no name).
    private static let byKind = Op.Kind.allCases.map { ClientMessageType(rawValue: $0.rawValue)! }
}

/// A server message's `type`.
package enum ServerMessageType: String, MetricLabels, CaseIterable {
    case welcome, join, leave, swap, move, toggle, add, edit, remove, addZone, editZone, removeZone, retitle, restore,
        tag, assign, addTag, editTag, removeTag, addCheck, editCheck, removeCheck, comment, editComment, removeComment,
        moveMany, archive, unarchive, ack, reject, dragStart, hover, drop, error, pong, presence, auth,
        notice

    /// `type`.
    package static let names = ["type"]

    /// The type of `message`.
    package init(_ message: ServerMessage) {
        switch message {
        case .welcome: self = .welcome
        case .join: self = .join
        case .leave: self = .leave
        case .committed(let op): self = Self.byKind[op.op.opKind.index]
        case .ack: self = .ack
        case .reject: self = .reject
        case .dragStart: self = .dragStart
        case .hover: self = .hover
        case .drop: self = .drop
        case .error: self = .error
        case .pong: self = .pong
        case .presence: self = .presence
        case .auth: self = .auth
        case .notice: self = .notice
        }
    }

    /// The type of each op kind, by `Op.Kind.index` (as `ClientMessageType.byKind`).
    private static let byKind = Op.Kind.allCases.map { ServerMessageType(rawValue: $0.rawValue)! }
}

/// A committed op's kind.
package enum OpType: String, MetricLabels, CaseIterable {
    case swap, move, toggle, add, edit, remove, addZone, editZone, removeZone, retitle, restore, tag, assign, addTag,
        editTag, removeTag, addCheck, editCheck, removeCheck, comment, editComment, removeComment, moveMany, archive,
        unarchive

    /// `type`.
    package static let names = ["type"]

    /// The kind of `op`: its wire name (`Op.kind`), one of these cases.
    package init(_ op: Op) { self = Self.byKind[op.opKind.index] }

    /// Each op kind's case, by `Op.Kind.index` (as `ClientMessageType.byKind`).
    private static let byKind = Op.Kind.allCases.map { OpType(rawValue: $0.rawValue)! }
}

extension RejectReason: MetricLabels {
    /// `reason`.
    package static let names = ["reason"]
}

extension ProtocolError.Code: MetricLabels {
    /// `code`.
    package static let names = ["code"]
}

/// What a `rate_limited` refusal refused.
package enum RateLimitedKind: String, MetricLabels, CaseIterable {
    /// An op (or a drop with an action), over `--op-rate`.
    case op
    /// Any other message, over `--message-rate`.
    case message

    /// `kind`.
    package static let names = ["kind"]
}

/// Why a connection was closed before it became a WebSocket or sent a request (SocketGate.swift).
package enum SocketRefusal: String, MetricLabels, CaseIterable {
    /// At accept: its address had `--max-connections-per-address` connections of any kind.
    case connectionsPerAddress = "connections_per_address"
    /// At accept: its address had `--max-pending-per-address` connections not yet upgraded.
    case pendingPerAddress = "pending_per_address"
    /// It sent no byte within `--first-byte-timeout` of its accept (counted by the transport).
    case firstByteTimeout = "first_byte_timeout"
    /// At accept: the process had (nearly) every descriptor it may open open (counted by the
    /// transport, which keeps a reserve for the store, the log and the listener: `FileLimit`).
    case fileLimit = "fd_limit"

    /// `reason`.
    package static let names = ["reason"]
}

/// A limit that refused a client: each is a flag (see the README's Limits table).
package enum LimitName: String, MetricLabels, CaseIterable {
    /// `--max-connections-per-address` (4429).
    case connectionsPerAddress = "connections_per_address"
    /// `--connect-rate` (4429).
    case connectRate = "connect_rate"
    /// `--board-creations` (4429).
    case boardCreations = "board_creations"
    /// `--max-users-per-board` (`board_full`, 4409).
    case usersPerBoard = "users_per_board"
    /// `--max-boards` (`unavailable`, 1013).
    case boardsInMemory = "boards_in_memory"
    /// Messages queued while a board loads (1008).
    case joiningQueue = "joining_queue"
    /// In a cluster: no answer for a `hello` within four leases and two forward timeouts (1013).
    case joinDeadline = "join_deadline"
    /// Kept going over `--op-rate`/`--message-rate` (1008).
    case rateStrikes = "rate_strikes"
    /// `--hello-timeout` (4408).
    case helloTimeout = "hello_timeout"
    /// `--max-message-bytes` (1009), counted by the transport.
    case messageSize = "message_size"
    /// `--max-pending-bytes` (1008), counted by the transport.
    case sendQueue = "send_queue"
    /// `--max-http-answer-bytes` (503 `busy`), counted by the transport.
    case httpAnswers = "http_answers"
    /// Revoked tokens in force (`POST /api/revocations` gets 507).
    case revocations
    /// Live share links of one board (`POST /api/boards/{id}/links` gets 507).
    case shareLinks = "share_links"
    /// A member's role on a board past `GrantTable.maximumPerBoard` or `.maximum` (507).
    case grants
    /// Webhooks of one board (`POST /api/boards/{id}/webhooks` gets 507).
    case webhooks
    /// `--max-unstored-ops`: a board's ops waiting for a failing store (`unavailable`).
    case unstoredOps = "unstored_ops"
    /// `--max-streams` (503 `busy` for an event stream).
    case streams
    /// `--max-streams-per-address` (429 for an event stream).
    case streamsPerAddress = "streams_per_address"
    /// REST ops relayed to their boards' owners, waiting at once (503 `elsewhere`).
    case httpForwards = "http_forwards"
    /// `--max-history-reads` (503 `busy` for `?at=` or `/history`).
    case historyReads = "history_reads"
    /// `--max-history-reads-per-address` (429 for `?at=` or `/history`).
    case historyReadsPerAddress = "history_reads_per_address"

    /// `limit`.
    package static let names = ["limit"]
}

/// A refused credential: where it was presented and what was wrong with it.
package struct AuthFailure: MetricLabels {
    /// Where.
    package enum Via: String, CaseIterable, Sendable {
        /// `hello` on a WebSocket.
        case hello
        /// `auth` (a fresh token) on a WebSocket.
        case auth
        /// The HTTP API's bearer token.
        case api
        /// `/metrics`' bearer token (`--metrics-token`).
        case metrics
    }

    /// What was wrong.
    package enum Reason: String, CaseIterable, Sendable {
        /// No token.
        case missing
        /// Not a token.
        case malformed
        /// A bad signature (or, for `/metrics`, not the token).
        case forged
        /// Expired.
        case expired
        /// A valid token for another board.
        case otherBoard = "other_board"
        /// A token revoked through `POST /api/revocations` (or `shuffleboard revoke`).
        case revoked
        /// From a trusted proxy's address, a user header that is not a member id (or a name
        /// header that is not a name): `--auth-proxy-header`.
        case proxyHeader = "proxy_header"
    }

    /// Where.
    package var via: Via
    /// What was wrong.
    package var reason: Reason

    /// A failure.
    package init(_ via: Via, _ reason: Reason) {
        self.via = via
        self.reason = reason
    }

    /// `via`, `reason`.
    package static let names = ["via", "reason"]
    /// The combinations that can happen.
    package static let initial: [AuthFailure] =
        [.hello, .auth, .api].flatMap { via in Reason.allCases.map { AuthFailure(via, $0) } }
        + [AuthFailure(.metrics, .missing), AuthFailure(.metrics, .forged)]
    /// The values.
    package var values: [String] { [via.rawValue, reason.rawValue] }
}

/// How a drag hold ended.
package enum HoldEnd: String, MetricLabels, CaseIterable {
    /// Its holder dropped it (or lifted another item).
    case dropped
    /// Its holder's connection closed.
    case left
    /// No hover or drop within `--hold-timeout`, or older than `--hold-lifetime`.
    case expired

    /// `end`.
    package static let names = ["end"]
}

/// A board, for the top-boards gauge only (at most `--metrics-top-boards` series).
package struct BoardLabel: MetricLabels {
    /// The board.
    package var board: BoardID
    /// A label.
    package init(_ board: BoardID) { self.board = board }
    /// `board`.
    package static let names = ["board"]
    /// None until boards have users.
    package static let initial: [BoardLabel] = []
    /// The id.
    package var values: [String] { [board.rawValue] }
}
