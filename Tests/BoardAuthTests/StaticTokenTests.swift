import BoardAuth
import Testing

/// `--metrics-token`: a fixed bearer token from a file, compared in constant time.
@Suite struct StaticTokenTests {
    @Test func onlyTheTokenItselfMatches() throws {
        let token = try StaticToken(fromFile: Array("  metrics-token-0123456789 \r\nignored\n".utf8))
        #expect(token.matches("metrics-token-0123456789".utf8))
        #expect(!token.matches("metrics-token-0123456788".utf8))
        #expect(!token.matches("metrics-token-012345678".utf8))
        #expect(!token.matches("metrics-token-01234567890".utf8))
        #expect(!token.matches("".utf8))
    }

    @Test(arguments: ["short", "", "\n", "has a space in it somewhere", "tab\there-is-long-enough"])
    func aTokenFileMustHoldSixteenPrintableBytesWithoutSpaces(_ contents: String) {
        #expect(throws: SecretsProblem.self) { try StaticToken(fromFile: Array(contents.utf8)) }
    }
}
