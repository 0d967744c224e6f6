internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// Revocation, as far as sessions and streams go: with `Config.auth` set, a revoked token is
/// refused wherever a token is checked (`hello`, `auth`, the API: `Access`, Access.swift), and
/// sessions using it get `error unauthorized` "token revoked" and close 4401, its event streams
/// end with `revoked`, within about a second on every node (each reloads the list every second).
extension Hub {
    /// The store's revocations came back: the deleted boards this load settles may be made
    /// again; when the list changed, the sessions and streams using one end.
    func revocationsLoaded(_ answer: Result<RevocationSet, StoreError>) {
        let load = access.loaded(answer)
        guard load != .failed else { return }
        if boards.pending.isSettling {
            for board in boards.pending.revocationsLoaded(access.reloadsAsked) {
                log(.info, "board \(board) is deleted, and the tokens of its links are revoked")
            }
            // One deleted after this load was asked waits for the next, asked at once.
            if boards.pending.isSettling { access.reloadSoon() }
        }
        if load == .changed { closeRevokedSessions() }
    }

    /// Closes this node's sessions whose token is revoked (forwarded ones are their owner's), and
    /// ends its event streams on one.
    func closeRevokedSessions() {
        guard access.anyRevoked else { return }
        streams.endRevoked(isRevoked: access.isRevoked(id:), boardHost: { boards[$0] }, idle: evictIfIdle)
        endSessions(.revoked)
    }

    /// `GET` and `POST /api/revocations`: `Access` answers, or says what to write (asked here,
    /// for the exchange).
    func revocationsRequest(_ request: HTTPRequest, revoke: Bool, exchange: ExchangeID) {
        if let write = access.request(request, revoke: revoke, exchange: exchange) { read(write, for: exchange) }
    }

    /// The store has the revocation: it holds on this node at once, and the answer goes out.
    func revoked(_ revocation: Revocation, exchange: ExchangeID) {
        access.made(revocation)
        closeRevokedSessions()
        emit(.respond(exchange, Access.revokedAnswer(revocation)))
    }
}
