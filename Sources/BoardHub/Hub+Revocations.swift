internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// The revoked tokens the hub knows of, as last loaded from the store.
struct RevocationList {
    /// The most revocations in force at once (a `POST` past it gets 507): each is kept only
    /// until its token would have expired, and only admins make them, but a table a client can
    /// grow is bounded all the same.
    static let maximum = 100_000
    /// How often the store is asked again, in milliseconds: the bound on how late a revocation
    /// made on another node (or by `shuffleboard revoke`) closes this node's sessions.
    static let reloadEvery: Int64 = 1_000

    /// In force: the last load, and those made on this node that it did not show yet.
    private(set) var inForce: RevocationSet
    /// The fingerprint of the last load: a load with the same one, and nothing made here since,
    /// changes nothing (the usual case, once a second), and costs the service thread nothing.
    private var loadedFingerprint: UInt64
    /// Made on this node and not yet seen in a load (whose read may have raced the write).
    private var made: [String: Revocation] = [:]
    /// A reload is out.
    var loading = false
    /// How many reloads were asked for: the number of the newest.
    var asked = 0
    /// When the last reload was asked for.
    var lastAsked: Instant?

    /// The list the server started with.
    init(_ revoked: [Revocation] = []) {
        inForce = RevocationSet(revoked)
        loadedFingerprint = inForce.fingerprint
    }

    /// Takes a load's answer at `nowSeconds`; false when nothing changed.
    mutating func loaded(_ set: RevocationSet, nowSeconds: Int64) -> Bool {
        if set.fingerprint == loadedFingerprint && made.isEmpty { return false }
        var next = set
        for (id, revocation) in made {
            if set[id] != nil || revocation.until <= nowSeconds {
                made[id] = nil
            } else {
                next.insert(revocation)
            }
        }
        loadedFingerprint = set.fingerprint
        inForce = next
        return true
    }

    /// Takes a revocation made on this node (durable already).
    mutating func made(_ revocation: Revocation) {
        inForce.insert(revocation)
        made[revocation.id] = revocation
    }
}

/// Revocation: with `Config.auth` set, `POST /api/revocations {"token": T}` (an `admin` bearer
/// token for T's board, or `*` for a `*` token) stores T's id in the store, which keeps it until
/// T would have expired anyway. From then on T is refused wherever a token is checked (`hello`,
/// `auth`, the API), and sessions using it get `error unauthorized` "token revoked" and close
/// 4401. Every node reloads the store's revocations every second (`RevocationList.reloadEvery`),
/// so a revocation made on one node, or by `shuffleboard revoke` without the API, reaches every
/// node's sessions within about a second and survives restarts. `GET /api/revocations` lists
/// them: all for a `*` admin, a board's for its admin.
extension Hub {
    /// Whether `token` has been revoked (as far as this node has loaded).
    func isRevoked(_ token: String) -> Bool {
        !revocations.inForce.isEmpty && revocations.inForce[TokenAuthority.revocationID(of: token)] != nil
    }

    /// On each tick: asks the store for its revocations once a second.
    func reloadRevocations() {
        guard config.auth != nil, !revocations.loading, !stopping else { return }
        if let last = revocations.lastAsked, now - last < RevocationList.reloadEvery { return }
        revocations.loading = true
        revocations.lastAsked = now
        revocations.asked += 1
        read(.revocations(now: wall.milliseconds / 1000), then: .revocations)
    }

    /// The store's revocations came back, as a set built on the reader thread: when they changed,
    /// they replace the list (one made here whose write raced this read stays until the store shows
    /// it), and sessions using one close. When they did not, nothing is done at all.
    func revocationsLoaded(_ answer: StoreAnswer) {
        revocations.loading = false
        switch answer {
        case .revocations(let loaded):
            if boards.pending.isSettling {
                for board in boards.pending.revocationsLoaded(revocations.asked) {
                    log(.info, "board \(board) is deleted, and the tokens of its links are revoked")
                }
                // One deleted after this load was asked waits for the next, asked at once.
                if boards.pending.isSettling { revocations.lastAsked = nil }
            }
            guard revocations.loaded(loaded, nowSeconds: wall.milliseconds / 1000) else { return }
            closeRevokedSessions()
        case .failed(let error):
            log(
                .warning,
                "cannot load the revoked tokens (\(error.message)); keeping the \(revocations.inForce.count) known")
        default:
            preconditionFailure("revocations got \(answer)")
        }
    }

