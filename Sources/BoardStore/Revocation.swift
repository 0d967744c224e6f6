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

/// The revocations in force, by id, as one load from the store found them: built on the reader
/// thread, so that the hub swaps a whole list in one step instead of building a table of up to
/// 100,000 entries on the service thread, and with a fingerprint that tells the hub, at no cost,
/// that nothing changed since the last load (the usual case, every second on every node).
package struct RevocationSet: Sendable, Equatable {
    /// In force, by id.
    package private(set) var byID: [String: Revocation]
    /// The same for the same revocations in any order, and almost surely different otherwise:
    /// ids are SHA-256 in hex, so their first 16 digits are uniform; `until` is mixed in, since a
    /// revocation made again can move it.
    package private(set) var fingerprint: UInt64

    /// The set of `revocations` (for an id given twice, the later `until`).
    package init(_ revocations: [Revocation] = []) {
        byID = [:]
        fingerprint = 0
        byID.reserveCapacity(revocations.count)
        for revocation in revocations { insert(revocation) }
    }

    /// Adds `revocation`, or moves an existing one's `until` to the later of the two.
    package mutating func insert(_ revocation: Revocation) {
        if let old = byID[revocation.id] {
            guard old.until < revocation.until else { return }
            fingerprint ^= Self.fingerprint(of: old)
        }
        byID[revocation.id] = revocation
        fingerprint ^= Self.fingerprint(of: revocation)
    }

    /// The revocation of token id `id`, if there is one.
    package subscript(id: String) -> Revocation? { byID[id] }

    /// How many there are.
    package var count: Int { byID.count }

    /// True when there are none.
    package var isEmpty: Bool { byID.isEmpty }

    private static func fingerprint(of revocation: Revocation) -> UInt64 {
        let digits = revocation.id.utf8.prefix(16)
        var prefix = UInt64(0)
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: value = digit  // Not hex (a test's id): still mixed in.
            }
            prefix = prefix &* 16 &+ UInt64(value)
        }
        // Ids shorter than 16 digits (tests) get their length mixed in as well.
        prefix ^= UInt64(revocation.id.utf8.count) &* 0x9E37_79B9_7F4A_7C15
        return prefix ^ (UInt64(bitPattern: revocation.until) &* 0xBF58_476D_1CE4_E5B9)
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
