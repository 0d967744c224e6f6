internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// Access: who may do what, by token. With `Config.auth` set, `hello` must carry a token for
/// its board, `auth` may replace it, and the API wants `Authorization: Bearer TOKEN`; a revoked
/// token is refused wherever a token is checked. Without it everyone may do everything.
///
/// Revocation: `POST /api/revocations {"token": T}` (an `admin` bearer token for T's board, or
/// `*` for a `*` token) stores T's id in the store, which keeps it until T would have expired
/// anyway. Every node reloads the store's revocations every second
/// (`RevocationList.reloadEvery`), so a revocation made on one node, or by `shuffleboard revoke`
/// without the API, reaches every node within about a second and survives restarts.
/// `GET /api/revocations` lists them: all for a `*` admin, a board's for its admin.
///
/// Grants: members' roles on boards, for people a trusted proxy signs in (`GrantTable`; the API
/// and what a change does to sessions are Hub+Grants.swift's). In a cluster they are reloaded
/// every second, as revocations are.
///
/// The part owns the revocation list, the grants and the token checks; the hub routes the API's
/// requests, the reloads' answers and the tick here, and closes the sessions and streams whose
/// token is revoked when the list changes (Hub+Revocations.swift). Its actions: `respond` (401,
/// the revocations API) and log lines; the store reads it wants (a reload, a revocation's write)
/// come back as values, which the hub asks for (it holds no other part).
/// Confined to the service thread (with the hub).
final class Access {
    /// Revoked tokens, as last loaded from the store, and those made here since.
    private(set) var revocations: RevocationList
    /// Members' roles on boards: the store's at start, this node's changes, a cluster's reloads.
    private var grants: GrantTable
    private let config: Hub.Config
    private let turn: Turn
    private var meters: HubMeters { turn.meters }
    private var nowSeconds: Int64 { turn.wall.milliseconds / 1000 }

    init(config: Hub.Config, turn: Turn) {
        self.config = config
        self.turn = turn
        revocations = RevocationList(config.revoked)
        grants = GrantTable(config.grants)
    }

    /// What a connection without a token may do when auth is off: everything.
    static let everything = Claims(board: nil, role: .admin, expires: .max)

    /// Why a token is not taken (a log line's words; the failure is counted already).
    struct Refusal: Error {
        let why: String
    }

    // MARK: Tokens

    /// The claims of `token` for viewing `board` (everything without access control), or why
    /// not, counted as a failure of `via`.
    func check(_ token: String?, board: BoardID, via: AuthFailure.Via) -> Result<Claims, Refusal> {
        guard let auth = config.auth else { return .success(Self.everything) }
        guard let token else {
            meters.authFailures.add(AuthFailure(via, .missing))
            return .failure(Refusal(why: "no token"))
        }
        switch auth.verify(token, now: nowSeconds) {
        case .success where isRevoked(token):
            meters.authFailures.add(AuthFailure(via, .revoked))
            return .failure(Refusal(why: "a revoked token"))
        case .success(let claims) where claims.allow(.view, on: board):
            return .success(claims)
        case .success:
            meters.authFailures.add(AuthFailure(via, .otherBoard))
            return .failure(Refusal(why: "a token for another board"))
        case .failure(let problem):
            meters.authFailures.add(AuthFailure(via, AuthFailure.Reason(problem)))
            return .failure(Refusal(why: problem.description))
        }
    }

