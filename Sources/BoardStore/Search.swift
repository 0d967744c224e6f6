package import BoardCore

// Search over every board (issue 36): each store keeps an index of the texts people look for —
// a card's label, description and checklist, each comment, each board's title — written in the
// same transaction as the ops that change them (`SearchIndexing`), and asked with a query made
// of words, each matching the words it begins ("log" finds "login"), every word needed. The
// query text never reaches SQL as SQL: its words are letters and digits only, quoted again by
// each store (`fts5`, `tsquery`) and bound as one parameter.

/// A search, as the words of its text.
package struct SearchQuery: Equatable, Sendable {
    /// The most characters (Unicode scalars) of query text `GET /api/search` takes: at most 256
    /// bytes of UTF-8, and a bound a JSON schema can state (docs/openapi.yaml).
    package static let maximumScalars = 64
    /// The most words a query keeps (the first ones).
    package static let maximumWords = 8
    /// The most bytes a word keeps (longer ones are cut, so still match as prefixes).
    package static let maximumWordBytes = 64

    /// The words, lowercased: letters and digits only, never empty.
    package let words: [String]

    /// The query of `text`'s words, or nil when it has none.
    package init?(_ text: String) {
        let words = Self.words(of: text).prefix(Self.maximumWords).map(Self.cut)
        guard !words.isEmpty else { return nil }
        self.words = Array(words)
    }

    /// The words of a text: runs of letters and digits, lowercased.
    static func words(of text: Substring) -> [String] {
        var words: [String] = []
        var word = ""
        for c in text {
            if isWordCharacter(c) {
                word.append(c)
            } else if !word.isEmpty {
                words.append(word.lowercased())
                word = ""
            }
        }
        if !word.isEmpty { words.append(word.lowercased()) }
        return words
    }

    static func words(of text: String) -> [String] { words(of: text[...]) }

    /// Whether `c` belongs to a word: its first scalar a letter, a digit or other number, or a
    /// private-use character, as SQLite's unicode61 tokenizer has it ("L* N* Co"), so that no
    /// word of a query is one the index cannot hold.
    static func isWordCharacter(_ c: Character) -> Bool {
        guard let first = c.unicodeScalars.first else { return false }
        switch first.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber,
            .letterNumber, .otherNumber, .privateUse:
            return true
        default:
            return false
        }
    }

    /// A word cut to `maximumWordBytes` on a character boundary.
    private static func cut(_ word: String) -> String {
        guard word.utf8.count > maximumWordBytes else { return word }
        var cut = ""
        for c in word {
            if cut.utf8.count + c.utf8.count > maximumWordBytes { break }
            cut.append(c)
        }
        return cut
    }

    /// The FTS5 MATCH expression: each word a quoted prefix, all of them needed.
    var fts5: String {
        words.map { "\"" + $0.replacingOccurrences(of: "\"", with: "\"\"") + "\"*" }.joined(separator: " ")
    }

    /// The `to_tsquery('simple', …)` text: each word a quoted prefix (`:*`), all of them needed.
    var tsquery: String {
        words.map {
            "'" + $0.replacingOccurrences(of: "'", with: "''").replacingOccurrences(of: "\\", with: "\\\\") + "':*"
        }
        .joined(separator: " & ")
    }

    /// Whether `word` (lowercased) begins with one of the query's words.
    func matches(_ word: String) -> Bool { words.contains { word.hasPrefix($0) } }
}

/// One text the index keeps: a card (`seq` 0), a comment on a card (`seq`: the op that made it),
/// or the board's title (`item` empty).
struct SearchDoc: Equatable, Sendable {
    var board: BoardID
    /// The card's id; empty for the board's title.
    var item: String
    /// The seq of the comment's op; 0 for a card or the title.
    var seq: Seq
    /// Whether the card is archived.
    var archived: Bool
    /// The card's label or the board's title; empty for a comment.
    var label: String
    /// The description and checklist texts, or the comment's text.
    var body: String

    /// The most bytes of a document's text kept in the index (a card's description and checklist
    /// are bounded by the card-content limits; this bounds what one row can cost the index).
    static let maximumBytes = 64 << 10

    /// The card's document.
    static func card(_ item: Item, of board: Board) -> SearchDoc {
        var body = item.description ?? ""
        for check in item.checklist { body += "\n" + check.text }
        return SearchDoc(
            board: board.id, item: item.id.rawValue, seq: 0, archived: board.isArchived(item.id),
            label: clean(item.label), body: clean(body))
    }

    /// The board's title document.
    static func title(of board: Board) -> SearchDoc {
        SearchDoc(board: board.id, item: "", seq: 0, archived: false, label: clean(board.title), body: "")
    }