    /// Closes this node's sessions whose token is revoked (forwarded ones are their owner's), and
    /// ends its event streams on one.
    func closeRevokedSessions() {
        guard !revocations.inForce.isEmpty else { return }
        endRevokedStreams()
        var closing: [ConnectionID] = []
        for (id, session) in sessions {
            guard let tokenID = session.token?.id, revocations.inForce[tokenID] != nil else { continue }
            switch session.phase {
            case .joining, .joined: closing.append(id)
            case .awaitingHello, .forwarded, .closing: break
            }
        }
        for id in closing.sorted() {
            log(.info, "\(id): its token was revoked; closing with 4401")
            refuse(id, ProtocolError(.unauthorized, "token revoked"), code: 4401, reason: "token revoked")
        }
    }

    /// `POST /api/revocations` and `GET /api/revocations`.
    func revocationRequest(_ request: HTTPRequest, exchange: ExchangeID) {
        guard request.method == .get || request.method == .head || request.method == .post else {
            return emit(.respond(exchange, .methodNotAllowed("GET, POST")))
        }
        guard let auth = config.auth else {
            return emit(
                .respond(exchange, .error(404, "not_found", "this server has no access control (--auth-secret)")))
        }
        guard let bearer = authorize(request, exchange: exchange) else { return }
        guard bearer.role == .admin else { return emit(.respond(exchange, Self.forbidden("managing revocations"))) }
        if request.method != .post { return emit(.respond(exchange, revocationList(for: bearer))) }
        guard let json = try? JSON.parse(request.body), let token = json["token"]?.stringValue,
            token.utf8.count <= 2048
        else {
            return emit(.respond(exchange, .error(400, "bad_request", #"send {"token": TOKEN}"#)))
        }
        let claims: Claims
        switch auth.claimsIgnoringExpiry(token) {
        case .success(let c): claims = c
        case .failure(let problem):
            return emit(.respond(exchange, .error(400, "bad_request", "not a token of this server (\(problem))")))
        }
        guard claims.board.map({ bearer.allow(.admin, on: $0) }) ?? (bearer.board == nil) else {
            return emit(.respond(exchange, Self.forbidden("revoking a token for \(claims.board?.rawValue ?? "*")")))
        }
        let revocation = Revocation(
            id: TokenAuthority.revocationID(of: token), board: claims.board, until: claims.expires)
        let nowSeconds = wall.milliseconds / 1000
        guard revocation.until > nowSeconds else {
            // Expired already: refused everywhere anyway, and nothing to keep.
            return emit(.respond(exchange, Self.revokedAnswer(revocation)))
        }
        guard revocations.inForce.count < RevocationList.maximum || revocations.inForce[revocation.id] != nil else {
            meters.limitHits.add(.revocations)
            return emit(
                .respond(
                    exchange,
                    .error(
                        507, "too_many_revocations",
                        "\(RevocationList.maximum) tokens are revoked already; shorter token lives keep the list short")
                ))
        }
        log(
            .info, "\(request.peer) revokes token \(revocation.id.prefix(12))… (board \(claims.board?.rawValue ?? "*"))"
        )
        read(.revoke(revocation, now: nowSeconds), then: .http(exchange, .revoke))
    }

    /// The store has the revocation: it holds on this node at once, and the answer goes out.
    func revoked(_ revocation: Revocation, exchange: ExchangeID) {
        revocations.made(revocation)
        closeRevokedSessions()
        emit(.respond(exchange, Self.revokedAnswer(revocation)))
    }

    private static func revokedAnswer(_ revocation: Revocation) -> HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.write("revoked", revocation.id)
            w.write("until", Int(revocation.until))
            w.endObject()
        }
    }

    /// `GET /api/revocations`: those in force that `bearer` (an admin) may see, by id.
    private func revocationList(for bearer: Claims) -> HTTPResponse {
        let nowSeconds = wall.milliseconds / 1000
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
