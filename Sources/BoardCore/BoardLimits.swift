/// The bounds every board keeps, whether it was defined, imported or edited op by op.
///
/// Texts are bounded in Unicode scalars and in UTF-8 bytes, and never hold control characters
/// (see `Text`).
package enum BoardLimits {
    /// The most zones on a board: 64.
    package static let zones = 64
    /// The most items on a board, archived ones included: 10,000. (The byte bound below applies
    /// too: 10,000 cards fit in it at about 400 bytes each, a short description each does not.)
    package static let items = 10_000
    /// The most columns of a grid.
    package static let columns = 64
    /// A board title: 1–200 scalars, at most 800 bytes.
    package static let title = TextLimit(scalars: 200, bytes: 800, allowsEmpty: false)
    /// A zone title: 1–100 scalars, at most 400 bytes.
    package static let zoneTitle = TextLimit(scalars: 100, bytes: 400, allowsEmpty: false)
    /// An item label: at most 200 scalars and 800 bytes (empty labels exist on paint boards).
    package static let label = TextLimit(scalars: 200, bytes: 800, allowsEmpty: true)
    /// An item's detail: at most 200 scalars and 800 bytes.
    package static let detail = TextLimit(scalars: 200, bytes: 800, allowsEmpty: true)
    /// A card's description (Markdown source): 1–10,000 scalars, at most 40,000 bytes; newlines
    /// and tabs allowed, other control characters not.
    package static let description = TextLimit(
        scalars: 10_000, bytes: 40_000, allowsEmpty: false, allowsLineBreaks: true)
    /// A tag's name: 1–50 scalars, at most 200 bytes.
    package static let tagName = TextLimit(scalars: 50, bytes: 200, allowsEmpty: false)
    /// A checklist entry's text: 1–200 scalars, at most 800 bytes.
    package static let checkText = TextLimit(scalars: 200, bytes: 800, allowsEmpty: false)
    /// The most tags a board defines.
    package static let tags = 64
    /// The most tags on one item.
    package static let tagsPerItem = 20
    /// The most assignees of one item.
    package static let assigneesPerItem = 20
    /// The most checklist entries of one item.
    package static let checksPerItem = 100
    /// The default bound on a board's size, measured as its JSON snapshot (`--max-board-bytes`):
    /// 4 MiB. Every welcome without a resume carries the whole board, and a room keeps it (twice,
    /// published and newest) in memory: a thousand cards with a page of description each fit, and
    /// one client cannot make every joiner download, or the server hold, more than that.
    package static let defaultMaxBoardBytes = 4 << 20
    /// The least `--max-board-bytes` may be: 64 KiB.
    package static let minimumMaxBoardBytes = 64 << 10
    /// The color a new item gets when its `add` names none.
    package static let defaultColor = "#ffe08a"
}

/// The bound on one kind of text.
package struct TextLimit: Equatable, Sendable {
    /// The most Unicode scalars.
    package var scalars: Int
    /// The most UTF-8 bytes.
    package var bytes: Int
    /// Whether the empty string is allowed.
    package var allowsEmpty: Bool
    /// Whether newlines and tabs are allowed (descriptions); other control characters never are.
    package var allowsLineBreaks = false

    /// Whether `s` is within the bound and holds no control character.
    package func allows(_ s: String) -> Bool {
        guard (allowsEmpty || !s.isEmpty) && s.utf8.count <= bytes else { return false }
        guard allowsLineBreaks else { return Text.isValidLabel(s, maximum: scalars) }
        var count = 0
        for scalar in s.unicodeScalars {
            if Text.isControl(scalar) && scalar != "\n" && scalar != "\t" { return false }
            count += 1
        }
        return count <= scalars
    }

    /// Whether a client may write `s` now: within the bound and, unless empty, with something
    /// visible (`Text.hasVisible`). Stored boards and ops are read with `allows`, so that what
    /// was accepted before this rule still loads.
    package func accepts(_ s: String) -> Bool {
        allows(s) && (s.isEmpty || Text.hasVisible(s))
    }

    /// The rule `accepts` applies, as a `bad_message` names it.
    package var inputRule: String {
        "\(allowsEmpty ? "at most \(scalars)" : "1–\(scalars)") characters (at most \(bytes) bytes, no control "
            + "characters, not only white space or invisible characters)"
    }

    /// The rule, as a `bad_message` names it: "1–200 characters (at most 800 bytes, no control characters)".
    package var rule: String {
        let controls = allowsLineBreaks ? "no control characters but newlines and tabs" : "no control characters"
        return "\(allowsEmpty ? "at most \(scalars)" : "1–\(scalars)") characters (at most \(bytes) bytes, \(controls))"
    }
}
