import BoardCore
import Testing

@Suite struct ClientMessageTests {
    func parse(_ text: String) -> Result<ClientMessage, ProtocolError> { ClientMessage.parse(Array(text.utf8)) }
    /// The error `text` parses to; nil when it parses (for `#require`).
    func failure(of text: String) -> ProtocolError? { if case .failure(let error) = parse(text) { error } else { nil } }
    /// The name of the `hello` that `text` parses to; nil when it is not a valid hello (for `#require`).
    func helloName(of text: String) -> String? {
        if case .success(.hello(_, let name, _, _, _)) = parse(text) { name } else { nil }
    }

    @Test func parsesEveryMessageType() {
        #expect(
            parse(#"{"type":"hello","board":"demo","name":" Ada ","since":3}"#)
                == .success(.hello(board: demo, name: "Ada", since: 3, token: nil)))
        #expect(
            parse(#"{"type":"swap","op":"o1","base":0,"a":"t1","b":"t2"}"#)
                == .success(.op(OpRequest(opID: opID("o1"), base: 0, op: .swap(a: item("t1"), b: item("t2"))))))
        #expect(
            parse(#"{"type":"move","op":"o2","base":4,"item":"t1","zone":"tray","before":null}"#)
                == .success(
                    .op(
                        OpRequest(
                            opID: opID("o2"), base: 4, op: .move(item: item("t1"), zone: zone("tray"), before: nil)))))
        #expect(
            parse(#"{"type":"toggle","op":"o3","base":1,"item":"t5","on":true}"#)
                == .success(.op(OpRequest(opID: opID("o3"), base: 1, op: .toggle(item: item("t5"), on: true)))))
        #expect(parse(#"{"type":"dragStart","item":"t1"}"#) == .success(.dragStart(item: item("t1"))))
        #expect(
            parse(#"{"type":"hover","item":"t1","over":null}"#)
                == .success(.hover(item: item("t1"), over: nil, zone: nil, mode: nil)))
        #expect(
            parse(#"{"type":"hover","item":"t1","over":"t2","zone":"grid","mode":"move"}"#)
                == .success(.hover(item: item("t1"), over: item("t2"), zone: zone("grid"), mode: .move)))
        #expect(
            parse(#"{"type":"drop","item":"t1","op":"o4","base":2,"action":{"type":"swap","with":"t3"}}"#)
                == .success(
                    .drop(
                        item: item("t1"),
                        action: OpRequest(opID: opID("o4"), base: 2, op: .swap(a: item("t1"), b: item("t3"))))))
        #expect(
            parse(
                #"{"type":"drop","item":"t1","op":"o5","base":2,"action":{"type":"move","zone":"grid","before":"t9"}}"#)
                == .success(
                    .drop(
                        item: item("t1"),
                        action: OpRequest(
                            opID: opID("o5"), base: 2,
                            op: .move(item: item("t1"), zone: zone("grid"), before: item("t9"))))))
        #expect(parse(#"{"type":"drop","item":"t1"}"#) == .success(.drop(item: item("t1"), action: nil)))
    }

