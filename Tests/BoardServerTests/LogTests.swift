import Foundation
import Testing

@testable import BoardServer

@Suite struct LogTests {
    @Test(arguments: [
        ("Ada", "Ada"),
        ("a\nforged 2026-01-01T00:00:00.000Z error line", #"a\u{a}forged 2026-01-01T00:00:00.000Z error line"#),
        ("\u{1B}[31mred\u{1B}[0m", #"\u{1b}[31mred\u{1b}[0m"#),
        ("\u{202E}evil", #"\u{202e}evil"#),
        (#"a\u{a}b"#, #"a\u{5c}u{a}b"#),
        ("tab\there", #"tab\u{9}here"#),
        ("C1 \u{85} next", #"C1 \u{85} next"#),
    ])
    func clientTextIsEscapedSoItCannotForgeLinesOrDriveTheTerminal(_ raw: String, _ logged: String) {
        #expect(Logger.escaped(raw) == logged)
    }
}

@Suite struct JSONLogTests {
    @Test(arguments: [
        "Ada",
        "a\nforged\",\"level\":\"error",
        "\u{1B}[31mred\u{1B}[0m",
        "\u{202E}evil \u{E0041} tag",
        #"back\slash \u{41}"#,
        "nul \u{0} and del \u{7F} and C1 \u{85}",
    ])
    func aJSONLineIsOneValidObjectHoldingTheTextExactly(_ raw: String) throws {
        let line = Logger.line(.warning, raw, format: .json, time: "2026-01-01T00:00:00.000Z")
        #expect(line.hasSuffix("}\n"))
        #expect(line.dropLast().allSatisfy { $0 != "\n" }, "one line")
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0 == "\u{1B}" || $0 == "\u{202E}" })
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String])
        #expect(object == ["time": "2026-01-01T00:00:00.000Z", "level": "warning", "msg": raw])
    }

    @Test func aTextLineIsTimeLevelAndTheEscapedMessage() {
        #expect(Logger.line(.info, "a\nb", format: .text, time: "T") == #"T info a\u{a}b"# + "\n")
    }
}
