package import BoardCore

extension MemoryStore: GrantStore {
    package func grant(_ grant: MemberGrant, maximum: Int, boardKnown: Bool) throws(StoreError) -> GrantOutcome {
        if !boardKnown {
            guard try exists(grant.board) else { return .unknownBoard }
        }
        return grants.withLock { grants in
            var board = grants[grant.board] ?? [:]
            guard board[grant.member] != nil || board.count < maximum else { return .full }
            board[grant.member] = grant
            grants[grant.board] = board
            return .granted
        }
    }

    package func removeGrant(of member: MemberID, on board: BoardID) throws(StoreError) -> MemberGrant? {
        grants.withLock { grants in grants[board]?.removeValue(forKey: member) }
    }

    package func grants(of board: BoardID) throws(StoreError) -> [MemberGrant] {
        grants.withLock { grants in
            (grants[board] ?? [:]).values.sorted { $0.member.rawValue < $1.member.rawValue }
        }
    }

    package func allGrants(limit: Int) throws(StoreError) -> [MemberGrant] {
        let all = grants.withLock { grants in grants.values.flatMap(\.values) }
        var stored: [MemberGrant] = []
        for grant in all.sorted(by: { ($0.board, $0.member.rawValue) < ($1.board, $1.member.rawValue) })
        where stored.count < limit {
            if try exists(grant.board) { stored.append(grant) }
        }
        return stored
    }

    /// Forgets the board's grants (its deletion).
    func deleteGrants(of id: BoardID) {
        grants.withLock { $0[id] = nil }
    }
}
