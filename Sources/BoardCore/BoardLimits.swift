/// The bounds every board keeps, whether it was defined, imported or edited op by op.
///
/// Texts are bounded in Unicode scalars and in UTF-8 bytes, and never hold control characters
/// (see `Text`).
package enum BoardLimits {
    /// The most zones on a board.
    package static let zones = 16
    /// The most items on a board.
    package static let items = 1000
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

    /// Whether `s` is within the bound and holds no control character.
    package func allows(_ s: String) -> Bool {
        (allowsEmpty || !s.isEmpty) && s.utf8.count <= bytes && Text.isValidLabel(s, maximum: scalars)
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
        "\(allowsEmpty ? "at most \(scalars)" : "1–\(scalars)") characters (at most \(bytes) bytes, no control characters)"
    }
}
