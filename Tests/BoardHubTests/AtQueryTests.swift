import BoardCore
import Testing

@testable import BoardHub

/// `GET /api/boards/{id}?at=SEQ` (issue 29, finding 9): a number after any seq a board can reach
/// was told "must be a non-negative integer"; it is told the bound (the API description's maximum).
@Suite struct AtQueryTests {
    func answer(_ at: String) -> (Int, String)? {
        let h = HubHarness()
        let request = HTTPRequest(method: .get, path: "/api/boards/demo", query: ["at": at])
        guard let (_, response) = responses(in: h.on(.request(ExchangeID(7), request))).first else { return nil }
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    @Test(arguments: ["2147483648", "99999999999", "99999999999999999999999"])
    func aSeqPastAnyBoardsIsAfterTheBoardsSeq(_ at: String) {
        let (status, body) = answer(at) ?? (0, "")
        #expect(status == 400)
        #expect(body.contains("at most 2147483647"), "\(body)")
    }

    @Test(arguments: ["", "-1", "1.5", "x", " 1", "+3"])
    func whatIsNotANonNegativeIntegerIsToldSo(_ at: String) {
        let (status, body) = answer(at) ?? (0, "")
        #expect(status == 400)
        #expect(body.contains("non-negative integer"), "\(body)")
    }

    @Test func aSeqInRangeIsReadFromTheStore() {
        #expect(answer("3") == nil, "no answer yet: a store read")
        #expect(BoardAtRequest.seq("2147483647") == .seq(2_147_483_647))
    }
}
