// What a card holds beyond its label: tags (defined once per board), assignees, a due date and a
// checklist; and the ids of those parts.

/// Tags.
package enum TagKind: IDKind { package static let expected = identifier("a tag id") }
/// The id of a board's tag (`g<seq>` when the server makes it): 1–64 characters `[A-Za-z0-9_-]`.
package typealias TagID = WireID<TagKind>

/// Checklist entries.
package enum CheckKind: IDKind { package static let expected = identifier("a check id") }
/// The id of a checklist entry (`k<seq>` when the server makes it), unique on the board.
package typealias CheckID = WireID<CheckKind>

/// Members.
package enum MemberKind: IDKind { package static let expected = identifier("a member id") }
/// A stable id for a person, chosen by their client (`hello.member`) or their token (`sub`):
/// 1–64 characters `[A-Za-z0-9_-]`.
package typealias MemberID = WireID<MemberKind>

/// A label a board defines once and cards carry by id.
package struct Tag: Equatable, Sendable {
    /// Its id, unique on the board and never reused.
    package var id: TagID
    /// What it says: 1–50 scalars.
    package var name: String
    /// A CSS color (`Board.isValidColor`).
    package var color: String

    /// A tag.
    package init(id: TagID, name: String, color: String) { (self.id, self.name, self.color) = (id, name, color) }
}

/// Someone a card is assigned to: a member id and the name they had when assigned.
package struct Assignee: Equatable, Sendable {
    /// Who.
    package var member: MemberID
    /// Their display name (the rule of `Text.displayName`).
    package var name: String

    /// An assignee.
    package init(member: MemberID, name: String) { (self.member, self.name) = (member, name) }
}

/// One entry of a card's checklist.
package struct Check: Equatable, Sendable {
    /// Its id, unique on the board.
    package var id: CheckID
    /// What is to be done: 1–200 scalars.
    package var text: String
    /// Ticked.
    package var done: Bool

    /// An entry.
    package init(id: CheckID, text: String, done: Bool = false) { (self.id, self.text, self.done) = (id, text, done) }
}

/// An edit of some fields of a card's part (`TagEdit`, `CheckEdit`): which it changes.
package protocol PartEdit {
    associatedtype Field: CaseIterable
    /// Whether the edit changes `field`.
    func changes(_ field: Field) -> Bool
}

extension PartEdit {
    /// True when the edit changes nothing.
    package var isEmpty: Bool { !Field.allCases.contains(where: changes) }

    /// The fields it changes, in their declared order: the unit of its conflict rule.
    package var fields: [Field] { Field.allCases.filter(changes) }
}

/// The fields an `editTag` changes; nil leaves a field as it is.
package struct TagEdit: Equatable, Sendable, PartEdit {
    /// The new name.
    package var name: String?
    /// The new color.
    package var color: String?

    /// An edit.
    package init(name: String? = nil, color: String? = nil) { (self.name, self.color) = (name, color) }

    /// Whether it changes `field`.
    package func changes(_ field: TagField) -> Bool {
        switch field {
        case .name: name != nil
        case .color: color != nil
        }
    }
}

/// A field of a tag that `editTag` can change.
package enum TagField: String, Equatable, Sendable, CaseIterable {
    case name, color
}

/// The fields an `editCheck` changes; nil leaves a field as it is.
package struct CheckEdit: Equatable, Sendable, PartEdit {
    /// The new text.
    package var text: String?
    /// Ticked or not.
    package var done: Bool?

    /// An edit.
    package init(text: String? = nil, done: Bool? = nil) { (self.text, self.done) = (text, done) }

    /// Whether it changes `field`.
    package func changes(_ field: CheckField) -> Bool {
        switch field {
        case .text: text != nil
        case .done: done != nil
        }
    }
}

/// A field of a checklist entry that `editCheck` can change.
package enum CheckField: String, Equatable, Sendable, CaseIterable {
    case text, done
}

/// Due dates: `YYYY-MM-DD` or `YYYY-MM-DDTHH:MMZ`, a real calendar date (and time, in UTC).
package enum DueDate {
    /// Whether `s` is a due date in one of the two forms, naming a day that exists.
    package static func isValid(_ s: String) -> Bool {
        let b = Array(s.utf8)
        guard b.count == 10 || b.count == 17 else { return false }
        func number(_ range: Range<Int>) -> Int? {
            var n = 0
            for i in range {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b[i]) else { return nil }
                n = n * 10 + Int(b[i] - UInt8(ascii: "0"))
            }
            return n
        }
        guard let year = number(0..<4), b[4] == UInt8(ascii: "-"), let month = number(5..<7),
            b[7] == UInt8(ascii: "-"), let day = number(8..<10), year >= 1, (1...12).contains(month)
        else { return false }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        guard (1...days).contains(day) else { return false }
        if b.count == 10 { return true }
        guard b[10] == UInt8(ascii: "T"), let hour = number(11..<13), b[13] == UInt8(ascii: ":"),
            let minute = number(14..<16), b[16] == UInt8(ascii: "Z")
        else { return false }
        return hour < 24 && minute < 60
    }
}
