package import BoardCore

/// A revoked access token, as the store keeps it: never the token itself, only its id (a hash of
/// it), the board it was for, and when it would have expired anyway. Past that time the
/// revocation is forgotten, so the table holds only tokens that would still work.
package struct Revocation: Equatable, Sendable {
    /// The token's id: the SHA-256 of its text, in lower-case hex (`TokenAuthority.revocationID`).
    package var id: String
    /// The board the token was for; nil for every board (`*`).
    package var board: BoardID?
    /// The token's expiry, in seconds since 1970: the revocation is kept until then.
    package var until: Int64

    /// A revocation.
    package init(id: String, board: BoardID?, until: Int64) {
        self.id = id
        self.board = board
        self.until = until
    }
}

/// A store that keeps revocations: SQLite, PostgreSQL (shared by a cluster) and memory.
///
/// Both calls may be made from the reader thread: `revoke` writes on the store's writer
/// connection under its lock, in a transaction of its own, so it is durable when it returns.
package protocol RevocationStore: BoardStore {
    /// Stores `revocation` (again: its `until` is kept as the later of the two), and forgets the
    /// revocations whose `until` is at or before `now` (seconds since 1970).
    func revoke(_ revocation: Revocation, now: Int64) throws(StoreError)
    /// Every revocation whose `until` is after `now`, by id.
    func revocations(now: Int64) throws(StoreError) -> [Revocation]
}
