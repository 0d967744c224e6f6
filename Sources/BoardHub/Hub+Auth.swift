internal import BoardAuth
internal import BoardCore

/// Access control, as far as sessions go: with `Config.auth` set, `hello` must carry a token for
/// its board (checked by `Access`, Access.swift), and a `view` token may only watch. The API
/// wants `Authorization: Bearer TOKEN` (view to read a board, admin to create or delete:
/// `Access.authorize`). Without it everyone may do everything, as before.
extension Hub {
    /// The claims of `token` for `board`, or nil after refusing the session with 4401.
    func authorize(_ session: Session, token: String?, board: BoardID) -> Claims? {
        switch proxySignIn(session, board: board) {  // Hub+Proxy.swift
        case .claims(let claims): return claims
        case .refused: return nil
        case .none: break
        }
        switch access.check(token, board: board, via: .hello) {
        case .success(let claims): return claims
        case .failure(let refusal):
            log(.warning, "\(session.id) from \(session.peer): hello for board \(board) refused: \(refusal.why)")
            refuse(
                session.id, ProtocolError(.unauthorized, "a valid token for board \(board) is needed"), code: 4401,
                reason: "unauthorized")
            return nil
        }
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

    /// The claims of an API request: a trusted proxy's user (Hub+Proxy.swift), else its bearer
    /// token's (`Access.authorize`); nil after answering 401.
    func authorize(_ request: HTTPRequest, exchange: ExchangeID) -> Claims? {
        switch proxySignIn(request, exchange: exchange) {
        case .claims(let claims): return claims
        case .refused: return nil
        case .none: return access.authorize(request, exchange: exchange)
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
