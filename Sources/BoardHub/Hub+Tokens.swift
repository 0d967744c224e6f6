internal import BoardAuth
internal import BoardCore

/// Tokens that end, routed: with `Config.auth` set, a session is bound to its token's expiry,
/// `auth` may replace its token, and a revoked token ends it. The rules are `Access`'s
/// (`refresh`, `ends`: Access.swift); this carries its decisions out on the sessions.
///
/// - **Clusters.** A forwarded session is the owner's to expire: its `auth` messages are relayed
///   to the owner like any other, the owner closes it with 4401, and the forwarding node passes
///   that code on. An `auth` accepted while the session waits for its board replaces the token
///   in its `hello`, so a forward carries the fresh token. The new token's name is not applied:
///   the user keeps the name it joined with.
extension Hub {
    /// Handles `auth` from `session`, joining or on `board` (`Sessions.received` says which).
    func refresh(_ session: Session, token: String, board: BoardID) {
        switch access.refresh(token, board: board, role: session.role) {
        case .everything: send(.auth(role: Role.admin.rawValue, expires: nil), to: session.id)
        case .adopt(let claims, let tokenID, let letsGo):
            adopt(claims, token: token, id: tokenID, letsGo: letsGo, for: session)
        case .refused(let why):
            log(.warning, "\(session.id) from \(session.peer): auth for board \(board) refused: \(why)")
            send(.error(Access.refusedRefresh(on: board)), to: session.id)
        }
    }

    /// Puts `session` under `claims`, the claims of `token` (whose revocation id is `id`); with
    /// `letsGo`, the item it holds is let go.
    private func adopt(_ claims: Claims, token: String, id: String, letsGo: Bool, for session: Session) {
        sessions.adopt(session, role: claims.role, expires: claims.expires, token: token, id: id)
        log(.info, "\(session.id): new token, \(claims.role.rawValue) until \(claims.expires)")
        if letsGo { letGo(session) }  // A viewer holds nothing (Hub+Sessions.swift).
        send(.auth(role: claims.role.rawValue, expires: claims.expires), to: session.id)
    }

    /// Closes, in connection order, every session of this node whose token no longer holds for
    /// `ending` (`Access.ends`): it is told why and closed with 4401. Forwarded sessions are their
    /// owner's; one awaiting `hello` or closing has nothing to end.
    func endSessions(_ ending: Access.Ending) {
        guard access.anyMayEnd(for: ending) else { return }
        for id in sessions.ending({ access.ends($0, for: ending) }) {
            log(.info, "\(id): its token \(ending.happened); closing with 4401")
            refuse(id, ending.error, code: 4401, reason: ending.reason)
        }
    }
}
