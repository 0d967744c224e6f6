internal import BoardAuth
internal import BoardCore

/// Sign-in through a trusted proxy (`Config.proxy`, with `Config.auth`; BoardAuth's
/// ProxySignIn.swift has the decision). A request whose socket comes from one of the proxy's
/// networks and carries its user header is that member: on a WebSocket, `hello` needs no token,
/// the session's name is the proxy's and its role is the member's grant on the board, else the
/// proxy's default role; on the API, the member has that role on each board. From anywhere
/// else the header is ignored, and a request stands on its token as always; from the proxy
/// without the header too (401 without a token). A header from the proxy that is no member id
/// gets 401 (4401 on a WebSocket) and a log line that never quotes it.
extension Hub {
    /// What the proxy's headers made of a request.
    enum ProxyOutcome {
        /// The member the proxy named, as claims.
        case claims(Claims)
        /// Refused (answered already).
        case refused
        /// Not a proxy sign-in: the request's token decides.
        case none
    }

    /// At the upgrade: the decision is kept on the session until its `hello`.
    func proxyOpened(_ session: Session, _ headers: ProxyHeaders) {
        guard let proxy = config.proxy, config.auth != nil else { return }
        let decision = proxy.decide(peer: headers.socketPeer, user: headers.user, name: headers.name)
        switch decision {
        case .ignored, .missing: return
        case .user(let user):
            log(.debug, "\(session.id) from \(session.peer): signed in by the proxy as \(user.member)")
        case .invalid(let why):
            log(.warning, "\(session.id) from \(session.peer): \(why)")
        }
        sessions.keepProxy(decision, for: session)
    }

    /// At `hello`: the proxy user's claims on `board`, or a refusal (4401), or none.
    func proxySignIn(_ session: Session, board: BoardID) -> ProxyOutcome {
        switch session.token?.proxy {
        case .user(let user)?: return .claims(proxyClaims(user, on: board))
        case .invalid?:
            meters.authFailures.add(AuthFailure(.hello, .proxyHeader))
            refuse(
                session.id, ProtocolError(.unauthorized, "the sign-in proxy named no valid user"), code: 4401,
                reason: "unauthorized")
            return .refused
        case .ignored?, .missing?, nil: return .none
        }
    }

    /// An API request: the proxy user's claims (every board, each with its grant), or a refusal
    /// (401, answered), or none.
    func proxySignIn(_ request: HTTPRequest, exchange: ExchangeID) -> ProxyOutcome {
        guard let proxy = config.proxy, let headers = request.proxy else { return .none }
        switch proxy.decide(peer: headers.socketPeer, user: headers.user, name: headers.name) {
        case .ignored, .missing: return .none
        case .user(let user):
            var claims = Claims(board: nil, role: proxy.role, expires: .max, name: user.name, member: user.member)
            claims.grants = access.roles(of: user.member)
            claims.viaProxy = true
            return .claims(claims)
        case .invalid(let why):
            meters.authFailures.add(AuthFailure(.api, .proxyHeader))
            log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer): \(why)")
            emit(.respond(exchange, Self.unauthorized("the sign-in proxy named no valid user")))
            return .refused
        }
    }

    /// The claims of a proxy user on one board: its grant there, else the proxy's role.
    func proxyClaims(_ user: ProxyUser, on board: BoardID) -> Claims {
        var claims = Claims(
            board: board, role: access.proxyRole(of: user.member, on: board), expires: .max, name: user.name,
            member: user.member)
        claims.viaProxy = true
        return claims
    }

    /// `GET /api/me?board=ID`: who the server takes the sender for, so that a page behind the
    /// sign-in proxy knows its person without a token: `{"via":"proxy"|"token"|"open", "member",
    /// "name", "role"}` (the role on `board`, when given; else the default one). 401 like any
    /// API request without a valid token.
    func meRequest(_ request: HTTPRequest, exchange: ExchangeID) {
        var board: BoardID?
        if let text = request.query["board"] {
            guard let id = BoardID(text) else {
                return emit(.respond(exchange, .error(400, "bad_request", "board must be a board id")))
            }
            board = id
        }
        guard let claims = authorize(request, exchange: exchange) else { return }
        if let board, !claims.allow(.view, on: board) {
            return emit(.respond(exchange, Self.forbidden("access to board \(board)")))
        }
        let via = config.auth == nil ? "open" : claims.viaProxy ? "proxy" : "token"
        emit(
            .respond(
                exchange,
                .json(200) { w in
                    w.beginObject()
                    w.write("via", via)
                    w.write("member", claims.member?.rawValue)
                    w.write("name", claims.name)
                    w.write("role", (board.map { claims.role(on: $0) } ?? claims.role).rawValue)
                    w.endObject()
                }))
    }
}

/// In a cluster, a proxy user's session or REST op that this node relays to a board's owner:
/// the owner did not see the proxy's headers (it sees this node), so what is relayed carries a
/// token minted here for the member, its role on the board and its name. A relayed session's
/// token outlives any session (`relayedSessionLife`); its client never sees it. A grant change
/// closes the member's relayed sessions on the board with 1012, and their clients join again
/// under a fresh token with the new role (Hub+Grants.swift, `regrant`).
extension Hub {
    /// How long the token of a relayed proxy session lasts, in seconds.
    static let relayedSessionLife: Int64 = 30 * 86_400
    /// How long the token of a relayed proxy REST request lasts, in seconds.
    static let relayedRequestLife: Int64 = 300

    /// `hello` as the owner gets it: with a token for the session's proxy user, if it is one.
    func relayable(_ hello: ClientMessage, for session: Session) -> ClientMessage {
        guard let auth = config.auth, case .user(let user)? = session.token?.proxy,
            case .hello(let board, let name, let since, _, let member) = hello
        else { return hello }
        let claims = Claims(
            board: board, role: access.proxyRole(of: user.member, on: board),
            expires: wall.milliseconds / 1000 + Self.relayedSessionLife, name: user.name, member: user.member)
        return .hello(board: board, name: name, since: since, token: auth.mint(claims), member: member)
    }

    /// A REST request as the owner gets it: a proxy user's with a token of theirs for `board`.
    func relayable(_ request: HTTPRequest, board: BoardID) -> HTTPRequest {
        guard let auth = config.auth, let proxy = config.proxy, let headers = request.proxy,
            case .user(let user) = proxy.decide(peer: headers.socketPeer, user: headers.user, name: headers.name)
        else { return request }
        var relayed = request
        let claims = Claims(
            board: board, role: access.proxyRole(of: user.member, on: board),
            expires: wall.milliseconds / 1000 + Self.relayedRequestLife, name: user.name, member: user.member)
        relayed.authorization = "Bearer " + auth.mint(claims)
        relayed.proxy = nil
        return relayed
    }
}