    /// The claims of an API request's bearer token, or nil after answering 401.
    func authorize(_ request: HTTPRequest, exchange: ExchangeID) -> Claims? {
        guard let auth = config.auth else { return Self.everything }
        guard let header = request.authorization, header.count > 7, header.lowercased().hasPrefix("bearer ") else {
            meters.authFailures.add(AuthFailure(.api, .missing))
            turn.emit(.respond(exchange, Hub.unauthorized("this server needs Authorization: Bearer TOKEN")))
            return nil
        }
        let token = String(header.dropFirst(7)).trimmingWhitespace()
        switch auth.verify(token, now: nowSeconds) {
        case .success where isRevoked(token):
            meters.authFailures.add(AuthFailure(.api, .revoked))
            turn.log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer): a revoked token")
            turn.emit(.respond(exchange, Hub.unauthorized("the token has been revoked")))
            return nil
        case .success(let claims): return claims
        case .failure(let problem):
            meters.authFailures.add(AuthFailure(.api, AuthFailure.Reason(problem)))
            turn.log(.warning, "\(request.method.rawValue) \(request.path) from \(request.peer): \(problem)")
            turn.emit(.respond(exchange, Hub.unauthorized("the token is not valid")))
            return nil
        }
    }

    // MARK: Revocations

    /// Whether `token` has been revoked (as far as this node has loaded).
    func isRevoked(_ token: String) -> Bool {
        !revocations.inForce.isEmpty && isRevoked(id: TokenAuthority.revocationID(of: token))
    }

    /// Whether the token whose revocation id is `id` has been revoked.
    func isRevoked(id: String) -> Bool { revocations.inForce[id] != nil }

    /// Whether any token is revoked.
    var anyRevoked: Bool { !revocations.inForce.isEmpty }

    /// Whether the list is full: a new revocation is refused (507).
    var isFull: Bool { revocations.inForce.count >= RevocationList.maximum }

    /// Takes a revocation made on this node (durable already): it holds here at once.
    func made(_ revocation: Revocation) { revocations.made(revocation) }

    /// On each tick: the read of the store's revocations, once a second (not once stopping), for
    /// the hub to ask; nil when none is due. It counts as out from now on.
    func reload() -> StoreRead? {
        guard config.auth != nil, !revocations.loading, !turn.stopping else { return nil }
        if let last = revocations.lastAsked, turn.now - last < RevocationList.reloadEvery { return nil }
        revocations.loading = true
        revocations.lastAsked = turn.now
        revocations.asked += 1
        return .revocations(now: nowSeconds, Reply { $0.revocationsLoaded($1) })
    }

    /// The number of the newest reload asked for (a deleted board's id is taken until a reload
    /// asked after its deletion comes back: `PendingWrites.durable(_:settlesAt:)`).
    var reloadsAsked: Int { revocations.asked }
    /// A reload is out.
    var isLoading: Bool { revocations.loading }

    /// The next tick asks for a reload, however recent the last.
    func reloadSoon() { revocations.lastAsked = nil }

    /// What a reload's answer did.
    enum Load: Equatable {
        /// The store failed; the list is kept.
        case failed
        /// The list is as it was: nothing is done at all.
        case same
        /// The list changed.
        case changed
    }

    /// The store's revocations came back, as a set built on the reader thread: when they changed,
    /// they replace the list (one made here whose write raced this read stays until the store
    /// shows it).
    func loaded(_ answer: Result<RevocationSet, StoreError>) -> Load {
        revocations.loading = false
        switch answer {
        case .success(let loaded):
            return revocations.loaded(loaded, nowSeconds: nowSeconds) ? .changed : .same
        case .failure(let error):
            turn.log(
                .warning,
                "cannot load the revoked tokens (\(error.message)); keeping the \(revocations.inForce.count) known")
            return .failed
        }
    }

    // MARK: Grants

    /// The member's grant on the board, if any.
    func grant(of member: MemberID, on board: BoardID) -> GrantTable.Grant? { grants.grant(of: member, on: board) }

    /// The board's grants, by member.
    func grants(on board: BoardID) -> [MemberID: GrantTable.Grant] { grants.byBoard[board] ?? [:] }

    /// A proxy user's roles by board (its API claims carry them).
    func roles(of member: MemberID) -> [BoardID: Role] { grants.roles(of: member) }

    /// A proxy user's role on a board: its grant, else the proxy's default (`view` without one).
    func proxyRole(of member: MemberID, on board: BoardID) -> Role {
        grants.grant(of: member, on: board)?.role ?? config.proxy?.role ?? .view
    }

    /// Whether a grant for `member` on `board` may be stored: the server keeps fewer than
    /// `GrantTable.maximum`, or the member has one there already (it is replaced).
    func mayGrant(_ member: MemberID, on board: BoardID) -> Bool {
        grants.count < GrantTable.maximum || grants.grant(of: member, on: board) != nil
    }

    /// Sets (or, with nil, removes) the member's grant on the board: a change of this node's, made
    /// durable already (a reload asked before it is dropped).
    func setGrant(_ member: MemberID, on board: BoardID, to grant: GrantTable.Grant?) {
        grants.set(member, on: board, to: grant)
        grants.lastChanged = turn.now
    }

    /// Forgets the board's grants (it was deleted: the store deletes them with it).
    func removeGrants(of board: BoardID) { _ = grants.remove(board) }

    /// On each tick, in a cluster with a sign-in proxy: the read of the store's grants, once a
    /// second (not once stopping), for the hub to ask; nil when none is due.
    func reloadGrants() -> StoreRead? {
        guard config.cluster != nil, config.proxy != nil, config.auth != nil, !grants.loading, !turn.stopping
        else { return nil }
        if let last = grants.lastAsked, turn.now - last < GrantTable.reloadEvery { return nil }
        grants.loading = true
        grants.lastAsked = turn.now
        return .allGrants(limit: GrantTable.maximum, Reply { $0.grantsLoaded($1) })
    }

    /// The store's grants came back: the (board, member) pairs whose role changed. A load asked
    /// before this node's last change is dropped (the next one shows it); a failed one keeps the
    /// grants known.
    func loadedGrants(_ answer: Result<[MemberGrant], StoreError>) -> [(BoardID, MemberID)] {
        grants.loading = false
        switch answer {
        case .success(let loaded):
            if let changed = grants.lastChanged, let asked = grants.lastAsked, changed >= asked { return [] }
            return grants.replace(with: GrantTable(loaded))
        case .failure(let error):
            turn.log(.warning, "cannot load the grants (\(error.message)); keeping the \(grants.count) known")
            return []
        }
    }

    /// `POST /api/revocations` (`revoke`) and `GET /api/revocations`: answered (nil), or a
    /// revocation's write for the hub to ask, for `exchange` (its reply answers the exchange once
    /// the revocation is durable: `Hub.revoked`).
    func request(_ request: HTTPRequest, revoke: Bool, exchange: ExchangeID) -> StoreRead? {
        guard let auth = config.auth else {
            return respond(
                exchange, .error(404, "not_found", "this server has no access control (--auth-secret)"))
        }
        guard let bearer = authorize(request, exchange: exchange) else { return nil }
        guard bearer.role == .admin else {
            return respond(exchange, Hub.forbidden("managing revocations"))
        }
        if !revoke { return respond(exchange, list(for: bearer)) }
        guard let json = try? JSON.parse(request.body), let token = json["token"]?.stringValue,
            token.utf8.count <= 2048
        else {
            return respond(exchange, .error(400, "bad_request", #"send {"token": TOKEN}"#))
        }
        let claims: Claims
        switch auth.claimsIgnoringExpiry(token) {
        case .success(let c): claims = c
        case .failure(let problem):
            return respond(exchange, .error(400, "bad_request", "not a token of this server (\(problem))"))
        }
        guard claims.board.map({ bearer.allow(.admin, on: $0) }) ?? (bearer.board == nil) else {
            return respond(exchange, Hub.forbidden("revoking a token for \(claims.board?.rawValue ?? "*")"))
        }
        let revocation = Revocation(
            id: TokenAuthority.revocationID(of: token), board: claims.board, until: claims.expires)
        guard revocation.until > nowSeconds else {
            // Expired already: refused everywhere anyway, and nothing to keep.
            return respond(exchange, Self.revokedAnswer(revocation))
        }
        guard !isFull || revocations.inForce[revocation.id] != nil else {
            meters.limitHits.add(.revocations)
            return respond(
                exchange,
                .error(
                    507, "too_many_revocations",
                    "\(RevocationList.maximum) tokens are revoked already; shorter token lives keep the list short"))
        }
        turn.log(
            .info, "\(request.peer) revokes token \(revocation.id.prefix(12))… (board \(claims.board?.rawValue ?? "*"))"
        )
        let reply = Hub.answering(exchange) { $0.revoked($1, exchange: exchange) }
        return .revoke(revocation, now: nowSeconds, reply)
    }

    private func respond(_ exchange: ExchangeID, _ response: HTTPResponse) -> StoreRead? {
        turn.emit(.respond(exchange, response))
        return nil
    }

    /// The answer to a revocation: its id and until when it is kept.
    static func revokedAnswer(_ revocation: Revocation) -> HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.write("revoked", revocation.id)
            w.write("until", Int(revocation.until))
            w.endObject()
        }
    }

    /// `GET /api/revocations`: those in force that `bearer` (an admin) may see, by id.
    private func list(for bearer: Claims) -> HTTPResponse {
        let nowSeconds = nowSeconds
        let shown = revocations.inForce.byID.values.filter {
            $0.until > nowSeconds && (bearer.board == nil || $0.board == bearer.board)
        }.sorted { $0.id < $1.id }
        return .json(200) { w in
            w.beginObject()
            w.beginArray("revocations")
            for revocation in shown {
                w.beginObject()
                w.write("id", revocation.id)
                w.write("board", revocation.board?.rawValue ?? "*")
                w.write("until", Int(revocation.until))
                w.endObject()
            }
            w.endArray()
            w.endObject()
        }
    }
}

