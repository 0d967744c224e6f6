import BoardAuth
import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// Webhook routes (Hub+Webhooks.swift): made by a board's admin with the secret shown once, listed
/// without it, strict about their input (private targets refused), bounded per board, deleted,
/// enabled. Store reads are answered by `StoreRead.run(on:)` against one `MemoryStore`.
@Suite struct WebhookRouteTests {
    let authority = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)])
    let start: Int64 = 1_764_000_000
    let store = MemoryStore()

    init() throws {
        try store.write([.create(.defaultTemplate(id: BoardID("demo")!))])
    }

    func token(_ role: Role = .admin) -> String {
        authority.mint(Claims(board: BoardID("demo"), role: role, expires: start + 3600))
    }

    func call(
        _ h: HubHarness, _ method: HTTPRequest.Method, _ path: String, body: String = "", role: Role = .admin,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> (Int, JSON?) {
        var actions = h.on(
            .request(
                ExchangeID(7),
                HTTPRequest(
                    method: method, path: path, body: Array(body.utf8), authorization: "Bearer \(token(role))",
                    contentType: "application/json")))
        for _ in 0..<4 {
            if let (_, answer) = responses(in: actions).first { return (answer.status, try? JSON.parse(answer.body)) }
            guard let (read, asked) = h.read(in: actions, sourceLocation: sourceLocation) else { break }
            actions = h.on(.answered(read, asked.run(on: store)))
        }
        Issue.record("no answer", sourceLocation: sourceLocation)
        return (0, nil)
    }

    @Test func anAdminMakesListsDeletesAndEnablesWebhooks() throws {
        let h = HubHarness { $0.auth = authority }
        let (status, made) = call(
            h, .post, "/api/boards/demo/webhooks", body: #"{"url":"https://example.com/in","events":["move"]}"#)
        #expect(status == 201)
        let id = try #require(made?["id"]?.stringValue)
        let secret = try #require(made?["secret"]?.stringValue)
        #expect(secret.utf8.count == 43)
        let (listed, list) = call(h, .get, "/api/boards/demo/webhooks")
        #expect(listed == 200)
        let first = try #require(list?["webhooks"]?.arrayValue?.first)
        #expect(first["id"]?.stringValue == id && first["secret"] == nil)
        #expect(first["delivered"]?.intValue == 0 && first["failing"] == .bool(false))
        #expect(call(h, .post, "/api/boards/demo/webhooks/\(id)/enable").0 == 200)
        #expect(call(h, .delete, "/api/boards/demo/webhooks/\(id)").0 == 200)
        #expect(call(h, .delete, "/api/boards/demo/webhooks/\(id)").0 == 404)
        // A board the store does not have (on a server without access control, where anyone may ask).
        #expect(call(HubHarness { _ in }, .get, "/api/boards/nope/webhooks").0 == 404)
    }

    @Test func onlyAnAdminAndOnlyTheRightMethods() {
        let h = HubHarness { $0.auth = authority }
        #expect(call(h, .get, "/api/boards/demo/webhooks", role: .edit).0 == 403)
        #expect(call(h, .put, "/api/boards/demo/webhooks").0 == 405)
        #expect(call(h, .get, "/api/boards/demo/webhooks/x").0 == 405)
        #expect(call(h, .get, "/api/boards/demo/webhooks/x/enable").0 == 405)
        #expect(call(h, .post, "/api/boards/demo/webhooks/x/other").0 == 404)
    }

    @Test(arguments: [
        #"{"url":"http://127.0.0.1/","events":["*"]}"#, #"{"url":"http://localhost/","events":["*"]}"#,
        #"{"url":"ftp://example.com/","events":["*"]}"#, #"{"url":"https://example.com/","events":[]}"#,
        #"{"url":"https://example.com/","events":["*","move"]}"#, #"{"url":"https://example.com/","events":["nope"]}"#,
        #"{"url":"https://example.com/","events":["move","move"]}"#,
        #"{"url":"https://example.com/","events":["*"],"secret":"short"}"#,
        #"{"url":"https://example.com/","events":["*"],"other":1}"#, #"["https://example.com/"]"#,
    ])
    func badRequestsAreRefusedNamingTheRule(body: String) {
        let h = HubHarness { $0.auth = authority }
        let (status, problem) = call(h, .post, "/api/boards/demo/webhooks", body: body)
        #expect(status == 400)
        #expect(problem?["error"]?.stringValue == "bad_request")
    }

    @Test func aBoardHasAtMostTenWebhooks() {
        let h = HubHarness { $0.auth = authority }
        for _ in 0..<Hub.maxWebhooksPerBoard {
            #expect(
                call(h, .post, "/api/boards/demo/webhooks", body: #"{"url":"https://e.com/","events":["*"]}"#).0 == 201)
        }
        let (status, problem) = call(
            h, .post, "/api/boards/demo/webhooks", body: #"{"url":"https://e.com/","events":["*"]}"#)
        #expect(status == 507 && problem?["error"]?.stringValue == "too_many_webhooks")
        #expect(h.hub.meters.limitHits.value(.webhooks) == 1)
    }

    @Test func privateTargetsAreAllowedWithTheSetting() {
        let h = HubHarness {
            $0.auth = authority
            $0.webhookAllowPrivate = true
        }
        #expect(
            call(h, .post, "/api/boards/demo/webhooks", body: #"{"url":"http://127.0.0.1:9/","events":["*"]}"#).0 == 201
        )
    }
}
