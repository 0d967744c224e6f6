internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// Members' roles on boards, for people a trusted proxy signs in (Hub+Proxy.swift). With
/// `Config.auth` set, an admin of a board gives a member a role there with
/// `PUT /api/boards/{id}/members/{member} {"role":"view"|"edit"|"admin"}`, takes it back with
/// `DELETE` (the member then has the proxy's default role), reads one with `GET`, and lists them
/// with `GET /api/boards/{id}/grants`. A grant is durable before it is answered, and then holds
/// at once for the member's sessions on the board: one whose role changes gets
/// `{"type":"auth","role":…}`, and one that falls below `edit` lets go of what it held and is
/// refused (`forbidden`) from then on. A board has at most `GrantTable.maximumPerBoard` grants,
/// the server `GrantTable.maximum`; they go with their board. In a cluster every node reloads
/// them each second, so a grant made on one node reaches the others' sessions within about that.
extension Hub {
    /// `GET /api/boards/{id}/grants`: the board's grants, by member.
    func listGrants(_ id: BoardID, exchange: ExchangeID) {
        guard mayManageGrants(on: id, exchange: exchange) else { return }
        whenBoardExists(id, exchange: exchange) { hub in hub.emit(.respond(exchange, hub.grantList(id))) }
    }

    /// `GET /api/boards/{id}/members/{member}`: the member's grant on the board.
    func readGrant(_ id: BoardID, _ member: MemberID, exchange: ExchangeID) {
        guard mayManageGrants(on: id, exchange: exchange) else { return }
        whenBoardExists(id, exchange: exchange) { hub in
            guard hub.access.grant(of: member, on: id) != nil else {
                return hub.emit(.respond(exchange, Self.noGrant(member, on: id)))
            }
            hub.emit(.respond(exchange, hub.grantAnswer(member, on: id)))
        }
    }

    /// `PUT /api/boards/{id}/members/{member} {"role"}`: the grant kept, answered once durable.
    func setGrant(_ id: BoardID, _ member: MemberID, _ request: HTTPRequest, exchange: ExchangeID) {
        guard mayManageGrants(on: id, exchange: exchange) else { return }
        let role: Role
        switch Self.grantRole(request.body) {
        case .success(let r): role = r
        case .failure(let problem): return emit(.respond(exchange, .error(400, "bad_request", problem.message)))
        }
        guard access.mayGrant(member, on: id) else {
            return refuseFull(
                .grants, "too_many_grants", "the server keeps \(GrantTable.maximum) grants already", exchange: exchange)
        }
        let grant = MemberGrant(board: id, member: member, role: role.rawValue, granted: wall.milliseconds / 1000)
        log(.info, "\(request.peer) gives \(member) the role \(role.rawValue) on board \(id)")
        let reply = Self.answering(exchange) { $0.granted(grant, role, $1, exchange: exchange) }
        read(.grant(grant, maximum: GrantTable.maximumPerBoard, boardKnown: boards[id] != nil, reply), for: exchange)
    }

    /// `DELETE /api/boards/{id}/members/{member}`: the grant taken back, once durable.
    func removeGrant(_ id: BoardID, _ member: MemberID, _ request: HTTPRequest, exchange: ExchangeID) {
        guard mayManageGrants(on: id, exchange: exchange) else { return }
        log(.info, "\(request.peer) takes back the grant of \(member) on board \(id)")
        let reply = Self.answering(exchange) { (hub, removed: MemberGrant?) in
            hub.grantRemoved(id, member, removed: removed != nil, exchange: exchange)
        }
        read(.removeGrant(member, on: id, reply), for: exchange)
    }

    /// Whether the board's grants may be managed (its admin's claims checked already); false
    /// after answering 409 without access control, 404 for a board being deleted.
    private func mayManageGrants(on id: BoardID, exchange: ExchangeID) -> Bool {
        guard authority(for: "everyone", exchange: exchange) != nil else { return false }
        guard !isDeleting(id) else {
            emit(.respond(exchange, Self.unknownBoard(id)))
            return false
        }
        return true
    }

    /// Answers with `then` at once when the board is in memory, else once the store says it has
    /// it (404 when it has not).
    private func whenBoardExists(
        _ id: BoardID, exchange: ExchangeID, then answer: @escaping @Sendable (Hub) -> Void
    ) {
        if boards[id] != nil { return answer(self) }
        let reply = Self.answering(exchange) { (hub, exists: Bool) in
            guard exists else { return hub.emit(.respond(exchange, Self.unknownBoard(id))) }
            answer(hub)
        }
        read(.exists(id, reply), for: exchange)
    }

