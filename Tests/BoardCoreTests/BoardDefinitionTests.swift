import BoardCore
import Testing

@Suite struct BoardDefinitionTests {
    /// A 400 answer's message names the member that is wrong.
    @Test(arguments: [
        ("[]", "body must be a JSON object"),
        (#"{"id":"no/slash","title":"t","columns":2,"zones":[]}"#, "id must be 1–64 characters of [A-Za-z0-9_-]"),
        (#"{"columns":2,"zones":[]}"#, "title must be a string"),
        (#"{"title":"t","columns":"3","zones":[]}"#, "columns must be an integer"),
        (#"{"title":"t","columns":3,"zones":"grid"}"#, "zones must be an array"),
        (
            #"{"title":"t","columns":3,"zones":[{"id":"a b","items":[]}]}"#,
            "zones[0].id must be 1–64 characters of [A-Za-z0-9_-]"
        ),
        (#"{"title":"t","columns":3,"zones":[{"id":"z"}]}"#, "zones[0].items must be an array"),
        (
            #"{"title":"t","columns":3,"zones":[{"id":"z","items":[{"color":"red"}]}]}"#,
            "zones[0].items[0].label must be a string"
        ),
        (
            #"{"title":"t","columns":3,"zones":[{"id":"z","items":[{"label":"a","color":"red"},{"label":"b"}]}]}"#,
            "zones[0].items[1].color must be a string"
        ),
        (#"{"title":"t","columns":3,"zones":[]}"#, "a board has 1–64 zones"),
        (
            #"{"title":"t","columns":2,"zones":[{"id":"z","items":[{"label":"a","color":"<b>"}]}]}"#,
            "color of t1 is not a CSS color"
        ),
    ])
    func aBadDefinitionSaysWhatIsWrong(_ text: String, _ message: String) {
        guard case .failure(let problem) = BoardDefinition.parse(Array(text.utf8)) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(problem.message == message, "\(text)")
    }

    @Test func aDefinitionNumbersItsItemsInZoneOrder() throws {
        let text =
            #"{"title":"T","columns":2,"zones":[{"id":"a","items":[{"label":"x","color":"red"}]},"#
            + ##"{"id":"b","items":[{"label":"y","color":"#fff"}]}]}"##
        let definition = try BoardDefinition.parse(Array(text.utf8)).get()
        #expect(definition.id == nil)
        let board = definition.board(id: demo)
        #expect(board.zones.map(\.items) == [[item("t1")], [item("t2")]])
        #expect(board.items.map(\.label) == ["x", "y"])
    }
}
