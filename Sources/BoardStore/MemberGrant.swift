package import BoardCore

/// A role given to one member on one board (`PUT /api/boards/{id}/members/{member}`): a person a
/// trusted proxy signs in (ProxySignIn.swift) has it on that board instead of the proxy's default.
/// A board's grants go when the board is deleted.
package struct MemberGrant: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The member.
    package var member: MemberID
    /// `view`, `edit` or `admin`.
    package var role: String
    /// Seconds since 1970 when it was given (or last changed).
    package var granted: Int64

    /// A grant.
    package init(board: BoardID, member: MemberID, role: String, granted: Int64) {
        self.board = board
        self.member = member
        self.role = role
        self.granted = granted
    }
}

/// What `GrantStore.grant` did.
package enum GrantOutcome: Equatable, Sendable {
    /// Stored (new, or the member's grant on the board replaced).
    case granted
    /// The board already has its most grants, none of them the member's.
    case full
    /// No such board is stored.
    case unknownBoard
}

/// A store that keeps grants: SQLite, PostgreSQL (shared by a cluster) and memory. Every call may
/// be made from the reader thread; the writes are durable when they return.
package protocol GrantStore: BoardStore {
    /// Stores `grant`, replacing the member's grant on the board, unless the board has `maximum`
    /// grants already and none is the member's; unless `boardKnown` (the caller holds the board
    /// in memory, maybe not stored yet), a board that is not stored gets `unknownBoard`.
    func grant(_ grant: MemberGrant, maximum: Int, boardKnown: Bool) throws(StoreError) -> GrantOutcome
    /// Removes the member's grant on the board; the grant, or nil when there was none.
    func removeGrant(of member: MemberID, on board: BoardID) throws(StoreError) -> MemberGrant?
    /// The board's grants, by member.
    func grants(of board: BoardID) throws(StoreError) -> [MemberGrant]
    /// Up to `limit` grants on stored boards, by board and member (what a server starts with).
    func allGrants(limit: Int) throws(StoreError) -> [MemberGrant]
}

/// The grant rows both databases share (written with a board's deletion, in its transaction).
protocol GrantRows {
    /// Deletes every grant on the board.
    func deleteGrants(of id: BoardID) throws(StoreError)
}
