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

/// What an id names, and the rule its text follows: `Identifier.isValid` unless the kind says
/// otherwise.
package protocol IDKind: Sendable {
    /// Whether `text` may be an id of this kind.
    static func isValid(_ text: String) -> Bool
    /// What a decoding error says such an id must be (`JSON.id`).
    static var expected: String { get }
}

extension IDKind {
    /// Board, item, zone, tag, checklist, member and comment ids: `Identifier.isValid`.
    package static func isValid(_ text: String) -> Bool { Identifier.isValid(text) }
    /// `Identifier.isValid`'s rule for an id called `what` ("a tag id").
    static func identifier(_ what: String) -> String { "\(what) of 1–64 characters [A-Za-z0-9_-]" }
}

/// An id of one kind as the wire carries it: text that `init?(_:)` checked against the kind's
/// rule. Each kind is a type of its own (`BoardID`, `ItemID`, …), so that one is never taken for another.
package struct WireID<Kind: IDKind>: Hashable, Sendable, CustomStringConvertible {
    /// The id text.
    package let rawValue: String
    /// An id, if `rawValue` follows the kind's rule.
    package init?(_ rawValue: String) {
        guard Kind.isValid(rawValue) else { return nil }
        self.rawValue = rawValue
    }
    /// Text made in this module that follows the rule by construction (`CommentID(seq:)`).
    init(unchecked rawValue: String) { self.rawValue = rawValue }
    /// The id text.
    package var description: String { rawValue }
    /// The id a request that makes something (`add`, `addZone`, `addTag`, `addCheck`, `comment`)
    /// carries until the sequencer assigns a real one; never committed.
    package static var unassigned: Self { Self(unchecked: "unassigned") }
}

/// Boards.
package enum BoardKind: IDKind { package static let expected = identifier("an id") }
/// The id of a board.
package typealias BoardID = WireID<BoardKind>

extension WireID: Comparable where Kind == BoardKind {
    /// Orders ids by their text.
    package static func < (a: BoardID, b: BoardID) -> Bool { a.rawValue < b.rawValue }
}

/// Items (tiles).
package enum ItemKind: IDKind { package static let expected = identifier("an item id") }
/// The id of an item (a tile).
package typealias ItemID = WireID<ItemKind>

/// Zones.
package enum ZoneKind: IDKind { package static let expected = identifier("a zone id") }
/// The id of a zone (`grid`, `tray`, …).
package typealias ZoneID = WireID<ZoneKind>

/// Op ids: `Identifier.isValidOpID`.
package enum OpKind: IDKind {
    /// Client-chosen: 1–128 Unicode scalars, no control characters.
    package static func isValid(_ text: String) -> Bool { Identifier.isValidOpID(text) }
    package static var expected: String { "a string of 1–128 characters (at most 256 bytes, no control characters)" }
}
/// A client-chosen op id, used to deduplicate resends.
package typealias OpID = WireID<OpKind>

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
