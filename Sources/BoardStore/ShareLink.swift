package import BoardCore

/// A share link made in the app (`POST /api/boards/{id}/links`), as the store keeps it: never
/// the link's token, only the token's id (`j`, which names the link) and its revocation id (the
/// SHA-256 of its text, which `DELETE …/links/{id}` puts on the revocation list).
package struct ShareLink: Equatable, Sendable {
    /// The link's id: its token's random `j`.
    package var id: String
    /// The board it lets its holder onto.
    package var board: BoardID
    /// `view` or `edit`.
    package var role: String
    /// Seconds since 1970 when it was made.
    package var created: Int64
    /// Seconds since 1970 when it stops working (its token's expiry).
    package var expires: Int64
    /// The SHA-256 of its token's text, in lower-case hex (`TokenAuthority.revocationID`).
    package var tokenID: String

    /// A link.
    package init(id: String, board: BoardID, role: String, created: Int64, expires: Int64, tokenID: String) {
        self.id = id
        self.board = board
        self.role = role
        self.created = created
        self.expires = expires
        self.tokenID = tokenID
    }

    /// The revocation that ends this link.
    package var revocation: Revocation { Revocation(id: tokenID, board: board, until: expires) }
}

/// A store that keeps share links: SQLite, PostgreSQL (shared by a cluster) and memory. Every
/// call may be made from the reader thread; the writes are durable when they return.
package protocol LinkStore: RevocationStore {
    /// Stores `link` unless its board is not stored or already has `maximum` links live at
    /// `now`; forgets the board's links that expired at or before `now` first.
    func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition
    /// The board's links live at `now`, oldest first; nil when the board is not stored.
    func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink]?
    /// Removes the board's link `id` and revokes its token, in one transaction; the link, or nil
    /// when the board has no such live link.
    func revokeLink(_ id: String, of board: BoardID, now: Int64) throws(StoreError) -> ShareLink?
}

/// What `addLink` did.
package enum LinkAddition: Equatable, Sendable {
    /// Stored.
    case added
    /// Not stored: the board has its most live links.
    case full
    /// Not stored: there is no such board (a link must not wait for a board made later).
    case unknownBoard
}
