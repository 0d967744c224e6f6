import BoardCore
import BoardReads
import BoardStore
import Testing

@testable import BoardHub

/// History reads are bounded (issue 29, finding 3): `?at=` and `/history` waiting for the store at
/// once, per client address (429) and over all (503 `busy`), both with `retry-after: 1`; a read
/// stops counting when its answer comes or its client goes away. A join's read is never behind
/// them (`StoreRead.waitsBehindJoins`; the reader's two queues are `ReaderTests`' and the
/// process test's).
@Suite struct HistoryReadLimitTests {
    static func at(_ h: HubHarness, _ n: UInt64, from peer: String, path: String = "/api/boards/demo")
        -> [Hub.Action]
    {
        let query = path.hasSuffix("/history") ? [:] : ["at": "0"]
        return h.on(.request(ExchangeID(n), HTTPRequest(method: .get, path: path, query: query, peer: peer)))
    }

    static func status(_ actions: [Hub.Action]) -> Int? { responses(in: actions).first?.1.status }

    static func retryAfter(_ actions: [Hub.Action]) -> String? {
        responses(in: actions).first?.1.headers.first { $0.name == "retry-after:" }?.value
    }

    @Test func anAddressGets429PastItsHistoryReadsAndOthersStillGetTheirs() throws {
        let h = HubHarness { $0.maxHistoryReadsPerAddress = 2 }
        var reads: [ReadID] = []
        for n: UInt64 in 1...2 {
            let actions = Self.at(
                h, n, from: "10.0.0.1", path: n == 2 ? "/api/boards/demo/history" : "/api/boards/demo")
            reads.append(try #require(h.read(in: actions)).0)
        }
        let refused = Self.at(h, 3, from: "10.0.0.1")
        #expect(Self.status(refused) == 429 && Self.retryAfter(refused) == "1")
        #expect(h.read(in: Self.at(h, 4, from: "10.0.0.2")) != nil, "another address is not limited")
        // One answer frees one place.
        h.on(
            .answered(
                reads[0],
                .encoded(
                    .json(200) { w in
                        w.beginObject(); w.endObject()
                    })))
        #expect(h.read(in: Self.at(h, 5, from: "10.0.0.1")) != nil)
        #expect(Self.status(Self.at(h, 6, from: "10.0.0.1")) == 429)
        // So does a client that goes away: its read is cancelled and no longer counts.
        let gone = h.on(.abandoned(ExchangeID(2)))
        #expect(gone.contains(.cancelRead(reads[1])))
        #expect(h.read(in: Self.at(h, 7, from: "10.0.0.1")) != nil)
    }

    @Test func pastTheOverallBoundHistoryReadsGet503Busy() throws {
        let h = HubHarness {
            $0.maxHistoryReads = 3
            $0.maxHistoryReadsPerAddress = 0
        }
        var first: ReadID?
        for n: UInt64 in 1...3 {
            let (read, request) = try #require(h.read(in: Self.at(h, n, from: "10.0.0.\(n)")))
            #expect(request.waitsBehindJoins)
            first = first ?? read
        }
        let refused = Self.at(h, 4, from: "10.0.0.9")
        #expect(Self.status(refused) == 503 && Self.retryAfter(refused) == "1")
        #expect(String(decoding: try #require(responses(in: refused).first).1.body, as: UTF8.self).contains("busy"))
        // A join's read is not a history read: it is asked at once, and goes before them.
        let ada = h.open(1)
        let (_, load) = try #require(h.read(in: h.hello(ada)))
        #expect(!load.waitsBehindJoins)
        h.on(.answered(try #require(first), .encoded(nil)))
        #expect(h.read(in: Self.at(h, 5, from: "10.0.0.9")) != nil)
    }
}
