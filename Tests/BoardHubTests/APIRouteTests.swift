import BoardCore
import Testing

@testable import BoardHub

/// The HTTP API's route table (`APIRoute`, APIRoute.swift) alone, without a hub: every route and
/// the methods it takes, 405 with the path's methods for the others, and 404 for a path the API
/// does not have or an id in it that cannot be one — before any method is looked at.
@Suite struct APIRouteTests {
    let demo = BoardID("demo")!

    /// Every path of the API with the route each method it takes makes of it, and its `allow`.
    var table: [(path: String, routes: [HTTPRequest.Method: APIRoute], allow: String)] {
        let item = ItemID("t1")!
        let link = LinkID("l1")!
        let hook = HookID("h1")!
        let ann = MemberID("ann")!
        return [
            ("/healthz", [.get: .health], "GET"),
            ("/api/templates", [.get: .templates], "GET"),
            ("/api/cluster", [.get: .cluster], "GET"),
            ("/api/revocations", [.get: .revocations, .post: .revoke], "GET, POST"),
            ("/api/inbox", [.get: .inbox], "GET"),
            ("/api/inbox/read", [.post: .markRead], "POST"),
            ("/api/search", [.get: .claims(.search)], "GET"),
            ("/api/me", [.get: .me], "GET"),
            ("/api/boards", [.get: .claims(.listBoards), .post: .claims(.createBoard)], "GET, POST"),
            ("/api/boards/import/trello", [.post: .claims(.importTrello)], "POST"),
            (
                "/api/boards/demo", [.get: .claims(.board(demo, at: nil)), .delete: .claims(.deleteBoard(demo))],
                "GET, DELETE"
            ),
            ("/api/boards/demo/ops", [.get: .claims(.ops(demo)), .post: .claims(.submitOp(demo))], "GET, POST"),
            ("/api/boards/demo/events", [.get: .claims(.events(demo))], "GET"),
            ("/api/boards/demo/history", [.get: .claims(.history(demo))], "GET"),
            ("/api/boards/demo/members", [.get: .claims(.people(demo))], "GET"),
            ("/api/boards/demo/export", [.get: .claims(.export(demo, csv: false))], "GET"),
            ("/api/boards/demo/export.csv", [.get: .claims(.export(demo, csv: true))], "GET"),
            ("/api/boards/demo/items/t1/comments", [.get: .claims(.comments(demo, item))], "GET"),
            ("/api/boards/demo/links", [.get: .claims(.links(demo)), .post: .claims(.addLink(demo))], "GET, POST"),
            ("/api/boards/demo/links/l1", [.delete: .claims(.revokeLink(demo, link))], "DELETE"),
            ("/api/boards/demo/grants", [.get: .claims(.grants(demo))], "GET"),
            (
                "/api/boards/demo/members/ann",
                [
                    .get: .claims(.grant(demo, ann)), .put: .claims(.setGrant(demo, ann)),
                    .delete: .claims(.removeGrant(demo, ann)),
                ],
                "GET, PUT, DELETE"
            ),
            (
                "/api/boards/demo/webhooks", [.get: .claims(.webhooks(demo)), .post: .claims(.addWebhook(demo))],
                "GET, POST"
            ),
            ("/api/boards/demo/webhooks/h1", [.delete: .claims(.removeWebhook(demo, hook))], "DELETE"),
            ("/api/boards/demo/webhooks/h1/enable", [.post: .claims(.enableWebhook(demo, hook))], "POST"),
        ]
    }

    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .other]

    @Test func everyRouteTakesItsMethodsAndRefusesTheOthersWith405() {
        for (path, routes, allow) in table {
            for method in Self.methods {
                let expected = routes[method == .head ? .get : method]
                switch APIRoute.match(method, path) {
                case .success(let route):
                    #expect(route == expected, "\(method.rawValue) \(path)")
                case .failure(let refusal):
                    #expect(expected == nil, "\(method.rawValue) \(path): \(refusal)")
                    #expect(refusal == .method(allow: allow), "\(method.rawValue) \(path)")
                    #expect(refusal.response.status == 405)
                    #expect(refusal.response.headers == [HTTPResponse.Header("allow:", allow)])
                }
            }
            #expect(AllowedMethods.of(path) == allow, "\(path)")
        }
    }

    @Test func headGoesWhereGetDoesAndAtIsTheBoardAsOfASeq() {
        #expect(APIRoute.match(.head, "/api/boards/demo/ops") == .success(.claims(.ops(demo))))
        #expect(
            APIRoute.match(.get, "/api/boards/demo", query: ["at": "3"]) == .success(.claims(.board(demo, at: "3"))))
        #expect(
            APIRoute.match(.delete, "/api/boards/demo", query: ["at": "3"]) == .success(.claims(.deleteBoard(demo))))
    }

    /// A board id that cannot be one answers 404 on every board route, whatever the method; so do
    /// a link id and a webhook id, and an item id (a member id is 400, as docs/openapi.yaml says).
    @Test func anIdThatCannotBeOneIsRefusedBeforeTheMethodOnEveryRoute() {
        let badBoards = ["no%20id", "a b", "x.y", String(repeating: "b", count: 65), "é", ""]
        for (path, _, _) in table where path.hasPrefix("/api/boards/demo") {
            for bad in badBoards {
                let odd = path.replacing("/demo", with: "/\(bad)")
                for method in Self.methods {
                    #expect(APIRoute.match(method, odd) == .failure(.notABoard), "\(method.rawValue) \(odd)")
                }
            }
        }
        let badIDs = ["a b", "x.y", String(repeating: "i", count: 65), "%0A", "é"]
        for bad in badIDs {
            for method in Self.methods {
                #expect(APIRoute.match(method, "/api/boards/demo/links/\(bad)") == .failure(.noSuchLink(demo)))
                #expect(APIRoute.match(method, "/api/boards/demo/webhooks/\(bad)") == .failure(.noSuchWebhook(demo)))
                #expect(
                    APIRoute.match(method, "/api/boards/demo/webhooks/\(bad)/enable") == .failure(.noSuchWebhook(demo)))
                #expect(APIRoute.match(method, "/api/boards/demo/items/\(bad)/comments") == .failure(.notAnItem))
                #expect(APIRoute.match(method, "/api/boards/demo/members/\(bad)") == .failure(.notAMember))
            }
        }
        #expect(APIRoute.Refusal.noSuchLink(demo).response.status == 404)
        #expect(APIRoute.Refusal.noSuchWebhook(demo).response.status == 404)
        #expect(APIRoute.Refusal.notABoard.response.status == 404)
        #expect(APIRoute.Refusal.notAnItem.response.status == 404)
        #expect(APIRoute.Refusal.notAMember.response.status == 400)
        #expect(AllowedMethods.of("/api/boards/no%20id/ops") == nil)
    }

    @Test func aPathTheAPIDoesNotHaveIs404ForEveryMethod() {
        let unknown = [
            "/api", "/api/", "/api/nothing", "/api/boards/", "/api/boards/demo/", "/api/boards/demo/nothing",
            "/api/boards/demo/ops/x", "/api/boards/demo/links/l1/x", "/api/boards/demo/members/ann/x",
            "/api/boards/demo/webhooks/h1/disable", "/api/boards/demo/webhooks/h1/enable/x",
            "/api/boards/demo/items/t1", "/api/boards/demo/items/t1/notes", "/api/boards/demo/items",
            "/api/inbox/x", "/api/inbox/read/x", "/api/templates/x", "/api/boards//ops", "/api/boards/import/trello/x",
            "/healthz/x", "/apix",
        ]
        for path in unknown {
            for method in Self.methods {
                let match = APIRoute.match(method, path)
                #expect(match == .failure(.noRoute) || match == .failure(.notABoard), "\(method.rawValue) \(path)")
                if case .failure(let refusal) = match { #expect(refusal.response.status == 404) }
            }
            if Hub.routes(path) { #expect(AllowedMethods.of(path) == nil, "\(path)") }
        }
        #expect(AllowedMethods.of("/apix") == "GET", "a file of the web client")
        // "import" is a board id too: only import/trello is the import route.
        #expect(APIRoute.match(.get, "/api/boards/import") == .success(.claims(.board(BoardID("import")!, at: nil))))
        #expect(APIRoute.match(.get, "/api/boards/import/ops") == .success(.claims(.ops(BoardID("import")!))))
    }

    @Test func eachBoardRouteNamesTheRoleItNeeds() {
        #expect(ClaimsRoute.board(demo, at: nil).access?.role == .view)
        #expect(ClaimsRoute.submitOp(demo).access?.role == .view, "RESTOps checks edit, after the body")
        #expect(ClaimsRoute.deleteBoard(demo).access?.role == .admin)
        #expect(ClaimsRoute.addLink(demo).access?.what == "managing the links of board demo")
        #expect(ClaimsRoute.grant(demo, MemberID("ann")!).access?.role == .admin)
        #expect(ClaimsRoute.enableWebhook(demo, HookID("h1")!).access?.role == .admin)
        for route in [ClaimsRoute.search, .listBoards, .createBoard, .importTrello] {
            #expect(route.access == nil, "\(route) checks its claims itself")
        }
    }
}
