internal import BoardAuth
internal import BoardCore

/// `POST /api/boards/{id}/ops`: one op over HTTP, as a WebSocket client sends it.
///
/// The op goes through the board's room exactly as a joined client's does (the same sequencer,
/// hold and conflict rules, the same durable-before-visible gate), sent as a user of its own that
/// is never on the board: nobody hears it join or leave, and it holds nothing. What the room
/// would send that user is the HTTP answer (`RESTOps.answer`, RESTOps.swift):
/// - the op's `committed` broadcast, once durable: 200 `{"seq", "op": COMMITTED}`;
/// - an `ack` (the op id was committed before): 200 `{"seq", "ack": true}`;
/// - a `reject`: 409 `{"error": "rejected", "reason", "by"?, "seq"}`.
///
/// A board not in memory is loaded for the op (claimed, in a cluster; owned by another node: the
/// request is relayed there, `forwardREST`). The ops of one client address share a bucket of
/// `opRate`, as one WebSocket's do. The request's own rules and the ops waiting are `RESTOps`'s;
/// the hub finds the board and hands the op to its room.
extension Hub {
    /// `POST /api/boards/{id}/ops`, the token's claims already checked for viewing.
    func restOpRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard let pending = restOps.admit(id, request, claims: claims, exchange: exchange),
            restOps.take(from: &addressState(request.peer).restOps, pending, exchange: exchange)
        else { return }
        guard let host = boardInMemory(id, else: .op(exchange, pending), exchange: exchange) else { return }
        submitREST(pending, on: host, exchange: exchange)
    }

    /// Hands the op to the board's room as a user of its own; the answer comes through
    /// `RESTOps.answer` (at once for a refusal or a repeat, once durable for a commit). The board
    /// stays in memory until then (`BoardHost.restOps`). `evict`: false while a loaded board's
    /// waiting work is run (`decided` evicts after the last of it: a refused op must not evict
    /// the board under the ops queued behind it).
    func submitREST(_ pending: RESTOp.Pending, on host: BoardHost, exchange: ExchangeID, evict: Bool = true) {
        let user = sessions.makeUser(name: pending.name, member: pending.member)
        restOps.began(user.id, pending, on: host, exchange: exchange)
        perform(
            host.room.submitDetached(
                pending.request, as: user.id, name: pending.name, member: user.member, admin: pending.admin, now: now,
                wall: wall),
            on: host)
        if evict { evictIfIdle(host) }
    }
}