    @Test(arguments: [
        ("not json", ProtocolError.Code.badJSON),
        ("[1,2]", .badMessage),
        (#"{"kind":"hello"}"#, .badMessage),
        (#"{"type":"teleport"}"#, .unknownType),
        (#"{"type":"hello","board":"bad id!","name":"x"}"#, .badMessage),
        (#"{"type":"hello","board":"demo","name":""}"#, .badMessage),
        (#"{"type":"hello","board":"demo","name":"x","since":-1}"#, .badMessage),
        (#"{"type":"swap","op":"o","base":0,"a":"t1"}"#, .badMessage),
        (#"{"type":"swap","op":"","base":0,"a":"t1","b":"t2"}"#, .badMessage),
        (#"{"type":"swap","op":"o","base":1.5,"a":"t1","b":"t2"}"#, .badMessage),
        (#"{"type":"move","op":"o","base":0,"item":"t1","zone":"grid"}"#, .badMessage),
        (#"{"type":"toggle","op":"o","base":0,"item":"t1","on":"yes"}"#, .badMessage),
        (#"{"type":"drop","item":"t1","action":{"type":"swap","with":"t2"}}"#, .badMessage),
        (#"{"type":"drop","item":"t1","op":"o","base":0,"action":{"type":"fling"}}"#, .badMessage),
        (#"{"type":"hover","item":"t1","over":null,"mode":"fling"}"#, .badMessage),
    ])
    func reportsMistakesWithTheirCode(_ text: String, _ code: ProtocolError.Code) {
        guard case .failure(let error) = parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.code == code)
    }

    static let id64 = "an item id of 1–64 characters [A-Za-z0-9_-]"

    /// The `bad_message` texts name the field and what it must be; `op` is echoed when readable.
    @Test(
        arguments: [
            (#"[1,2]"#, "a message must be a JSON object", nil),
            (#"{"kind":"hello"}"#, #"a message needs a string field "type""#, nil),
            (#"{"type":"teleport","op":"o"}"#, #"unknown message type "teleport""#, "o"),
            (
                #"{"type":"hello","board":"bad id!","name":"x"}"#,
                #""board" must be an id of 1–64 characters [A-Za-z0-9_-]"#, nil
            ),
            (#"{"type":"hello","board":"demo"}"#, #""name" must be a string"#, nil),
            (
                #"{"type":"hello","board":"demo","name":"  "}"#, #""name" must be 1–64 characters (at most 256 bytes)"#,
                nil
            ),
            (
                #"{"type":"hello","board":"demo","name":"x","since":-1}"#, #""since" must be a non-negative integer"#,
                nil
            ),
            (#"{"type":"swap","op":"o","base":0,"a":"t1"}"#, #""b" must be "# + id64, "o"),
            (
                #"{"type":"swap","op":"","base":0,"a":"t1","b":"t2"}"#,
                #""op" must be a string of 1–128 characters (at most 256 bytes, no control characters)"#, ""
            ),
            (#"{"type":"swap","op":"o","base":1.5,"a":"t1","b":"t2"}"#, #""base" must be a non-negative integer"#, "o"),
            (
                #"{"type":"move","op":"o","base":0,"item":"t1","zone":"grid"}"#,
                #""before" is required (an item id, or null to append)"#, "o"
            ),
            (
                #"{"type":"move","op":"o","base":0,"item":"t1","zone":"grid","before":5}"#,
                #""before" must be "# + id64, "o"
            ),
            (
                #"{"type":"move","op":"o","base":0,"item":"t1","zone":"a b","before":null}"#,
                #""zone" must be a zone id of 1–64 characters [A-Za-z0-9_-]"#, "o"
            ),
            (#"{"type":"toggle","op":"o","base":0,"item":"t1","on":"yes"}"#, #""on" must be a boolean"#, "o"),
            (#"{"type":"toggle","op":"o","base":0,"on":true}"#, #""item" must be "# + id64, "o"),
            (#"{"type":"dragStart"}"#, #""item" must be "# + id64, nil),
            (#"{"type":"hover","item":"t1","over":5}"#, #""over" must be "# + id64, nil),
            (
                #"{"type":"hover","item":"t1","zone":5}"#,
                #""zone" must be a zone id of 1–64 characters [A-Za-z0-9_-]"#, nil
            ),
            (#"{"type":"hover","item":"t1","over":null,"mode":"fling"}"#, #""mode" must be "swap" or "move""#, nil),
            (#"{"type":"drop","item":"t1","action":3}"#, #""action" must be an object with a string "type""#, nil),
            (
                #"{"type":"drop","item":"t1","op":"o","base":0,"action":{"type":"fling"}}"#,
                #""action.type" must be "swap" or "move""#, "o"
            ),
            (
                #"{"type":"drop","item":"t1","action":{"type":"swap","with":"t2"}}"#,
                #""op" must be a string of 1–128 characters (at most 256 bytes, no control characters)"#, nil
            ),
            (
                #"{"type":"drop","item":"t1","op":"o","base":0,"action":{"type":"swap"}}"#, #""with" must be "# + id64,
                "o"
            ),
            (
                #"{"type":"drop","item":"t1","op":"o","base":0,"action":{"type":"move","zone":"grid"}}"#,
                #""before" is required (an item id, or null to append)"#, "o"
            ),
        ] as [(String, String, String?)])
    func mistakesSayWhichFieldIsWrong(_ text: String, _ message: String, _ opID: String?) {
        guard case .failure(let error) = parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.message == message, "\(text)")
        #expect(error.opID == opID, "\(text)")
    }

    /// Found by the `message` fuzz target: an `error` echoed the frame's `op` whole (a 64 KiB frame
    /// of `&` came back as 384 KiB of `\u0026`) and cut an unknown `type` at 64 grapheme clusters,
    /// which can be any number of bytes. What the server says back about a frame is bounded.
    @Test func anErrorEchoesABoundedOpIDAndType() throws {
        let long = String(repeating: "&", count: 60_000)
        guard case .failure(let tooLong) = parse(#"{"type":"swap","op":"\#(long)","base":0}"#) else {
            Issue.record("parsed")
            return
        }
        #expect((tooLong.opID?.utf8.count ?? 0) == 0, "an op id over 256 bytes is not echoed")
        let bound = String(repeating: "&", count: Text.maximumOpIDBytes)
        let atBound = try #require(failure(of: #"{"type":"swap","op":"\#(bound)","base":0}"#))
        #expect(atBound.opID == bound, "an op id within the byte bound is echoed")
        let accents = "e" + String(repeating: "\u{0301}", count: 30_000)
        let unknown = try #require(failure(of: #"{"type":"\#(accents)"}"#))
        #expect(unknown.code == .unknownType)
        #expect(unknown.message.unicodeScalars.count < 100, "the type is cut at 64 scalars")
        #expect(ServerMessage.error(tooLong).encoded().count < 512)
        #expect(ServerMessage.error(unknown).encoded().count < 1024)
    }

    @Test func opIDOfLength128IsAcceptedAnd129IsNot() {
        let ok = String(repeating: "x", count: 128)
        #expect((try? parse(#"{"type":"toggle","op":"\#(ok)","base":0,"item":"t1","on":true}"#).get()) != nil)
        #expect((try? parse(#"{"type":"toggle","op":"\#(ok)y","base":0,"item":"t1","on":true}"#).get()) == nil)
    }

    @Test func limitsCountScalarsNotCharacters() {
        // "e" and 30,000 combining acute accents: one Character, 30,001 scalars, 60 KB.
        let accents = "e" + String(repeating: "\u{0301}", count: 30_000)
        let hello = parse(#"{"type":"hello","board":"demo","name":"\#(accents)"}"#)
        guard case .failure(let error) = hello else {
            Issue.record("a 60 KB name was accepted")
            return
        }
        #expect(error.code == .badMessage)
        let op = parse(#"{"type":"toggle","op":"\#(accents)","base":0,"item":"t1","on":true}"#)
        #expect((try? op.get()) == nil, "a 60 KB op id was accepted")
    }

    @Test func limitsBoundBytesToo() {
        // 128 four-byte scalars are 128 scalars but 512 bytes.
        let emoji = String(repeating: "😀", count: 128)
        #expect((try? parse(#"{"type":"toggle","op":"\#(emoji)","base":0,"item":"t1","on":true}"#).get()) == nil)
        let fine = String(repeating: "😀", count: 64)
        #expect((try? parse(#"{"type":"toggle","op":"\#(fine)","base":0,"item":"t1","on":true}"#).get()) != nil)
        let name = String(repeating: "😀", count: 60)
        #expect((try? parse(#"{"type":"hello","board":"demo","name":"\#(name)"}"#).get()) != nil)
    }

    @Test(arguments: [#"a\u0000b"#, #"a\nb"#, #"a\u001bb"#, #"a\u007fb"#, #"a\u0085b"#])
    func controlCharactersAreRefusedInNamesAndOpIDs(_ text: String) {
        guard case .failure(let error) = parse(#"{"type":"hello","board":"demo","name":"\#(text)"}"#) else {
            Issue.record("name \(text) accepted")
            return
        }
        #expect(error.message == #""name" must not contain control characters"#)
        #expect((try? parse(#"{"type":"toggle","op":"\#(text)","base":0,"item":"t1","on":true}"#).get()) == nil)
    }

    @Test func bidiOverridesAndInvisibleCharactersAreStrippedFromNames() throws {
        let raw = #"{"type":"hello","board":"demo","name":" \u202eAda\u200b\u2066 \ufeff"}"#
        guard case .success(.hello(_, let name, _, _, _)) = parse(raw) else {
            Issue.record("not parsed")
            return
        }
        #expect(name == "Ada")
        let onlyInvisible = #"{"type":"hello","board":"demo","name":"\u202e\u200b"}"#
        #expect((try? parse(onlyInvisible).get()) == nil, "nothing left is no name")
        let family = #"{"type":"hello","board":"demo","name":"👩\u200d👧 Bo"}"#
        let kept = try #require(helloName(of: family), "a name with a zero-width joiner in an emoji is refused")
        #expect(kept == "👩\u{200D}👧 Bo", "the zero-width joiner of an emoji stays")
    }

    @Test func aHoversTimestampIsRelayedUnchanged() throws {
        let raw = #"{"type":"hover","item":"t1","over":"t2","t":1764567890123.25}"#
        guard case .success(.hover(_, _, _, _, let t)) = parse(raw) else {
            Issue.record("not parsed")
            return
        }
        #expect(t == 1_764_567_890_123.25)
        let relayed = ServerMessage.hover(
            item: item("t1"), over: item("t2"), zone: nil, mode: nil, by: UserID("u1"), at: 0, t: t)
        let text = String(decoding: relayed.encoded(), as: UTF8.self)
        #expect(text.hasSuffix(#","t":1764567890123.25}"#), "\(text)")
        let integer = ServerMessage.hover(
            item: item("t1"), over: nil, zone: nil, mode: nil, by: UserID("u1"), at: 0, t: 42)
        #expect(String(decoding: integer.encoded(), as: UTF8.self).hasSuffix(#","t":42}"#))
        guard case .failure(let error) = parse(#"{"type":"hover","item":"t1","t":"soon"}"#) else {
            Issue.record("a string t was accepted")
            return
        }
        #expect(error.message == #""t" must be a number"#)
    }
}
