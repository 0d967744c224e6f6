package import BoardCore

extension MemoryStore: LinkStore {
    package func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> Bool {
        links.withLock { links in
            links = links.filter { $0.value.expires > now }
            guard links.values.count(where: { $0.board == link.board }) < maximum else { return false }
            links[link.id] = link
            return true
        }
    }

    package func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink] {
        links.withLock { links in
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
}
