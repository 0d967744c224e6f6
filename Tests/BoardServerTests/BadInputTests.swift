import BoardCore
import TestSupport
import Testing

@Suite struct BadInputTests {
    @Test func mistakesGetErrorsAndTheConnectionStaysUsable() async throws {
        try await withTestServer { server in
            let c = try await server.connect()
            c.send(#"{"type":"dragStart","item":"t1"}"#)
            #expect(try await c.expect("error")["code"]?.stringValue == "not_joined")
            c.send("{not json")
            #expect(try await c.expect("error")["code"]?.stringValue == "bad_json")
            c.send(#"{"type":"hello","board":"no spaces allowed","name":"x"}"#)
            #expect(try await c.expect("error")["code"]?.stringValue == "bad_message")
            c.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            try await c.expect("welcome")
            c.send(#"{"type":"warp","op":"w1"}"#)
            let unknown = try await c.expect("error")
            #expect(unknown["code"]?.stringValue == "unknown_type" && unknown["op"]?.stringValue == "w1")
            c.send(#"{"type":"swap","op":"s","base":0,"a":"t1"}"#)
            #expect(try await c.expect("error")["code"]?.stringValue == "bad_message")
            c.send(#"{"type":"hello","board":"demo","name":"Ada"}"#)
            #expect(try await c.expect("error")["code"]?.stringValue == "already_joined")
            c.send("[]")
            #expect(try await c.expect("error")["code"]?.stringValue == "bad_message")
            // Still usable.
            c.send(#"{"type":"toggle","op":"ok","base":0,"item":"t1","on":true}"#)
            #expect(try await c.expect("toggle")["seq"]?.intValue == 1)
        }
    }

    @Test func fragmentedMessagesAreReassembled() async throws {
        try await withTestServer { server in
            let c = try await server.connect()
            c.connection.sendFragmented(#"{"type":"hello","board":"frag","name":"Fragmented Fred"}"#, fragmentSize: 7)
            let welcome = try await c.expect("welcome")
            #expect(welcome["users"]?.arrayValue?.first?["name"]?.stringValue == "Fragmented Fred")
        }
    }

    @Test func messageOverTheLimitClosesWith1009AndOthersAreUnharmed() async throws {
        try await withTestServer({ $0.maxMessageBytes = 1024 }) { server in
            let (other, _) = try await server.join(as: "Other")
            let big = try await server.connect()
            big.connection.sendFragmented(
                #"{"type":"ping","pad":""# + String(repeating: "x", count: 4000) + #""}"#, fragmentSize: 500)
            let close = try await big.connection.waitForClose()
            #expect(close.code == 1009)
            try await other.expectNothingPending()
        }
    }

    @Test func clientOfferingNoSubprotocolIsAccepted() async throws {
        try await withTestServer { server in
            let c = try await server.connect(subprotocol: nil)
            c.send(#"{"type":"hello","board":"demo","name":"Plain"}"#)
            try await c.expect("welcome")
        }
    }

    @Test func unknownBoardWithCreationOffClosesWith4404() async throws {
        try await withTestServer({ $0.hub.createBoards = false }) { server in
            let c = try await server.connect()
            c.send(#"{"type":"hello","board":"nowhere","name":"Ada"}"#)
            #expect(try await c.expect("error")["code"]?.stringValue == "unknown_board")
            #expect(try await c.connection.waitForClose().code == 4404)
        }
    }

    @Test func shutdownClosesConnectionsWith1001() async throws {
        try await withTestServer { server in
            let (c, _) = try await server.join(as: "Ada")
            server.server.stop()
            let close = try await c.connection.waitForClose()
            #expect(close.code == 1001)
        }
    }
}