/// Access's rules for sessions, as decisions returned as values: what `auth` with a fresh token
/// does to a session (`refresh`), and when a session's token no longer holds (`ends`: expired, or
/// revoked). The sessions are the hub's: it hands a session's board, role and token in, and
/// carries the decision out on the session (Hub+Tokens.swift, Hub+Revocations.swift).
///
/// - **Expiry.** On the first tick at or after the expiry of the session's token (ticks come
///   every 250 ms) the session gets `error unauthorized` "token expired" and is closed with
///   **4401** after it; a drag it held is released with `reason: left`, as for any close.
/// - **Refresh.** `{"type":"auth","token":T}` replaces the token of a joining or joined session
///   when T is valid for the session's board (or `*`): the answer is `{"type":"auth","role","exp"}`,
///   and the new role and expiry apply from the next message on. A session whose role falls below
///   `edit` lets go of the item it holds at once (a plain `drop`, no op). A token that is not valid
///   (forged, expired, malformed, another board's, revoked) gets `error unauthorized`, and the
///   session goes on under its old token.
/// - **Revocation.** A session whose token is revoked gets `error unauthorized` "token revoked"
///   and is closed with **4401**, once the list that shows it is loaded (or made here).
extension Access {
    /// What `auth` does to a session.
    enum Refresh: Equatable {
        /// No access control: the session may do everything, and nothing expires.
        case everything
        /// The session takes `claims` and the token whose revocation id is `tokenID`; `letsGo`:
        /// its role falls below `edit`, so it lets go of the item it holds.
        case adopt(Claims, tokenID: String, letsGo: Bool)
        /// The token is not taken (`why`, for the log): the session is told so and keeps its own.
        case refused(why: String)
    }

