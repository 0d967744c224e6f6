/// Rules for the ids that appear on the wire.
package enum Identifier {
    /// Board, item and zone ids: 1–64 characters of `[A-Za-z0-9_-]`.
    package static func isValid(_ s: String) -> Bool {
        let utf8 = s.utf8
        guard (1...64).contains(utf8.count) else { return false }
        return utf8.allSatisfy { c in
            switch c {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// Op ids: client-chosen strings of 1–128 Unicode scalars (at most 256 UTF-8 bytes), no
    /// control characters.
    package static func isValidOpID(_ s: String) -> Bool { Text.isValidOpID(s) }
}

/// The id of a board.
package struct BoardID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// An id, if `rawValue` follows the id rules.
    package init?(_ rawValue: String) {
        guard Identifier.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// The id text.
    package var description: String { rawValue }
    /// Orders ids by their text.
    package static func < (a: BoardID, b: BoardID) -> Bool { a.rawValue < b.rawValue }
}

/// The id of an item (a tile).
package struct ItemID: Hashable, Sendable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// An id, if `rawValue` follows the id rules.
    package init?(_ rawValue: String) {
        guard Identifier.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// The id text.
    package var description: String { rawValue }
}

/// The id of a zone (`grid`, `tray`, …).
package struct ZoneID: Hashable, Sendable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// An id, if `rawValue` follows the id rules.
    package init?(_ rawValue: String) {
        guard Identifier.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// The id text.
    package var description: String { rawValue }
}

/// A client-chosen op id, used to deduplicate resends.
package struct OpID: Hashable, Sendable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// An id, if `rawValue` follows `Identifier.isValidOpID`.
    package init?(_ rawValue: String) {
        guard Identifier.isValidOpID(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// The id text.
    package var description: String { rawValue }
}

/// The id of a connected user: one per connection, assigned by the server (`u1`, `u2`, …).
package struct UserID: Hashable, Sendable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// A user id with this text.
    package init(_ rawValue: String) { self.rawValue = rawValue }
    /// The `n`th user id.
    package init(number: UInt64) { self.rawValue = "u\(number)" }
    /// The id text.
    package var description: String { rawValue }
}

/// A board sequence number: the count of ops committed on a board so far.
package typealias Seq = Int
