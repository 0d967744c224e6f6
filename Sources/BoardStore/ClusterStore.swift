package import BoardCore

/// A node's view of who owns a board, as the shared database says.
package enum Claim: Equatable, Sendable {
    /// This node holds the board's lease, with this epoch (its fencing token).
    case mine(epoch: Int64)
    /// Another node's lease is live: that node, and the address other nodes reach it at.
    case owned(by: String, advertise: String)
}

/// A node of the cluster, as the database knows it.
package struct ClusterNode: Equatable, Sendable {
    /// Its `--node` name.
    package var name: String
    /// How other nodes reach it (`--advertise HOST:PORT`).
    package var advertise: String
    /// Whether its last renewal is younger than one lease.
    package var alive: Bool
    /// How many boards it holds a live lease on.
    package var boards: Int

    /// A node.
    package init(name: String, advertise: String, alive: Bool, boards: Int) {
        self.name = name
        self.advertise = advertise
        self.alive = alive
        self.boards = boards
    }
}

/// A store shared by the nodes of a cluster, where each board has one owner at a time.
///
/// Ownership is a lease in the database with an epoch, a fencing token that grows by one each time
/// the lease changes hands. Only the database's clock decides whether a lease has run out. Every
/// `write` of a board commits only if, in the same transaction, that board's lease is still this
/// node's, at the epoch of its `claim`, unexpired, and its ops continue the stored seq; otherwise
/// nothing of that board's writes commits and `write` throws a `StoreError` of kind `.fenced`.
/// The calls run on the store's writer and reader threads and on the node's renewal thread,
/// never on the service thread.
package protocol ClusterStore: BoardStore {
    /// This node's name.
    var node: String { get }
    /// How long a lease lasts, in seconds.
    var leaseSeconds: Double { get }
    /// Takes the board's lease when nobody's is live or it is already this node's (then renewing
    /// it), and says who holds it otherwise. With `force`, takes it even from a live owner (which
    /// is then fenced). A board need not exist yet: a lease may cover a board about to be created.
    func claim(_ id: BoardID, force: Bool) throws(StoreError) -> Claim
    /// Records this node as alive and extends every unexpired lease it holds, in one statement;
    /// returns the boards whose lease it still holds. Expired leases are not revived.
    func renew() throws(StoreError) -> Set<BoardID>
    /// Gives the board's lease up (it was dropped from memory), so another node may take it at once.
    func release(_ id: BoardID) throws(StoreError)
    /// Every node the database knows, alive or not, with the boards each holds a live lease on.
    func nodes() throws(StoreError) -> [ClusterNode]
    /// The node holding the board's live lease, if any.
    func owner(of id: BoardID) throws(StoreError) -> String?
    /// A random secret shared by every node of the cluster through the database (made by the first
    /// node), with which nodes authenticate the connections they forward to one another.
    func clusterSecret() throws(StoreError) -> [UInt8]
}
