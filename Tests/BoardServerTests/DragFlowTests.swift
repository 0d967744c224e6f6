import BoardCore
import TestSupport
import Testing

@Suite struct DragFlowTests {
    @Test func dragStartHeldHoverDropSwapAndRelease() async throws {
        try await withTestServer { server in
            let (a, welcomeA) = try await server.join(as: "Ada")
            let (b, welcomeB) = try await server.join(as: "Bo")
            let ada = welcomeA["you"]!.stringValue!
            let bo = welcomeB["you"]!.stringValue!
            #expect(welcomeB["users"]?.arrayValue?.count == 2)
            let join = try await a.expect("join")
            #expect(join["user"]?["id"]?.stringValue == bo)

            // Ada lifts t1: everyone, Ada included, sees it.
            a.send(#"{"type":"dragStart","item":"t1"}"#)
            for client in [a, b] {
                let m = try await client.expect("dragStart")
                #expect(m["item"]?.stringValue == "t1" && m["by"]?.stringValue == ada && m["at"]?.intValue == 0)
            }
            // Bo cannot take it.
            b.send(#"{"type":"dragStart","item":"t1"}"#)
            let held = try await b.expect("reject")
            #expect(held["reason"]?.stringValue == "held" && held["by"]?.stringValue == ada)
            // Ada's hover reaches Bo, not Ada.
            a.send(#"{"type":"hover","item":"t1","over":"t5"}"#)
            let hover = try await b.expect("hover")
            #expect(
                hover["over"]?.stringValue == "t5" && hover["zone"]?.stringValue == "grid"
                    && hover["by"]?.stringValue == ada)
            try await a.expectNothingPending()
            // Bo cannot hover what he does not hold.
            b.send(#"{"type":"hover","item":"t1","over":"t2"}"#)
            #expect(try await b.expect("reject")["reason"]?.stringValue == "not_holding")
            // Drop with a swap: drop for everyone, then the swap as seq 1.
            a.send(#"{"type":"drop","item":"t1","op":"ada-1","base":0,"action":{"type":"swap","with":"t5"}}"#)
            for client in [a, b] {
                #expect(try await client.expect("drop")["item"]?.stringValue == "t1")
                let swap = try await client.expect("swap")
                #expect(swap["seq"]?.intValue == 1 && swap["a"]?.stringValue == "t1" && swap["b"]?.stringValue == "t5")
                #expect(swap["op"]?.stringValue == "ada-1" && swap["by"]?.stringValue == ada)
            }
            // Released: Bo can lift it now, and a drop without action only releases.
            b.send(#"{"type":"dragStart","item":"t1"}"#)
            #expect(try await a.expect("dragStart")["by"]?.stringValue == bo)
            #expect(try await b.expect("dragStart")["by"]?.stringValue == bo)
            b.send(#"{"type":"drop","item":"t1"}"#)
            #expect(try await a.expect("drop")["by"]?.stringValue == bo)
            #expect(try await b.expect("drop")["by"]?.stringValue == bo)
            try await b.expectNothingPending()

            let snapshot = try server.http("GET", "/api/boards/demo")
            let json = try JSON.parse(snapshot.body)
            #expect(json["seq"]?.intValue == 1)
            #expect(
                json["board"]?["zones"]?.arrayValue?.first?["items"]?.arrayValue?.prefix(5).map(\.stringValue) == [
                    "t5", "t2", "t3", "t4", "t1",
                ])
        }
    }

    @Test func liftingASecondItemReleasesTheFirstForEveryone() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let (b, _) = try await server.join(as: "Bo")
            try await a.expect("join")
            a.send(#"{"type":"dragStart","item":"t1"}"#)
            a.send(#"{"type":"dragStart","item":"t2"}"#)
            for client in [a, b] {
                #expect(try await client.expect("dragStart")["item"]?.stringValue == "t1")
                #expect(try await client.expect("drop")["item"]?.stringValue == "t1")
                #expect(try await client.expect("dragStart")["item"]?.stringValue == "t2")
            }
        }
    }

    @Test func holderDisconnectingDropsWithReasonLeftThenLeaves() async throws {
        try await withTestServer { server in
            let (a, _) = try await server.join(as: "Ada")
            let (b, welcome) = try await server.join(as: "Bo")
            try await a.expect("join")
            b.send(#"{"type":"dragStart","item":"t7"}"#)
            try await a.expect("dragStart")
            b.close()
            let drop = try await a.expect("drop")
            #expect(drop["item"]?.stringValue == "t7" && drop["reason"]?.stringValue == "left")
            let leave = try await a.expect("leave")
            #expect(leave["user"]?["id"] == welcome["you"])
            // The item is free again.
            a.send(#"{"type":"dragStart","item":"t7"}"#)
            try await a.expect("dragStart")
        }
    }

    @Test func idleHoldExpires() async throws {
        try await withTestServer({ $0.hub.room.holdTimeout = .milliseconds(300) }) { server in
            let (a, _) = try await server.join(as: "Ada")
            a.send(#"{"type":"dragStart","item":"t3"}"#)
            try await a.expect("dragStart")
            let drop = try await a.expect("drop", timeout: .seconds(5))
            #expect(drop["item"]?.stringValue == "t3" && drop["reason"]?.stringValue == "expired")
        }
    }

    @Test func welcomeListsCurrentDrags() async throws {
        try await withTestServer { server in
            let (a, welcomeA) = try await server.join(as: "Ada")
            a.send(#"{"type":"dragStart","item":"t9"}"#)
            try await a.expect("dragStart")
            let (_, welcomeB) = try await server.join(as: "Bo")
            let drags = welcomeB["drags"]?.arrayValue
            #expect(
                drags?.count == 1 && drags?.first?["item"]?.stringValue == "t9"
                    && drags?.first?["by"] == welcomeA["you"])
        }
    }

    /// Paced hovers (a saturated server's, here every hover's) wait for the pacing timer, not for
    /// the next broadcast: the last of a burst arrives though nothing comes after it, all arrive
    /// in order, and a drop sent after them is not let through before them.
    @Test func pacedHoversAllArriveInOrderTheLastOneToo() async throws {
        try await withTestServer({
            $0.hoverPacingBusy = 0
            $0.hoverPacing = .milliseconds(20)
        }) { server in
            let (a, _) = try await server.join(as: "Ada")
            let (b, _) = try await server.join(as: "Bo")
            try await a.expect("join")
            a.send(#"{"type":"dragStart","item":"t1"}"#)
            try await b.expect("dragStart")
            let overs = (0..<30).map { "t\(2 + $0 % 8)" }
            for over in overs { a.send(#"{"type":"hover","item":"t1","over":"\#(over)"}"#) }
            var got: [String] = []
            for _ in overs { got.append(try await b.expect("hover")["over"]?.stringValue ?? "") }
            #expect(got == overs)

            for over in ["t3", "t4"] { a.send(#"{"type":"hover","item":"t1","over":"\#(over)"}"#) }
            a.send(#"{"type":"drop","item":"t1"}"#)
            #expect(try await b.expect("hover")["over"]?.stringValue == "t3")
            #expect(try await b.expect("hover")["over"]?.stringValue == "t4")
            #expect(try await b.expect("drop")["item"]?.stringValue == "t1")
        }
    }
}