    /// A comment's document.
    static func comment(_ text: String, seq: Seq, on item: ItemID, of board: BoardID) -> SearchDoc {
        SearchDoc(board: board, item: item.rawValue, seq: seq, archived: false, label: "", body: clean(text))
    }

    /// Every document of a board: its title, its cards and its comments.
    static func all(of board: Board, comments: [ItemComment]) -> [SearchDoc] {
        var docs = [title(of: board)]
        for item in board.items { docs.append(card(item, of: board)) }
        for c in comments {
            guard let seq = c.comment.id.seq else { continue }
            docs.append(comment(c.comment.text, seq: seq, on: c.item, of: board.id))
        }
        return docs
    }

    /// Text as the index keeps it: control characters (NUL, which PostgreSQL's text cannot hold,
    /// among them) as spaces, cut to `maximumBytes` on a character boundary.
    static func clean(_ text: String) -> String {
        var out = ""
        var bytes = 0
        for c in text {
            let kept: Character = c.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : c
            bytes += kept.utf8.count
            if bytes > maximumBytes { break }
            out.append(kept)
        }
        return out
    }
}

/// A document the index found, as a store reads it back (before its snippet is cut): for a
/// comment, `label` and `archived` are its card's; the snippet is cut from `body`, or from
/// `label` when the body has no match.
struct SearchRow: Sendable {
    var doc: SearchDoc
    /// The title of the document's board.
    var boardTitle: String
}

/// One search result.
package struct SearchHit: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// Its title.
    package var boardTitle: String
    /// The card, or nil for a board's title.
    package var item: ItemID?
    /// The comment the words were found in, or nil.
    package var comment: CommentID?
    /// The card's label (the board's title for a title).
    package var label: String
    /// Some text around the first word found, from where it was found.
    package var snippet: String
    /// Whether the card is archived.
    package var archived: Bool
}

/// The results of a search, best first.
package struct SearchResults: Equatable, Sendable {
    /// Up to the asked-for number of hits.
    package var hits: [SearchHit]
    /// Whether there are more.
    package var more: Bool

    /// Results.
    package init(hits: [SearchHit], more: Bool) {
        self.hits = hits
        self.more = more
    }
}

/// The most results one search may ask for.
package let maximumSearchResults = 50

extension SearchRow {
    /// The hit: ids checked (a damaged row is skipped, not shown), the snippet cut.
    func hit(for query: SearchQuery) -> SearchHit? {
        var item: ItemID?
        if !doc.item.isEmpty {
            guard let id = ItemID(doc.item) else { return nil }
            item = id
        }
        let source = snippetSource(query)
        return SearchHit(
            board: doc.board, boardTitle: boardTitle, item: item,
            comment: doc.seq > 0 ? CommentID(seq: doc.seq) : nil, label: doc.label,
            snippet: Self.snippet(of: source, around: query), archived: doc.archived)
    }

    private func snippetSource(_ query: SearchQuery) -> String {
        let (body, label) = (doc.body, doc.label)
        if Self.firstMatch(in: body, query) != nil { return body }
        return doc.seq > 0 || body.isEmpty ? (body.isEmpty ? label : body) : label
    }

    /// The most characters of a snippet.
    static let snippetLength = 160

    /// Up to `snippetLength` characters of `text` around its first word the query matches (from
    /// the start when none does), whitespace runs as one space, "…" where it was cut.
    static func snippet(of text: String, around query: SearchQuery) -> String {
        let flat = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard flat.count > snippetLength else { return flat }
        let start = firstMatch(in: flat, query) ?? flat.startIndex
        let lead = flat.distance(from: flat.startIndex, to: start)
        let from = flat.index(start, offsetBy: -min(lead, 40))
        let to = flat.index(from, offsetBy: snippetLength, limitedBy: flat.endIndex) ?? flat.endIndex
        return (from > flat.startIndex ? "…" : "") + flat[from..<to] + (to < flat.endIndex ? "…" : "")
    }

    /// Where the first word of `text` the query matches begins.
    static func firstMatch(in text: String, _ query: SearchQuery) -> String.Index? {
        var start: String.Index?
        var i = text.startIndex
        while i < text.endIndex {
            if SearchQuery.isWordCharacter(text[i]) {
                if start == nil { start = i }
            } else if let s = start {
                if query.matches(text[s..<i].lowercased()) { return s }
                start = nil
            }
            i = text.index(after: i)
        }
        if let s = start, query.matches(text[s...].lowercased()) { return s }
        return nil
    }
}
