import BoardCore
import Testing

@testable import BoardHub

/// REST ops on a board another node owns (Hub+Cluster.swift, `forwardREST`): relayed to the owner
/// as they came, its answer passed back unchanged; 503 `elsewhere` when the owner does not answer
/// (at once or within the timeout), when too many wait, and for a request relayed already.
/// This node is `a`, with 2 s leases and a 3 s forward timeout, on the manual clock.
@Suite struct HTTPForwardTests {
    let owner = "127.0.0.1:9002"
    let toggle = #"{"type":"toggle","op":"r1","base":0,"item":"t1","on":true}"#

    func harness(maxForwards: Int = 256) -> HubHarness {
        HubHarness {
            $0.cluster = ClusterSettings(node: "a", lease: 2_000, forwardTimeout: 3_000, maxHTTPForwards: maxForwards)
        }
    }

    func request(peer: String = "203.0.113.7", forwarded: Bool = false) -> HTTPRequest {
        var request = HTTPRequest(
            method: .post, path: "/api/boards/demo/ops", body: Array(toggle.utf8), authorization: "Bearer t0k",
            contentType: "application/json", peer: peer)
        request.forwarded = forwarded
        return request
    }

    func relayed(in actions: [Hub.Action]) -> [(ExchangeID, String, HTTPRequest)] {
        actions.compactMap { if case .forwardHTTP(let x, let to, let r) = $0 { (x, to, r) } else { nil } }
    }

    /// Posts the op as `exchange` and answers its claim: the board is node `b`'s.
    func postElsewhere(_ h: HubHarness, _ exchange: ExchangeID, _ request: HTTPRequest) -> [Hub.Action] {
        guard let (read, _) = h.read(in: h.on(.request(exchange, request))) else { return [] }
        return h.on(.answered(read, .elsewhere(node: "b", advertise: owner)))
    }

    func isElsewhere(_ response: HTTPResponse?) -> Bool {
        guard let response else { return false }
        return response.status == 503 && response.text.contains(#""error":"elsewhere""#)
            && response.headers.contains(HTTPResponse.Header("retry-after:", "1"))
    }

    @Test func theOwnersAnswerGoesBackUnchanged() {
        let h = harness()
        let x = ExchangeID(1)
        let sent = request()
        let actions = postElsewhere(h, x, sent)
        let forwards = relayed(in: actions)
        #expect(forwards.count == 1)
        #expect(forwards.first?.0 == x)
        #expect(forwards.first?.1 == owner)
        // As it came: the token for the owner to check, the client's address for its limits.
        #expect(forwards.first?.2 == sent)
        #expect(responses(in: actions).isEmpty)
        let answer = HTTPResponse(status: 200, contentType: "application/json", body: Array(#"{"seq":3}"#.utf8))
        let answered = h.on(.forwardedAnswer(x, answer))
        #expect(responses(in: answered).map(\.0) == [x])
        #expect(responses(in: answered).first?.1 == answer)
        // Once only: a second word about it (the transport's, say) is ignored.
        #expect(responses(in: h.on(.forwardedAnswer(x, nil))).isEmpty)
    }

    @Test func anOwnersRefusalGoesBackUnchangedToo() {
        let h = harness()
        let x = ExchangeID(1)
        _ = postElsewhere(h, x, request())
        let refusal = HTTPResponse.error(403, "forbidden", "no")
        #expect(responses(in: h.on(.forwardedAnswer(x, refusal))).first?.1 == refusal)
    }

    @Test func noAnswerFromTheOwnerIs503Elsewhere() {
        let h = harness()
        let x = ExchangeID(1)
        _ = postElsewhere(h, x, request())
        let answers = responses(in: h.on(.forwardedAnswer(x, nil)))
        #expect(answers.map(\.0) == [x])
        #expect(isElsewhere(answers.first?.1))
    }

    @Test func anOwnerThatDoesNotAnswerInTimeIs503ElsewhereAtTheTimeout() {
        let h = harness()
        let x = ExchangeID(1)
        _ = postElsewhere(h, x, request())
        h.now = h.now + 2_999
        #expect(responses(in: h.on(.tick)).isEmpty)
        h.now = h.now + 1
        let answers = responses(in: h.on(.tick))
        #expect(answers.map(\.0) == [x])
        #expect(isElsewhere(answers.first?.1))
        // The owner's answer, coming late, is dropped.
        let late = HTTPResponse(status: 200, contentType: "application/json", body: [])
        #expect(responses(in: h.on(.forwardedAnswer(x, late))).isEmpty)
        #expect(responses(in: h.on(.tick)).isEmpty)
    }

    @Test func aClientThatLeftGetsNothingWhenTheOwnerAnswers() {
        let h = harness()
        let x = ExchangeID(1)
        _ = postElsewhere(h, x, request())
        h.on(.abandoned(x))
        let answer = HTTPResponse(status: 200, contentType: "application/json", body: [])
        #expect(responses(in: h.on(.forwardedAnswer(x, answer))).isEmpty)
        h.now = h.now + 5_000
        #expect(responses(in: h.on(.tick)).isEmpty)
    }

    @Test func overTheBoundOfWaitingForwardsTheOpIsAnswered503Elsewhere() {
        let h = harness(maxForwards: 2)
        for n in 1...2 {
            #expect(relayed(in: postElsewhere(h, ExchangeID(UInt64(n)), request(peer: "203.0.113.\(n)"))).count == 1)
        }
        let third = postElsewhere(h, ExchangeID(3), request(peer: "203.0.113.3"))
        #expect(relayed(in: third).isEmpty)
        #expect(isElsewhere(responses(in: third).first?.1))
        #expect(h.hub.meters.limitHits.value(.httpForwards) == 1)
        // Once one is answered, there is room again.
        _ = h.on(.forwardedAnswer(ExchangeID(1), nil))
        #expect(relayed(in: postElsewhere(h, ExchangeID(4), request(peer: "203.0.113.4"))).count == 1)
    }

    @Test func aRequestRelayedAlreadyIsNeverRelayedAgain() {
        let h = harness()
        let actions = postElsewhere(h, ExchangeID(1), request(forwarded: true))
        #expect(relayed(in: actions).isEmpty)
        #expect(isElsewhere(responses(in: actions).first?.1))
    }
}
