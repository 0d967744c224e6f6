import BoardAuth
import BoardCore
import Testing

@testable import BoardHub

/// The order `Hub.route` answers in (Hub+HTTP.swift): a cross-site write first, then the route
/// table's 404 (a path or an id that cannot be one) and 405, then the token (401), then the role
/// the route needs on its board (403), then the handler's own rules.
@Suite struct APIRouteOrderTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])

    func token(_ board: String?, _ role: Role) -> String {
        authority.mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: 1_764_000_000 + 3600))
    }

    func status(
        _ h: HubHarness, _ method: HTTPRequest.Method, _ path: String, bearer: String? = nil, body: String = ""
    ) -> (Int, String) {
        let request = HTTPRequest(
            method: method, path: path, body: Array(body.utf8), authorization: bearer.map { "Bearer " + $0 },
            contentType: body.isEmpty ? nil : "application/json")
        guard let answer = responses(in: h.on(.request(ExchangeID(3), request))).first?.1 else { return (0, "") }
        return (answer.status, answer.text)
    }

    @Test func theRouteTableAnswersBeforeTheToken() {
        let h = HubHarness { $0.auth = authority }
        #expect(status(h, .patch, "/api/boards/demo").0 == 405)
        #expect(status(h, .get, "/api/boards/no id").0 == 404)
        #expect(status(h, .get, "/api/boards/demo/nothing").0 == 404)
        #expect(status(h, .delete, "/api/boards/demo/links/a.b").1.contains("unknown_link"))
        #expect(status(h, .post, "/api/boards/demo/webhooks/a.b/enable").1.contains("unknown_webhook"))
        #expect(status(h, .get, "/api/boards/demo/items/a.b/comments").0 == 404)
        #expect(status(h, .put, "/api/boards/demo/members/a.b", body: #"{"role":"view"}"#).0 == 400)
        #expect(status(h, .get, "/api/boards/demo/ops").0 == 401, "a route that exists needs the token")
    }

    @Test func theRoleTheRouteNamesIsCheckedAfterTheToken() {
        let h = HubHarness { $0.auth = authority }
        let viewer = token("demo", .view)
        #expect(status(h, .delete, "/api/boards/demo", bearer: viewer).1.contains("admin access to board demo"))
        #expect(status(h, .get, "/api/boards/other/history", bearer: viewer).1.contains("view access to board other"))
        #expect(status(h, .get, "/api/boards/demo/links", bearer: viewer).1.contains("managing the links"))
        #expect(status(h, .get, "/api/boards/demo/grants", bearer: viewer).1.contains("managing the members"))
        #expect(status(h, .get, "/api/boards/demo/webhooks", bearer: viewer).1.contains("managing the webhooks"))
        #expect(status(h, .delete, "/api/boards/demo/links/l1", bearer: viewer).0 == 403)
        #expect(status(h, .delete, "/api/boards/demo/ops", bearer: viewer).0 == 405, "405 before 403")
    }

    @Test func withoutAccessControlLinksAndGrantsAre409AfterTheirIds() {
        let h = HubHarness()
        #expect(status(h, .get, "/api/boards/demo/links").1.contains("no_access_control"))
        #expect(status(h, .delete, "/api/boards/demo/links/l1").1.contains("no_access_control"))
        #expect(status(h, .delete, "/api/boards/demo/links/a.b").1.contains("unknown_link"))
        #expect(status(h, .get, "/api/boards/demo/members/ann").1.contains("no_access_control"))
        #expect(status(h, .get, "/api/boards/demo/members/a.b").0 == 400)
    }
}
