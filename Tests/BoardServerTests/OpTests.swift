import BoardCore
import TestSupport
import Testing

@Suite struct OpTests {
    @Test func twoClientsSwappingTheSameItemAtOnceCommitExactlyOne() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let (b, _) = try await server.join(as: "Bo")
            try await a.expect("join")
            a.send(#"{"type":"swap","op":"a1","base":0,"a":"t1","b":"t2"}"#)
            b.send(#"{"type":"swap","op":"b1","base":0,"a":"t1","b":"t3"}"#)
            var committed: [String] = []
            var rejected: [String] = []
            for (client, name) in [(a, "a1"), (b, "b1")] {
                // Each client sees exactly one swap (seq 1), and gets a reject if its own lost.
                var sawSwap = false
                while true {
                    let m = try await client.next()
                    if m["type"]?.stringValue == "swap" {
                        #expect(m["seq"]?.intValue == 1)
                        if m["op"]?.stringValue == name { committed.append(name) }
                        sawSwap = true
                    } else if m["type"]?.stringValue == "reject" {
                        #expect(m["reason"]?.stringValue == "conflict" && m["op"]?.stringValue == name)
                        rejected.append(name)
                    }
                    if sawSwap && (committed.contains(name) || rejected.contains(name)) { break }
                }
            }
            #expect(committed.count == 1 && rejected.count == 1)
            try await a.expectNothingPending()
            try await b.expectNothingPending()
        }
    }

    @Test func distinctItemsBothCommitWithConsecutiveSeqs() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let (b, _) = try await server.join(as: "Bo")
            try await a.expect("join")
            a.send(#"{"type":"swap","op":"a1","base":0,"a":"t1","b":"t2"}"#)
            b.send(#"{"type":"toggle","op":"b1","base":0,"item":"t9","on":true}"#)
            for client in [a, b] {
                let first = try await client.next()
                let second = try await client.next()
                #expect([first["seq"]?.intValue, second["seq"]?.intValue] == [1, 2])
                #expect(Set([first["op"]?.stringValue, second["op"]?.stringValue]) == ["a1", "b1"])
            }
        }
    }

    @Test func repeatedOpIDIsAcknowledgedNotApplied() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let op = #"{"type":"move","op":"m1","base":0,"item":"t1","zone":"tray","before":null}"#
            a.send(op)
            #expect(try await a.expect("move")["seq"]?.intValue == 1)
            a.send(op)
            let ack = try await a.expect("ack")
            #expect(ack["op"]?.stringValue == "m1" && ack["seq"]?.intValue == 1)
            #expect(try JSON.parse(server.http("GET", "/api/boards/demo").body)["seq"]?.intValue == 1)
        }
    }

    @Test func rejectsFollowTheRuleOrder() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let cases: [(String, String)] = [
                (#"{"type":"swap","op":"x1","base":0,"a":"t1","b":"t99"}"#, "unknown_item"),
                (#"{"type":"move","op":"x2","base":0,"item":"t1","zone":"attic","before":null}"#, "unknown_zone"),
                (#"{"type":"swap","op":"x3","base":7,"a":"t1","b":"t2"}"#, "bad_base"),
                (#"{"type":"swap","op":"x4","base":0,"a":"t1","b":"t1"}"#, "invalid"),
                (#"{"type":"move","op":"x5","base":0,"item":"t1","zone":"tray","before":"t2"}"#, "invalid"),
            ]
            for (message, reason) in cases {
                a.send(message)
                let reject = try await a.expect("reject")
                #expect(reject["reason"]?.stringValue == reason, "\(message)")
                #expect(reject["seq"]?.intValue == 0)
            }
        }
    }

    @Test func resumeWithSinceGetsTheMissedOps() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            for i in 1...3 {
                a.send(#"{"type":"toggle","op":"t\#(i)","base":\#(i - 1),"item":"t\#(i)","on":true}"#)
                try await a.expect("toggle")
            }
            let (b, welcome) = try await server.join(as: "Bo", since: 1)
            #expect(welcome["seq"]?.intValue == 3 && welcome["board"] == nil)
            #expect(welcome["ops"]?.arrayValue?.map { $0["seq"]?.intValue } == [2, 3])
            #expect(welcome["ops"]?.arrayValue?.first?["type"]?.stringValue == "toggle")
            let (_, full) = try await server.join(as: "Cy", since: 99)
            #expect(full["board"] != nil && full["ops"] == nil)
            try await b.expect("join")
            try await b.expectNothingPending()
        }
    }
}
