internal import BoardAuth
internal import BoardCore

/// What `Sessions` decides (Sessions.swift), as values the hub carries out (Hub+Sessions.swift).
extension Sessions {
    /// What the hub does, in order.
    enum Action: Equatable {
        /// Send a message to a connection.
        case send(ConnectionID, ServerMessage)
        /// Send a final error, then close with `code` once it is out (`Hub.refuse`).
        case refuse(ConnectionID, ProtocolError, code: UInt16, reason: String)
        /// Close a connection (`Hub.closeSession`: it leaves its board and is deaf from then on).
        case close(ConnectionID, code: UInt16, reason: String, flush: Bool)
        /// A log line.
        case log(LogLevel, String)
        /// Count a refusal by a limit (`shuffleboard_limit_hits_total`).
        case limitHit(LimitName)
        /// Count a message refused by a rate (`shuffleboard_rate_limited_total`).
        case rateLimited(RateLimitedKind)
    }

    /// What a message received on a connection comes to.
    enum Received {
        /// Nothing (the connection is gone or closing, or forwarded: its messages are its owner's).
        case ignored
        /// Kept, in order, until the session is on its board (it is joining).
        case queued
        /// Answer the connection with this (a `pong`, an error), and nothing more.
        case answer(ServerMessage)
        /// It did not parse: the connection is told `error` (and the debug log says so).
        case malformed(ProtocolError)
        /// Carry these out (a rate limit, a queue over its limit).
        case act([Action])
        /// Its `hello`: the hub checks its token (`signIn` with the claims), then `beginJoin`.
        case hello(Session, Hello)
        /// `auth` with a new token from a session joining or on `board` (Hub+Tokens.swift).
        case auth(Session, token: String, board: BoardID)
        /// A message for the board the session is on, as `user`: the hub hands it to the room.
        case board(Session, ClientMessage, board: BoardID, user: UserID)
    }

    /// A `hello`, taken apart.
    struct Hello {
        var board: BoardID
        var name: String
        var since: Seq?
        var token: String?
        var member: MemberID?
        /// As it arrived (a forward sends it on to the board's owner).
        var message: ClientMessage
    }

    /// A joining session on its way onto a board (`seat`).
    enum Seating {
        /// It is not joining (any more): nothing happens.
        case notJoining
        /// Refused (the board is full): carry these out.
        case refused([Action])
        /// On the board as `user` now: the hub puts it there, then hands it what it sent meanwhile
        /// (`join.queued`), in order, while it stays on it.
        case joined(User, Session.Join)
    }
}

extension Sessions {
    /// A joining session whose board cannot be had: what it is told, and its close.
    func failJoin(_ id: ConnectionID, _ answer: BoardAbsence) -> [Action] {
        guard let board = joining(id)?.join.board else { return [] }
        switch answer {
        case .unknown:
            return [
                .refuse(
                    id, ProtocolError(.unknownBoard, "there is no board \(board)"), code: 4404, reason: "unknown board")
            ]
        case .unknownForViewer:
            return [
                .refuse(
                    id, ProtocolError(.unknownBoard, "there is no board \(board), and a view token cannot create one"),
                    code: 4404, reason: "unknown board")
            ]
        case .deleted:
            return [.close(id, code: 4410, reason: "board deleted", flush: true)]
        case .unavailable:
            return [
                .refuse(
                    id, ProtocolError(.unavailable, "board \(board) cannot be loaded right now"), code: 1011,
                    reason: "board unavailable")
            ]
        }
    }
}

/// Why a joining session does not get its board.
enum BoardAbsence {
    /// No such board, and boards are not created on hello.
    case unknown
    /// No such board, and the session may only view: viewing never creates a board.
    case unknownForViewer
    /// The board was deleted before the session was on it.
    case deleted
    /// The store failed.
    case unavailable
}

/// What a session keeps of its token, with access control.
final class SessionToken {
    /// When it expires, in seconds since 1970 (Hub+Tokens.swift).
    var expires: Int64
    /// Its id, for revocations (Hub+Revocations.swift); nil for a session let in without one.
    var id: String?
    /// Before `hello`: what a trusted proxy's headers said at the upgrade; after: the member a
    /// trusted proxy signed in, whose grants set the session's role (Hub+Proxy.swift).
    var proxy: ProxyAuth.Decision?

    init(expires: Int64, id: String?, proxy: ProxyAuth.Decision? = nil) {
        self.expires = expires
        self.id = id
        self.proxy = proxy
    }
}