    /// What `auth` with `token` does to a session on `board` whose role is now `role`; a token
    /// refused is counted (`AuthFailure.Via.auth`).
    func refresh(_ token: String, board: BoardID, role: Role) -> Refresh {
        guard config.auth != nil else { return .everything }
        switch check(token, board: board, via: .auth) {
        case .success(let claims):
            return .adopt(
                claims, tokenID: TokenAuthority.revocationID(of: token), letsGo: role >= .edit && claims.role < .edit)
        case .failure(let refusal): return .refused(why: refusal.why)
        }
    }

    /// The error a session gets when its `auth` is refused.
    static func refusedRefresh(on board: BoardID) -> ProtocolError {
        ProtocolError(.unauthorized, "the token is not valid for board \(board); the session keeps its current token")
    }

    /// Why a session's token no longer holds (4401 either way).
    enum Ending {
        /// It expired.
        case expired
        /// It was revoked.
        case revoked

        /// What the session is told before it is closed.
        var error: ProtocolError { ProtocolError(.unauthorized, reason) }
        /// The close frame's reason.
        var reason: String { self == .expired ? "token expired" : "token revoked" }
        /// The log line's words.
        var happened: String { self == .expired ? "expired" : "was revoked" }
    }

    /// Whether any session may end for `ending` (nothing expires without access control; nothing
    /// is revoked while the list is empty), so that the sessions need not be looked at.
    func anyMayEnd(for ending: Ending) -> Bool { ending == .expired ? config.auth != nil : anyRevoked }

    /// Whether a session under `token` must end now for `ending`: its token expired (at or
    /// before this second), or its token's id is revoked. A session without a token (no access
    /// control, or a proxy's user, whose token has no id) never ends for a revocation.
    func ends(_ token: SessionToken?, for ending: Ending) -> Bool {
        guard let token else { return false }
        switch ending {
        case .expired: return token.expires <= turn.wall.milliseconds / 1000
        case .revoked: return token.id.map(isRevoked(id:)) ?? false
        }
    }
}
