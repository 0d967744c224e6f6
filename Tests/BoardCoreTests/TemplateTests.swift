import BoardCore
import Testing

/// Templates, zone layouts and their JSON.
@Suite struct TemplateTests {
    @Test(arguments: Template.allCases)
    func everyTemplateIsAValidBoardThatRoundTripsThroughJSON(_ template: Template) throws {
        let board = template.board(id: BoardID("b")!)
        #expect(
            Board.validate(title: board.title, columns: board.columns, zones: board.zones, items: board.items) == nil)
        let back = try Board(json: try JSON.parse(board.encoded()))
        #expect(back == board)
        #expect(back.zones.map(\.layout) == board.zones.map(\.layout))
    }

    @Test func colorsIsTheBoardShuffleboardAlwaysMadeByteForByte() throws {
        // Boards made before layouts and the colors template have the same JSON: old clients see no change.
        let json = String(decoding: Board.defaultTemplate(id: BoardID("demo")!).encoded(), as: UTF8.self)
        #expect(json.hasPrefix(#"{"id":"demo","title":"demo","columns":3,"zones":[{"id":"grid","items":["t1","#))
        #expect(!json.contains("layout") && !json.contains("detail") && !json.contains("handle"))
        // The template it was made from comes last, after everything a board always had.
        #expect(json.hasSuffix(#""on":false}],"template":"colors"}"#))
    }

    @Test(arguments: Template.allCases)
    func aBoardKeepsTheTemplateItWasMadeFromThroughItsJSONAndARestore(_ template: Template) throws {
        let board = template.board(id: BoardID("b")!)
        #expect(board.template == template)
        #expect(try Board(json: try JSON.parse(board.encoded(stored: true))).template == template)
        // A restore puts back zones and items, never another template (not even one it carries).
        var restored = board
        restored.apply(.retitle(title: "Later"))
        var carried = Template.paint.board(id: BoardID("b")!)
        carried.template = template == .paint ? .kanban : .paint
        restored.apply(.restore(to: 0, board: carried))
        #expect(restored.template == template && restored.items == carried.items)
        // A board described zone by zone has none, and its JSON says nothing of it.
        guard
            case .success(let definition) = BoardDefinition.parse(
                Array(#"{"title":"t","zones":[{"id":"z","items":[{"label":"A","color":"red"}]}]}"#.utf8))
        else {
            Issue.record("definition refused")
            return
        }
        let custom = definition.board(id: BoardID("c")!)
        #expect(custom.template == nil && !String(decoding: custom.encoded(), as: UTF8.self).contains("template"))
    }

    @Test func aSnapshotsTemplateMustBeOneTheServerKnows() throws {
        let bad =
            #"{"id":"o","title":"Old","columns":2,"zones":[{"id":"grid","items":[]}],"items":[],"template":"<b>"}"#
        let error = try #require(throws: JSON.DecodingError.self) { try Board(json: try JSON.parse(Array(bad.utf8))) }
        #expect(error.message == "board.template must be one of colors, strips, paint, playlist, kanban")
    }

    @Test func thePlaylistIsAHandleOnlyVerticalListWithDetails() {
        let board = Template.playlist.board(id: BoardID("p")!)
        #expect(board.zones.count == 1)
        let list = board.zones[0]
        #expect(list.layout == .list && list.handle && list.axis == .y)
        #expect(board.items.allSatisfy { $0.detail != nil })
        let json = String(decoding: board.encoded(), as: UTF8.self)
        #expect(json.contains(#""layout":"list","handle":true,"axis":"y""#))
    }

    @Test func kanbanHasThreeTitledColumnsAndStripsTwoRows() {
        let kanban = Template.kanban.board(id: BoardID("k")!)
        #expect(kanban.zones.map(\.title) == ["To do", "Doing", "Done"])
        #expect(kanban.zones.allSatisfy { $0.layout == .list })
        let strips = Template.strips.board(id: BoardID("s")!)
        #expect(strips.zones.map(\.id.rawValue) == ["top", "bottom"] && strips.zones.allSatisfy { $0.layout == .row })
        let paint = Template.paint.board(id: BoardID("c")!)
        #expect(paint.items.count == 64 && paint.zones[0].columns == 8 && paint.zones[0].layout == .grid)
        #expect(paint.mode == .paint && kanban.mode == .move && Board.defaultTemplate(id: BoardID("d")!).mode == nil)
        #expect(String(decoding: paint.encoded(), as: UTF8.self).contains(#""columns":8,"mode":"paint","zones""#))
    }

    @Test func aSnapshotWithoutTheNewMembersLoadsUnchanged() throws {
        let old =
            #"{"id":"o","title":"Old","columns":2,"zones":[{"id":"grid","items":["t1"]}],"items":[{"id":"t1","label":"A","color":"red","on":true}]}"#
        let board = try Board(json: try JSON.parse(Array(old.utf8)))
        #expect(board.zones[0].layout == nil && board.zones[0].title == nil && !board.zones[0].handle)
        #expect(board.items[0].detail == nil)
        #expect(String(decoding: board.encoded(), as: UTF8.self) == old)
    }

    @Test func aDefinitionMayUseATemplateOrLayouts() throws {
        guard
            case .success(let fromTemplate) = BoardDefinition.parse(
                Array(#"{"template":"kanban","title":"Sprint 9"}"#.utf8))
        else {
            Issue.record("template refused")
            return
        }
        #expect(fromTemplate.board(id: BoardID("x")!).title == "Sprint 9")
        let custom =
            #"{"title":"Mine","zones":[{"id":"a","title":"Songs","layout":"list","handle":true,"axis":"y","items":[{"label":"One","color":"red","detail":"x · 3:00"}]},{"id":"g","layout":"grid","columns":4,"items":[]}]}"#
        guard case .success(let definition) = BoardDefinition.parse(Array(custom.utf8)) else {
            Issue.record("custom refused")
            return
        }
        let board = definition.board(id: BoardID("y")!)
        #expect(board.columns == 4, "the first grid's columns when the board gives none")
        #expect(board.zones[0].handle && board.zones[0].axis == .y && board.items[0].detail == "x · 3:00")
    }

    @Test(arguments: [
        (#"{"template":"nope"}"#, "template must be one of colors, strips, paint, playlist, kanban"),
        (
            #"{"title":"t","zones":[{"id":"z","layout":"circle","items":[]}]}"#,
            #"zones[0].layout must be "grid", "row" or "list""#
        ),
        (#"{"title":"t","zones":[{"id":"z","axis":"z","items":[]}]}"#, #"zones[0].axis must be "x" or "y""#),
        (
            #"{"title":"t","zones":[{"id":"z","layout":"row","columns":3,"items":[]}]}"#,
            "zone z has columns but is not a grid"
        ),
        (
            #"{"title":"t","columns":3,"zones":[{"id":"z","layout":"grid","columns":65,"items":[]}]}"#,
            "columns of zone z must be 1–64"
        ),
        (
            #"{"title":"t","zones":[{"id":"z","title":"","items":[]}]}"#,
            "title of zone z must be 1–100 characters (at most 400 bytes, no control characters)"
        ),
        (#"{"title":"t","zones":[{"id":"z","handle":"yes","items":[]}]}"#, "zones[0].handle must be a boolean"),
        (
            #"{"title":"t","zones":[{"id":"z","items":[{"label":"a","color":"red","detail":7}]}]}"#,
            "zones[0].items[0].detail must be a string"
        ),
    ])
    func badLayoutsGetClearMessages(_ body: String, _ message: String) {
        guard case .failure(let problem) = BoardDefinition.parse(Array(body.utf8)) else {
            Issue.record("\(body) accepted")
            return
        }
        #expect(problem.message == message)
    }
}
