/// Rules for text a client writes that everyone else sees or the server keeps: display names,
/// op ids, titles and labels.
///
/// Lengths count Unicode scalars, never grapheme clusters (`"e"` and 30,000 combining accents is
/// one `Character` but 30,001 scalars), and are bounded in UTF-8 bytes too.
package enum Text {
    /// The most scalars in a display name.
    package static let maximumNameScalars = 64
    /// The most UTF-8 bytes in a display name.
    package static let maximumNameBytes = 256
    /// The most scalars in an op id.
    package static let maximumOpIDScalars = 128
    /// The most UTF-8 bytes in an op id.
    package static let maximumOpIDBytes = 256

    /// A control character: C0 (NUL, newline, ESC, …), DEL or C1. Never accepted in names or op ids.
    package static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// A scalar that changes how text around it is shown without showing itself: bidi overrides,
    /// embeddings, isolates and marks, zero-width spaces and word joiners, the BOM, soft hyphens,
    /// Hangul fillers and tag characters. Stripped from names, so nobody can reverse or hide
    /// another name with them. (Zero-width joiner and non-joiner stay: scripts and emoji need them.)
    package static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00AD, 0x061C, 0x115F, 0x1160, 0x180E, 0x200B, 0x200E, 0x200F, 0x202A...0x202E,
            0x2060...0x2064, 0x2066...0x206F, 0x3164, 0xFEFF, 0xFFA0, 0xE0000...0xE007F:
            true
        default:
            false
        }
    }

    /// Whether `s` shows anything: at least one scalar that is not white space, not a control or
    /// format character (bidi controls, zero-width spaces, tags), not default-ignorable and not
    /// a blank that renders as nothing (Hangul fillers, the braille blank). Titles and labels
    /// need one: a text of only such scalars is 0 px wide or blank and hides who did what.
    package static func hasVisible(_ s: String) -> Bool {
        s.unicodeScalars.contains { scalar in
            let properties = scalar.properties
            switch properties.generalCategory {
            case .control, .format, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned:
                return false
            default:
                return !properties.isWhitespace && !properties.isDefaultIgnorableCodePoint
                    && !isInvisible(scalar) && scalar.value != 0x2800
            }
        }
    }

    /// `raw` as a display name: invisible scalars stripped, surrounding white space trimmed; or
    /// why it cannot be one.
    package static func displayName(_ raw: String) -> Result<String, Problem> {
        var scalars = String.UnicodeScalarView()
        for scalar in raw.unicodeScalars {
            if isControl(scalar) { return .failure(.control) }
            if !isInvisible(scalar) { scalars.append(scalar) }
        }
        let name = String(scalars).trimmingWhitespace()
        guard !name.isEmpty else { return .failure(.empty) }
        guard name.unicodeScalars.count <= maximumNameScalars, name.utf8.count <= maximumNameBytes else {
            return .failure(.tooLong)
        }
        return .success(name)
    }

    /// Whether `s` can be an op id: 1–128 scalars, at most 256 UTF-8 bytes, no control characters.
    package static func isValidOpID(_ s: String) -> Bool {
        !s.isEmpty && s.utf8.count <= maximumOpIDBytes && isValidLabel(s, maximum: maximumOpIDScalars)
    }

    /// Whether `s` (a board title or an item label) has at most `maximum` scalars (so at most four
    /// times as many bytes) and no control characters.
    package static func isValidLabel(_ s: String, maximum: Int) -> Bool {
        var count = 0
        for scalar in s.unicodeScalars {
            if isControl(scalar) { return false }
            count += 1
        }
        return count <= maximum
    }

    /// Why a display name was refused.
    package enum Problem: Error, Equatable, Sendable {
        /// It holds a control character.
        case control
        /// Nothing is left once trimmed.
        case empty
        /// Over the scalar or byte bound.
        case tooLong
    }
}

extension String {
    /// The string without leading and trailing white space.
    package func trimmingWhitespace() -> String {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
