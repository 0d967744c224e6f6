package import BoardCore

extension MemoryStore: LinkStore {
    package func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition {
        // Under the boards' lock, as a deletion revokes the links (boards, then links).
        whileStored(link.board) {
            links.withLock { links in
                links = links.filter { $0.value.expires > now }
                guard links.values.count(where: { $0.board == link.board }) < maximum else { return .full }
                links[link.id] = link
                return .added
            }
        } ?? .unknownBoard
    }

    package func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink]? {
        guard try exists(board) else { return nil }
        return links.withLock { links in
            links.values.filter { $0.board == board && $0.expires > now }.sorted {
                ($0.created, $0.id) < ($1.created, $1.id)
            }
        }
    }

    package func revokeLink(_ id: String, of board: BoardID, now: Int64) throws(StoreError) -> ShareLink? {
        let link = links.withLock { links -> ShareLink? in
            guard let link = links[id], link.board == board, link.expires > now else { return nil }
            links[id] = nil
            return link
        }
        if let link { try revoke(link.revocation, now: now) }
        return link
    }

    /// Revokes the board's links and forgets them (its deletion: a link must not outlive its
    /// board). Called with the boards' lock held.
    func revokeLinks(of board: BoardID) {
        let gone = links.withLock { links -> [ShareLink] in
            let gone = links.values.filter { $0.board == board }
            for link in gone { links[link.id] = nil }
            return gone
        }
        for link in gone { try? revoke(link.revocation, now: 0) }
    }
}
