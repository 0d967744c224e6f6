package import BoardCore

/// A board as CSV (`GET /api/boards/{id}/export.csv`): RFC 4180, CRLF line ends, a header row
/// and one row per card — zone, label, description, tags, assignees, due, checks, comments,
/// archived.
///
/// A cell that a spreadsheet would read as a formula (one beginning with `=`, `+`, `-`, `@`, a
/// tab or a carriage return) is prefixed with `'`, so that opening the file runs nothing.
package enum BoardCSV {
    /// The header row's cells.
    package static let header = [
        "zone", "label", "description", "tags", "assignees", "due", "checks", "comments", "archived",
    ]

    /// The CSV text of `board`: the cards of its zones in order, then its archive.
    package static func encode(_ board: Board) -> [UInt8] {
        var out: [UInt8] = []
        row(header, into: &out)
        let tagNames = Dictionary(board.tags.map { ($0.id, $0.name) }, uniquingKeysWith: { a, _ in a })
        func card(_ id: ItemID, zone: String, archived: Bool) {
            guard let item = board.item(id) else { return }
            let done = item.checklist.filter(\.done).count
            row(
                [
                    zone, item.label, item.description ?? "",
                    item.tags.compactMap { tagNames[$0] }.joined(separator: ", "),
                    item.assignees.map(\.name).joined(separator: ", "), item.due ?? "",
                    item.checklist.isEmpty ? "" : "\(done)/\(item.checklist.count)", String(item.comments),
                    archived ? "yes" : "no",
                ], into: &out)
        }
        for zone in board.zones {
            for id in zone.items { card(id, zone: zone.title ?? zone.id.rawValue, archived: false) }
        }
        for id in board.archived { card(id, zone: "", archived: true) }
        return out
    }

    /// One cell, neutralised and quoted as RFC 4180 asks.
    package static func cell(_ text: String) -> String {
        var text = text
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) else {
            return text
        }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }

    private static func row(_ cells: [String], into out: inout [UInt8]) {
        out += cells.map(cell).joined(separator: ",").utf8
        out += [13, 10]
    }
}
