/// The boards of the design articles (../shared/seeds), ready to make: `GET /api/templates`
/// lists them, `POST /api/boards {"template"}` makes one, and `hello` on an unknown board id
/// makes the server's default (`colors` unless `--default-template` says otherwise).
package enum Template: String, CaseIterable, Equatable, Sendable {
    /// A 3-column grid of twelve colors and a tray (articles 001 and 004).
    case colors
    /// Two horizontal strips, items moved within and between them (article 000).
    case strips
    /// An 8 × 8 grid of cells to paint by dragging across them (article 002).
    case paint
    /// A vertical list of rows, reordered by a handle, locked to the vertical axis (article 003).
    case playlist
    /// Three columns of cards: To do, Doing, Done.
    case kanban

    /// What a `template` member must be, for errors: "one of colors, strips, …".
    package static var rule: String { "one of " + allCases.map(\.rawValue).joined(separator: ", ") }

    /// A human name.
    package var title: String {
        switch self {
        case .colors: "Colors"
        case .strips: "Strips"
        case .paint: "Paint"
        case .playlist: "Playlist"
        case .kanban: "Kanban"
        }
    }

    /// One sentence on what the board is for.
    package var summary: String {
        switch self {
        case .colors: "Twelve colored tiles in a grid and a tray: swap, reorder live, or move them between the two."
        case .strips:
            "Two strips of tiles: move tiles within a strip or across to the other; drop on the empty end to append."
        case .paint: "An 8 × 8 grid of cells: drag across in paint mode to toggle each cell once per stroke."
        case .playlist: "A list of songs reordered by the handle at each row's end, moving only up and down."
        case .kanban: "Three columns, To do, Doing and Done, of cards moved within and between them."
        }
    }

    /// The board, titled `title` (the template's own title when nil).
    package func definition(title: String? = nil) -> BoardDefinition {
        typealias Spec = BoardDefinition.ItemSpec
        let zones: [BoardDefinition.ZoneSpec]
        var columns = 3
        switch self {
        case .colors:
            let palette = [
                ("Red", "#e53935"), ("Orange", "#fb8c00"), ("Yellow", "#fdd835"), ("Lime", "#c0ca33"),
                ("Green", "#43a047"), ("Teal", "#00897b"), ("Cyan", "#00acc1"), ("Blue", "#1e88e5"),
                ("Indigo", "#3949ab"), ("Purple", "#8e24aa"), ("Pink", "#d81b60"), ("Brown", "#6d4c41"),
            ]
            // No layouts: exactly the board every shuffleboard has always made.
            zones = [
                .init(Zone(id: ZoneID("grid")!, items: []), palette.map { Spec($0.0, $0.1) }),
                .init(Zone(id: ZoneID("tray")!, items: []), []),
            ]
        case .strips:
            let shapes = [
                ("Circle", "#ef5350"), ("Square", "#42a5f5"), ("Triangle", "#66bb6a"), ("Star", "#ffca28"),
                ("Heart", "#ec407a"), ("Moon", "#7e57c2"),
            ]
            zones = [
                .init(zone("top", "Top", .row), shapes.map { Spec($0.0, $0.1) }),
                .init(zone("bottom", "Bottom", .row), [Spec("Cloud", "#90a4ae"), Spec("Leaf", "#8d6e63")]),
            ]
        case .paint:
            columns = 8
            let cells = (0..<64).map { i in
                Spec("\(["A", "B", "C", "D", "E", "F", "G", "H"][i / 8])\(i % 8 + 1)", "#26a69a")
            }
            zones = [.init(Zone(id: ZoneID("cells")!, items: [], layout: .grid, columns: 8), cells)]
        case .playlist:
            let songs = [
                ("Blue in Green", "Miles Davis · 5:37"), ("Clair de lune", "Claude Debussy · 5:04"),
                ("Hoppípolla", "Sigur Rós · 4:28"), ("Teardrop", "Massive Attack · 5:29"),
                ("Strange Fruit", "Billie Holiday · 3:12"), ("Windowlicker", "Aphex Twin · 6:07"),
                ("La Javanaise", "Serge Gainsbourg · 2:35"), ("Pyramid Song", "Radiohead · 4:49"),
            ]
            var list = zone("songs", "Playlist", .list)
            list.handle = true
            list.axis = .y
            zones = [.init(list, songs.map { Spec($0.0, "#5c6bc0", detail: $0.1) })]
        case .kanban:
            zones = [
                .init(
                    zone("todo", "To do", .list),
                    [
                        Spec("Write the release notes", "#ffb74d", detail: "docs"),
                        Spec("Try it on a phone", "#4fc3f7", detail: "testing"),
                        Spec("Plan the next sprint", "#aed581"),
                    ]),
                .init(
                    zone("doing", "Doing", .list),
                    [Spec("Fix the login page", "#e57373", detail: "bug"), Spec("New icons", "#ba68c8")]),
                .init(zone("done", "Done", .list), [Spec("Set up the server", "#90a4ae")]),
            ]
        }
        let mode: Board.Mode? =
            switch self {
            case .colors: nil  // Exactly the board every shuffleboard has always made.
            case .paint: .paint
            case .strips, .playlist, .kanban: .move
            }
        return BoardDefinition(
            id: nil, title: title ?? self.title, columns: columns, zones: zones, mode: mode, template: self)
    }

    /// The board with id `id` (titled with the id, as `hello` makes it).
    package func board(id: BoardID) -> Board {
        definition(title: id.rawValue).board(id: id)
    }

    private func zone(_ id: String, _ title: String, _ layout: Zone.Layout) -> Zone {
        Zone(id: ZoneID(id)!, items: [], title: title, layout: layout)
    }
}
