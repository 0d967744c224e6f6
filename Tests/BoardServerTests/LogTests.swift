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
