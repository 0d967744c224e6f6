import BoardCore
import Testing

@testable import BoardHub

/// `AllowedMethods` (the `allow` of a 405 to a method lws does not parse, issue 29 finding 9)
/// says what the hub's own routes say to a method they do not take: the two lists cannot drift.
@Suite struct AllowedMethodsTests {
    @Test(arguments: [
        "/healthz", "/api/templates", "/api/boards", "/api/boards/demo", "/api/boards/demo/ops",
        "/api/boards/demo/events", "/api/boards/demo/history", "/api/me", "/api/boards/demo/grants",
        "/api/boards/demo/members", "/api/boards/demo/members/ann", "/api/boards/demo/links",
        "/api/boards/demo/links/x1",
    ])
    func theHubsOwn405SaysTheSame(_ path: String) throws {
        let h = HubHarness()
        let request = HTTPRequest(method: .patch, path: path)
        let answer = try #require(responses(in: h.on(.request(ExchangeID(9), request))).first?.1)
        #expect(answer.status == 405)
        #expect(answer.headers.first { $0.name == "allow:" }?.value == AllowedMethods.of(path))
    }

    @Test func filesTakeGetAndUnknownAPIRoutesAreNone() {
        #expect(AllowedMethods.of("/") == "GET")
        #expect(AllowedMethods.of("/app.js") == "GET")
        #expect(AllowedMethods.of("/api/revocations") == "GET, POST")
        #expect(AllowedMethods.of("/api/nothing") == nil)
        #expect(AllowedMethods.of("/api/boards/demo/nothing") == nil)
        #expect(AllowedMethods.of("/api/boards//ops") == nil)
    }
}
