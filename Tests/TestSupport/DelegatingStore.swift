package import BoardCore
package import BoardStore

/// A test's store that hands every call to another store: it says only what it does differently
/// (a slow write, a failing board, a claim before each write) and takes the rest from here.
package protocol DelegatingStore: BoardStore {
    /// The store type the calls go to.
    associatedtype Inner: BoardStore
    /// The store the calls go to.
    var inner: Inner { get }
}

extension DelegatingStore {
    /// As `inner`.
    package func write(_ batch: [StoreWrite]) throws(StoreError) { try inner.write(batch) }
    /// As `inner`.
    package func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        try inner.load(id, recentLimit: recentLimit)
    }
    /// As `inner`.
    package func exists(_ id: BoardID) throws(StoreError) -> Bool { try inner.exists(id) }
    /// As `inner`.
    package func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        try inner.list(after: after, limit: limit)
    }
    /// As `inner`.
    package func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        try inner.ops(of: id, since: since, limit: limit)
    }
    /// As `inner`.
    package func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf { try inner.board(id, at: seq) }
    /// As `inner`.
    package func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        try inner.history(of: id, before: before, limit: limit)
    }
    /// As `inner`.
    package func archive(of id: BoardID) throws(StoreError) -> BoardArchive? { try inner.archive(of: id) }
    package func comments(of id: BoardID, item: ItemID, before: Seq?, limit: Int) throws(StoreError) -> CommentsPage {
        try inner.comments(of: id, item: item, before: before, limit: limit)
    }
    /// As `inner`.
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        try inner.search(query, board: board, limit: limit)
    }
    /// As `inner`.
    package func reindex(all: Bool) throws(StoreError) -> Int { try inner.reindex(all: all) }
    /// As `inner`.
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try inner.restore(archive, replace: replace)
    }
    /// As `inner`.
    package func close() { inner.close() }
    /// As `inner`.
    package func forget(_ id: BoardID) { inner.forget(id) }
}

extension DelegatingStore where Self: RevocationStore, Inner: RevocationStore {
    /// As `inner`.
    package func revoke(_ revocation: Revocation, now: Int64) throws(StoreError) {
        try inner.revoke(revocation, now: now)
    }
    /// As `inner`.
    package func revocations(now: Int64) throws(StoreError) -> [Revocation] { try inner.revocations(now: now) }
}

extension DelegatingStore where Self: ClusterStore, Inner: ClusterStore {
    /// As `inner`.
    package var node: String { inner.node }
    /// As `inner`.
    package var leaseSeconds: Double { inner.leaseSeconds }
    /// As `inner`.
    package func claim(_ id: BoardID, force: Bool) throws(StoreError) -> Claim { try inner.claim(id, force: force) }
    /// As `inner`.
    package func renew() throws(StoreError) -> Set<BoardID> { try inner.renew() }
    /// As `inner`.
    package func release(_ id: BoardID) throws(StoreError) { try inner.release(id) }
    /// As `inner`.
    package func nodes() throws(StoreError) -> [ClusterNode] { try inner.nodes() }
    /// As `inner`.
    package func owner(of id: BoardID) throws(StoreError) -> String? { try inner.owner(of: id) }
    /// As `inner`.
    package func clusterSecret() throws(StoreError) -> [UInt8] { try inner.clusterSecret() }
}

extension DelegatingStore where Self: InboxStore, Inner: InboxStore {
    /// As `inner`.
    package func inbox(of member: MemberID, limit: Int) throws(StoreError) -> InboxPage {
        try inner.inbox(of: member, limit: limit)
    }
    /// As `inner`.
    package func markRead(_ member: MemberID, upTo: Int64) throws(StoreError) -> Int {
        try inner.markRead(member, upTo: upTo)
    }
    /// As `inner`.
    package func notices(after: Int64?, madeBefore: Int64, limit: Int) throws(StoreError) -> NoticeFeed {
        try inner.notices(after: after, madeBefore: madeBefore, limit: limit)
    }
}
