import BoardCore
import Testing

@Suite struct JSONTests {
    @Test func parsesNestedValues() throws {
        let v = try JSON.parse(#"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d\n\u00e9\ud83d\ude00"}}"#)
        #expect(v["a"] == .array([.number(1), .number(2.5), .number(-300), .bool(true), .bool(false), .null]))
        #expect(v["b"]?["c"]?.stringValue == "d\né😀")
    }

    /// Objects within objects and arrays each get their own members, however deep; a repeated
    /// key keeps its last value; `{}` is an empty object.
    @Test func objectsKeepTheirOwnMembersAndARepeatedKeysLastValue() throws {
        let v = try JSON.parse(#"{"a":1,"o":{"a":2,"p":{"a":3},"a":4},"l":[{"a":5},{},{"b":6}],"a":7,"e":{}}"#)
        #expect(v["a"] == .number(7))
        #expect(v["o"] == .object(["a": .number(4), "p": .object(["a": .number(3)])]))
        #expect(v["l"] == .array([.object(["a": .number(5)]), .object([:]), .object(["b": .number(6)])]))
        #expect(v["e"] == .object([:]))
        if case .object(let members) = v { #expect(members.count == 4) } else { Issue.record("not an object") }
        #expect(try JSON.parse("[true,false,null]") == .array([.bool(true), .bool(false), .null]))
        #expect(throws: JSON.ParseError.self) { try JSON.parse("[nul]") }
        #expect(throws: JSON.ParseError.self) { try JSON.parse("fals") }
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\":}", "tru", "01", "\"\u{01}\"", "{\"a\":1} x", "\"\\ud800\"", "1e999"])
    func rejectsInvalidText(_ text: String) {
        #expect(throws: JSON.ParseError.self) { try JSON.parse(text) }
    }

    @Test func rejectsNestingDeeperThanTheLimit() {
        let deep =
            String(repeating: "[", count: JSON.maximumDepth + 2) + String(repeating: "]", count: JSON.maximumDepth + 2)
        #expect(throws: JSON.ParseError.self) { try JSON.parse(deep) }
    }

    @Test func writerEscapesAndRoundTrips() throws {
        var w = JSONWriter()
        w.beginObject()
        w.write("s", "quote\" back\\ nl\n <tag> &")
        w.write("n", 42)
        w.write("z", nil as String?)
        w.endObject()
        #expect(!w.string.contains("<"))
        let back = try JSON.parse(w.bytes)
        #expect(back["s"]?.stringValue == "quote\" back\\ nl\n <tag> &")
        #expect(back["n"]?.intValue == 42)
        #expect(back["z"] == .null)
    }
}

@Suite struct BoardJSONTests {
    @Test func aBoardReadsBackFromItsSnapshotJSON() throws {
        var board = Board.defaultTemplate(id: demo)
        board.apply(.move(item: item("t3"), zone: zone("tray"), before: nil))
        board.apply(.toggle(item: item("t5"), on: true))
        #expect(try Board(json: JSON.parse(board.encoded())) == board)
    }

    @Test(
        arguments: [
            (#"[]"#, "board must be an object"),
            (#"{"id":"x"}"#, "board.title must be a string"),
            (
                #"{"id":"x","title":"t","columns":1,"zones":[{"id":"g","items":[7]}],"items":[]}"#,
                "board.zones[0].items[0] must be an item id of 1–64 characters [A-Za-z0-9_-]"
            ),
            (
                #"{"id":"x","title":"t","columns":1,"zones":[{"id":"g","items":[]}],"items":[{"id":"t1","label":"a","color":"red"}]}"#,
                "board.items[0].on must be a boolean"
            ),
            (#"{"id":"x","title":"t","columns":1,"zones":[{"id":"g","items":[]}],"items":[]}"#, nil),
            (
                #"{"id":"x","title":"t","columns":1,"zones":[{"id":"g","items":["t1"]}],"items":[]}"#,
                "board: zone g lists unknown item t1"
            ),
        ] as [(String, String?)])
    func aSnapshotIsValidatedMemberByMember(_ text: String, _ message: String?) throws {
        let json = try JSON.parse(text)
        do {
            _ = try Board(json: json)
            #expect(message == nil, "\(text) was accepted")
        } catch {
            #expect(error.message == message, "\(text)")
        }
    }

    @Test func aCommittedOpReadsBackFromItsArchivedJSON() throws {
        let op = CommittedOp(
            seq: 3, opID: opID("o"), by: alice, op: .move(item: item("t1"), zone: zone("tray"), before: nil), time: wall
        )
        var w = JSONWriter()
        op.encode(into: &w, withTime: true)
        #expect(try CommittedOp(json: JSON.parse(w.bytes)) == op)
        let broadcast = try JSON.parse(ServerMessage.committed(op).encoded())
        #expect(broadcast["time"] == nil)
        #expect(try CommittedOp(json: broadcast).time == UnixTime(milliseconds: 0))
    }
}
