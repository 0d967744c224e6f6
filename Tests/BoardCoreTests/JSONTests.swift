import BoardCore
import Testing

@Suite struct JSONTests {
    @Test func parsesNestedValues() throws {
        let v = try JSON.parse(#"{"a":[1,2.5,-3e2,true,false,null],"b":{"c":"d\n\u00e9\ud83d\ude00"}}"#)
        #expect(v["a"] == .array([.number(1), .number(2.5), .number(-300), .bool(true), .bool(false), .null]))
        #expect(v["b"]?["c"]?.stringValue == "d\né😀")
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
