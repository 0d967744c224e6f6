internal import BoardAuth
internal import BoardCore

/// Tokens that end: with `Config.auth` set, a session is bound to its token's expiry.
///
/// - **Expiry.** On the first tick at or after the expiry of the session's token (ticks come
///   every 250 ms) the session gets `error unauthorized` "token expired" and is closed with
///   **4401** after it; a drag it held is released with `reason: left`, as for any close.
/// - **Refresh.** `{"type":"auth","token":T}` replaces the token of a joining or joined session
///   when T is valid for the session's board (or `*`): the answer is `{"type":"auth","role","exp"}`,
///   and the new role and expiry apply from the next message on. A session whose role falls below
///   `edit` lets go of the item it holds at once (a plain `drop`, no op). A token that is not valid
///   (forged, expired, malformed, another board's) gets `error unauthorized`, and the session goes
///   on under its old token. The new token's name is not applied: the user keeps the name it
///   joined with.
/// - **Clusters.** A forwarded session is the owner's to expire: its `auth` messages are relayed
///   to the owner like any other, the owner closes it with 4401, and the forwarding node passes
///   that code on. An `auth` accepted while the session waits for its board replaces the token
///   in its `hello`, so a forward carries the fresh token.
///
/// Without access control `auth` is answered with `admin` and no expiry, and nothing expires.
extension Hub {
    /// Handles `auth` from `session`.
    func refresh(_ session: Session, token: String) {
        let board: BoardID
        switch session.phase {
        case .awaitingHello:
            send(.error(ProtocolError(.notJoined, "send hello first")), to: session.id)
            return
        case .joining(let join): board = join.board
        case .joined(let id, _): board = id
        case .forwarded, .closing: return
        }
        guard config.auth != nil else {
            send(.auth(role: Role.admin.rawValue, expires: nil), to: session.id)
            return
        }
        let why: String
        switch access.check(token, board: board, via: .auth) {
        case .success(let claims): return adopt(claims, token: token, for: session)
        case .failure(let refusal): why = refusal.why
        }
        log(.warning, "\(session.id) from \(session.peer): auth for board \(board) refused: \(why)")
        send(
            .error(
                ProtocolError(
                    .unauthorized, "the token is not valid for board \(board); the session keeps its current token")),
            to: session.id)
    }

    /// Puts `session` under `claims`, the claims of `token`.
    private func adopt(_ claims: Claims, token: String, for session: Session) {
        let before = session.role
        session.role = claims.role
        session.token = SessionToken(expires: claims.expires, id: TokenAuthority.revocationID(of: token))
        log(.info, "\(session.id): new token, \(claims.role.rawValue) until \(claims.expires)")
        switch session.phase {
        case .joining(var join):
            if case .hello(let board, let name, let since, _, let member) = join.hello {
                session.phase = .awaitingHello  // Drop the phase's copy of the join before changing it.
                join.hello = .hello(board: board, name: name, since: since, token: token, member: member)
                session.phase = .joining(join)
            }
        case .joined(let board, let user) where before >= .edit && claims.role < .edit:
            // A viewer holds nothing: the item it held is let go as if it had dropped it.
            guard let host = boards[board], host.connection(of: user) == session.id,
                let held = host.room.holds.first(where: { $0.value.by == user })?.key
            else { break }
            perform(
                host.room.handle(
                    .drop(item: held, action: nil), from: user, address: session.peer, now: now, wall: wall), on: host)
        default: break
        }
        send(.auth(role: claims.role.rawValue, expires: claims.expires), to: session.id)
    }

    /// Closes every session of this node whose token has expired (forwarded ones are their
    /// owner's), in connection order.
    func expireTokens() {
        guard config.auth != nil else { return }
        let wallMilliseconds = wall.milliseconds
        var expired: [ConnectionID] = []
        for (id, session) in sessions where (session.token?.expires ?? .max) <= wallMilliseconds / 1000 {
            switch session.phase {
            case .joining, .joined: expired.append(id)
            case .awaitingHello, .forwarded, .closing: break
            }
        }
        for id in expired.sorted() {
            log(.info, "\(id): its token expired; closing with 4401")
            refuse(id, ProtocolError(.unauthorized, "token expired"), code: 4401, reason: "token expired")
        }
    }
}
