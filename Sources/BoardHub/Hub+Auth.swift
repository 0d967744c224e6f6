internal import BoardAuth
internal import BoardCore

/// Access control: with `Config.auth` set, `hello` must carry a token for its board, a `view`
/// token may only watch, and the API wants `Authorization: Bearer TOKEN` (view to read a board,
/// admin to create or delete). Without it everyone may do everything, as before.
extension Hub {
    /// What a connection without a token may do when auth is off: everything.
    static let everything = Claims(board: nil, role: .admin, expires: .max)

    /// The claims of `token` for `board`, or nil after refusing the session with 4401.
    func authorize(_ session: Session, token: String?, board: BoardID) -> Claims? {
        guard let auth = config.auth else { return Self.everything }
        switch proxySignIn(session, board: board) {
        case .claims(let claims): return claims
        case .refused: return nil
        case .none: break
        }
        let why: String
        if let token {
            switch auth.verify(token, now: wall.milliseconds / 1000) {
            case .success where isRevoked(token):
                why = "a revoked token"
                meters.authFailures.add(AuthFailure(.hello, .revoked))
            case .success(let claims) where claims.allow(.view, on: board): return claims
            case .success:
                why = "a token for another board"
                meters.authFailures.add(AuthFailure(.hello, .otherBoard))
            case .failure(let problem):
                why = problem.description
                meters.authFailures.add(AuthFailure(.hello, AuthFailure.Reason(problem)))
            }
        } else {
            why = "no token"
            meters.authFailures.add(AuthFailure(.hello, .missing))
        }
        log(.warning, "\(session.id) from \(session.peer): hello for board \(board) refused: \(why)")
        refuse(
            session.id, ProtocolError(.unauthorized, "a valid token for board \(board) is needed"), code: 4401,
            reason: "unauthorized")
        return nil
    }

    /// Whether `session` may send `message` on its board; a `view` session's drag and op
    /// messages are rejected with `forbidden` (answered here).
    func permits(_ session: Session, _ message: ClientMessage, on host: BoardHost) -> Bool {
        guard session.role < .edit else { return true }
        let seq = host.room.visibleSeq
        let rejection: Rejection
        switch message {
        case .op(let request): rejection = Rejection(.forbidden, opID: request.opID)
        case .dragStart(let item, _), .hover(let item, _, _, _, _): rejection = Rejection(.forbidden, item: item)
        case .drop(let item, let action): rejection = Rejection(.forbidden, opID: action?.opID, item: item)
        case .hello, .ping, .auth: return true
        }
        send(.reject(rejection, seq: seq), to: session.id)
        return false
    }

    /// The claims of an API request's bearer token, or nil after answering 401.
    func authorize(_ request: HTTPRequest, exchange: ExchangeID) -> Claims? {
        guard let auth = config.auth else { return Self.everything }
        switch proxySignIn(request, exchange: exchange) {
        case .claims(let claims): return claims
        case .refused: return nil
        case .none: break
        }
        guard let header = request.authorization, header.count > 7, header.lowercased().hasPrefix("bearer ") else {
            meters.authFailures.add(AuthFailure(.api, .missing))
            emit(.respond(exchange, Self.unauthorized("this server needs Authorization: Bearer TOKEN")))
            return nil
        }
        let token = String(header.dropFirst(7)).trimmingWhitespace()
        switch auth.verify(token, now: wall.milliseconds / 1000) {
        case .success where isRevoked(token):
            meters.authFailures.add(AuthFailure(.api, .revoked))
            log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer): a revoked token")
            emit(.respond(exchange, Self.unauthorized("the token has been revoked")))
            return nil
        case .success(let claims): return claims
        case .failure(let problem):
            meters.authFailures.add(AuthFailure(.api, AuthFailure.Reason(problem)))
            log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer): \(problem)")
            emit(.respond(exchange, Self.unauthorized("the token is not valid")))
            return nil
        }
    }

    static func unauthorized(_ message: String) -> HTTPResponse {
        var response = HTTPResponse.error(401, "unauthorized", message)
        response.headers.append(HTTPResponse.Header("www-authenticate:", "Bearer"))
        return response
    }

    static func forbidden(_ what: String) -> HTTPResponse {
        .error(403, "forbidden", "the token does not allow \(what)")
    }
}

extension AuthFailure.Reason {
    /// The reason for a token the authority refused.
    init(_ problem: TokenProblem) {
        switch problem {
        case .malformed: self = .malformed
        case .forged: self = .forged
        case .expired: self = .expired
        }
    }
}