    /// `{"role":"view"|"edit"|"admin"}`, strictly.
    static func grantRole(_ body: [UInt8]) -> Result<Role, LinkProblem> {
        guard case .object(let fields)? = try? JSON.parse(body), fields.keys.allSatisfy({ $0 == "role" }),
            let text = fields["role"]?.stringValue, let role = Role(rawValue: text)
        else {
            return .failure(LinkProblem(#"send {"role": "view", "edit" or "admin"}"#))
        }
        return .success(role)
    }

    /// `PUT …/members/{member}`: the store kept the grant (it holds here at once), or did not.
    private func granted(_ grant: MemberGrant, _ role: Role, _ outcome: GrantOutcome, exchange: ExchangeID) {
        switch outcome {
        case .granted:
            guard !isDeleting(grant.board) else { return emit(.respond(exchange, Self.unknownBoard(grant.board))) }
            let before = access.proxyRole(of: grant.member, on: grant.board)
            access.setGrant(grant.member, on: grant.board, to: GrantTable.Grant(role: role, granted: grant.granted))
            if role != before { regrant(grant.member, on: grant.board) }
            emit(.respond(exchange, grantAnswer(grant.member, on: grant.board)))
        case .full:
            refuseFull(
                .grants, "too_many_grants",
                "board \(grant.board) has \(GrantTable.maximumPerBoard) grants; take one back first", exchange: exchange
            )
        case .unknownBoard:
            emit(.respond(exchange, Self.unknownBoard(grant.board)))
        }
    }

    /// `DELETE …/members/{member}`: the store removed the grant, or had none.
    private func grantRemoved(_ board: BoardID, _ member: MemberID, removed: Bool, exchange: ExchangeID) {
        guard removed else { return emit(.respond(exchange, Self.noGrant(member, on: board))) }
        let before = access.proxyRole(of: member, on: board)
        access.setGrant(member, on: board, to: nil)
        if access.proxyRole(of: member, on: board) != before { regrant(member, on: board) }
        emit(
            .respond(
                exchange,
                .object { w in
                    w.write("member", member.rawValue)
                    w.write("removed", true)
                }))
    }

    private static func noGrant(_ member: MemberID, on board: BoardID) -> HTTPResponse {
        .error(404, "no_grant", "\(member) has no grant on board \(board)")
    }

    /// `{"member","role","granted"}`.
    private func grantAnswer(_ member: MemberID, on board: BoardID) -> HTTPResponse {
        let grant = access.grant(of: member, on: board)
        return .object { w in
            w.write("member", member.rawValue)
            w.write("role", (grant?.role ?? .view).rawValue)
            w.write("granted", Int(grant?.granted ?? 0))
        }
    }

    /// `{"grants":[{"member","role","granted"}…], "role": the proxy's default or null}`, by member.
    private func grantList(_ board: BoardID) -> HTTPResponse {
        let listed = access.grants(on: board).sorted { $0.key.rawValue < $1.key.rawValue }
        return .list("grants", listed, tail: { $0.write("role", config.proxy?.role.rawValue) }) { w, entry in
            w.write("member", entry.key.rawValue)
            w.write("role", entry.value.role.rawValue)
            w.write("granted", Int(entry.value.granted))
        }
    }

    /// The member's role on the board changed (or may have): each of its proxy sessions there
    /// takes the new one, is told with `auth`, and lets go of what it held when it can no longer edit.
    func regrant(_ member: MemberID, on board: BoardID) {
        guard config.proxy != nil else { return }
        let role = access.proxyRole(of: member, on: board)
        let (changed, relayed) = sessions.proxySessions(of: member, on: board, notAs: role)
        for id in relayed {
            log(.info, "\(id): \(member)'s role on board \(board) changed; closing its relayed session with 1012")
            closeSession(id, code: 1012, reason: "role changed; join again", flush: false)
        }
        for session in changed {
            let before = sessions.assign(role, to: session)
            log(.info, "\(session.id): \(member) is now \(role.rawValue) on board \(board)")
            if before >= .edit, role < .edit { letGo(session) }  // Hub+Sessions.swift
            send(.auth(role: role.rawValue, expires: nil), to: session.id)
        }
    }

    /// The store's grants came back: the members whose role changed get it on their sessions.
    func grantsLoaded(_ answer: Result<[MemberGrant], StoreError>) {
        for (board, member) in access.loadedGrants(answer) { regrant(member, on: board) }
    }
}
