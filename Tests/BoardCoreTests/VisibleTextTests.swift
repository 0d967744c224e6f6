import BoardCore
import Testing

/// Issue 29, finding 7: a title or label with nothing visible (white space, bidi controls,
/// zero-width and other invisible characters only) is refused, naming the field; one with
/// something visible keeps its bidi controls (the page isolates every user text).
@Suite struct VisibleTextTests {
    func parse(_ text: String) -> Result<ClientMessage, ProtocolError> { ClientMessage.parse(Array(text.utf8)) }

    /// Texts that show nothing, as JSON string contents.
    static let invisible = [
        #" "#, #"\u202E"#, #"\u200B\u200B"#, #" \u2066\u2069 "#, #"\u3164"#, #"\u2800"#, #"\uFEFF\u00AD"#,
        #"\u2028\u3000\u00A0"#, #"\uDB40\uDC41"#,
    ]

    @Test(arguments: invisible)
    func editingOpsRefuseTextWithNothingVisible(_ text: String) {
        let ops: [(String, String)] = [
            (
                #"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"\#(text)"}}"#,
                "\"item.label\""
            ),
            (
                #"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"a","detail":"\#(text)"}}"#,
                "\"item.detail\""
            ),
            (#"{"type":"edit","op":"o","base":0,"item":"t1","label":"\#(text)"}"#, "\"label\""),
            (#"{"type":"edit","op":"o","base":0,"item":"t1","detail":"\#(text)"}"#, "\"detail\""),
            (#"{"type":"addZone","op":"o","base":0,"before":null,"zone":{"title":"\#(text)"}}"#, "\"zone.title\""),
            (#"{"type":"editZone","op":"o","base":0,"zone":"tray","title":"\#(text)"}"#, "\"title\""),
            (#"{"type":"retitle","op":"o","base":0,"title":"\#(text)"}"#, "\"title\""),
        ]
        for (message, field) in ops {
            guard case .failure(let error) = parse(message) else {
                Issue.record("\(message) parsed")
                continue
            }
            #expect(error.code == .badMessage)
            #expect(error.message.contains(field), "\(error.message)")
            #expect(error.message.contains("invisible"), "\(error.message)")
        }
    }

    @Test func textWithSomethingVisibleKeepsItsBidiControls() throws {
        let message = #"{"type":"retitle","op":"o","base":0,"title":"Invoice \u202Eegnaro"}"#
        guard case .success(.op(let request)) = parse(message) else {
            Issue.record("\(message) refused")
            return
        }
        #expect(request.op == .retitle(title: "Invoice \u{202E}egnaro"))
        // An empty label stays allowed (paint boards), and so do scripts that need joiners.
        #expect(BoardLimits.label.accepts(""))
        #expect(BoardLimits.label.accepts("क्\u{200D}ष"))
        #expect(BoardLimits.label.accepts("👩\u{200D}💻"))
    }

    @Test func aNewBoardRefusesTitlesAndLabelsWithNothingVisible() {
        let cases: [(String, String)] = [
            (#"{"title":"\u200B","zones":[{"id":"a","items":[]}]}"#, "title"),
            (#"{"title":"B","zones":[{"id":"a","title":"\u202E ","items":[]}]}"#, "title of zone a"),
            (#"{"title":"B","zones":[{"id":"a","items":[{"label":"\u2060","color":"red"}]}]}"#, "label of"),
        ]
        for (body, field) in cases {
            guard case .failure(let problem) = BoardDefinition.parse(Array(body.utf8)) else {
                Issue.record("\(body) accepted")
                continue
            }
            #expect(problem.message.hasPrefix(field), "\(problem.message)")
            #expect(problem.message.contains("invisible"), "\(problem.message)")
        }
    }

    @Test func aStoredBoardWithAnInvisibleTitleStillLoads() throws {
        // Accepted before the rule: the store reads it as it was written.
        let json = try JSON.parse(
            Array(#"{"id":"b","title":"\u200B","columns":1,"zones":[{"id":"a","items":[]}],"items":[]}"#.utf8))
        #expect(throws: Never.self) { try Board(json: json) }
    }
}
