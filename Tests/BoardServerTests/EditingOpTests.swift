import BoardCore
import BoardStore
import Foundation
import TestSupport
import Testing

/// Issue 19 over real sockets: two clients add, edit and remove cards and zones and rename the
/// board; each op is one numbered broadcast to both, the conflict rules hold, and what was
/// committed is what a new joiner, the ops API and a restarted server see.
@Suite struct EditingOpTests {
    @Test func twoClientsEditABoardLive() async throws {
        try await withTestServer { server in
            let (ada, _) = try await server.join(as: "Ada")
            let (bo, _) = try await server.join(as: "Bo")
            try await ada.expect("join")

            // Ada adds a card with markup in its label: both see it, id chosen by the server, text verbatim.
            ada.send(
                #"{"type":"add","op":"a1","base":0,"zone":"tray","before":null,"item":{"label":"<img src=x onerror=alert(1)>","detail":"note"}}"#
            )
            for client in [ada, bo] {
                let add = try await client.expect("add")
                #expect(add["seq"]?.intValue == 1 && add["op"]?.stringValue == "a1" && add["by"]?.stringValue == "u1")
                #expect(add["item"]?["id"]?.stringValue == "c1")
                #expect(add["item"]?["label"]?.stringValue == "<img src=x onerror=alert(1)>")
                #expect(add["item"]?["color"]?.stringValue == BoardLimits.defaultColor)
                #expect(add["item"]?["on"]?.boolValue == false)
            }

            // Bo lifts the card; Ada's edit of its label still commits, her remove is refused.
            bo.send(#"{"type":"dragStart","item":"c1"}"#)
            try await ada.expect("dragStart")
            try await bo.expect("dragStart")
            ada.send(#"{"type":"edit","op":"a2","base":1,"item":"c1","label":"Fixed typo","detail":null}"#)
            for client in [ada, bo] {
                let edit = try await client.expect("edit")
                #expect(edit["seq"]?.intValue == 2 && edit["label"]?.stringValue == "Fixed typo")
                #expect(edit["detail"]?.isNull == true && edit["color"] == nil)
            }
            ada.send(#"{"type":"remove","op":"a3","base":2,"item":"c1"}"#)
            let held = try await ada.expect("reject")
            #expect(held["reason"]?.stringValue == "held" && held["by"]?.stringValue == "u2")
            // Bo drops it at the top of the grid: his move commits after Ada's edit.
            bo.send(
                #"{"type":"drop","item":"c1","op":"b1","base":1,"action":{"type":"move","zone":"grid","before":"t1"}}"#)
            for client in [ada, bo] {
                try await client.expect("drop")
                #expect(try await client.expect("move")["seq"]?.intValue == 3)
            }

            // A remove that has not seen the move is a conflict; one that has, commits.
            ada.send(#"{"type":"remove","op":"a4","base":2,"item":"c1"}"#)
            let conflict = try await ada.expect("reject")
            #expect(conflict["reason"]?.stringValue == "conflict" && conflict["by"]?.stringValue == "u2")
            ada.send(#"{"type":"remove","op":"a5","base":3,"item":"c1"}"#)
            for client in [ada, bo] { #expect(try await client.expect("remove")["item"]?.stringValue == "c1") }
            // The op id is idempotent.
            ada.send(#"{"type":"remove","op":"a5","base":3,"item":"c1"}"#)
            #expect(try await ada.expect("ack")["seq"]?.intValue == 4)
            // Lifting the removed card is refused.
            bo.send(#"{"type":"dragStart","item":"c1"}"#)
            #expect(try await bo.expect("reject")["reason"]?.stringValue == "unknown_item")

            // Zones and the title.
            bo.send(#"{"type":"addZone","op":"b2","base":4,"before":"tray","zone":{"title":"Blocked"}}"#)
            for client in [ada, bo] {
                let addZone = try await client.expect("addZone")
                #expect(
                    addZone["zone"]?["id"]?.stringValue == "z5" && addZone["zone"]?["layout"]?.stringValue == "list")
            }
            bo.send(#"{"type":"editZone","op":"b3","base":5,"zone":"z5","title":"Waiting"}"#)
            for client in [ada, bo] { #expect(try await client.expect("editZone")["title"]?.stringValue == "Waiting") }
            ada.send(#"{"type":"removeZone","op":"a6","base":6,"zone":"grid"}"#)
            #expect(try await ada.expect("reject")["reason"]?.stringValue == "not_empty")
            ada.send(#"{"type":"removeZone","op":"a7","base":6,"zone":"tray"}"#)
            for client in [ada, bo] { try await client.expect("removeZone") }
            bo.send(#"{"type":"retitle","op":"b4","base":7,"title":"Sprint 12"}"#)
            for client in [ada, bo] { #expect(try await client.expect("retitle")["seq"]?.intValue == 8) }

            // A text over its byte bound is a bad message naming the field; nothing is committed.
            let wide = String(repeating: "€", count: 150)
            bo.send(#"{"type":"editZone","op":"b5","base":8,"zone":"z5","title":"\#(wide)"}"#)
            let error = try await bo.expect("error")
            #expect(error["code"]?.stringValue == "bad_message")
            #expect(error["message"]?.stringValue?.contains("\"title\"") == true)

            // A newcomer's snapshot is the edited board.
            let (cy, welcome) = try await server.join(as: "Cy")
            let board = try Board(json: try #require(welcome["board"]))
            #expect(welcome["seq"]?.intValue == 8)
            #expect(board.title == "Sprint 12")
            #expect(board.zones.map(\.id.rawValue) == ["grid", "z5"])
            #expect(board.zone(ZoneID("z5")!)?.title == "Waiting")
            #expect(board.item(ItemID("c1")!) == nil && board.items.count == 12)
            // The ops API carries the editing ops as they were broadcast.
            let page = try JSON.parse(Array(server.http("GET", "/api/boards/demo/ops?since=0").body.utf8))
            #expect(
                page["ops"]?.arrayValue?.map { $0["type"]?.stringValue ?? "" }
                    == ["add", "edit", "move", "remove", "addZone", "editZone", "removeZone", "retitle"])
            for client in [ada, bo] {
                try await client.expect("join")
                try await client.expectNothingPending()
            }
            cy.close()
        }
    }

    @Test func editingOpsSurviveARestartAndResumeWithSince() async throws {
        let dir = NSTemporaryDirectory() + "editing-ops-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A snapshot every 3 ops: the edited board is snapshotted and the rest replayed.
        let first = try SQLiteStore(directory: dir, snapshotEvery: 3, keepOps: 10)
        let expected: Board = try await withTestServer(store: first) { server in
            let (ada, _) = try await server.join(as: "Ada")
            let ops = [
                #"{"type":"add","op":"o1","base":0,"zone":"grid","before":"t2","item":{"label":"Ünïcødé ✓","color":"rgb(1, 2, 3)"}}"#,
                #"{"type":"edit","op":"o2","base":1,"item":"t1","label":"Rouge","detail":"warm"}"#,
                #"{"type":"addZone","op":"o3","base":2,"before":null,"zone":{"title":"Later","layout":"grid","columns":2}}"#,
                #"{"type":"remove","op":"o4","base":3,"item":"t5"}"#,
                #"{"type":"retitle","op":"o5","base":4,"title":"Retro"}"#,
            ]
            for (i, op) in ops.enumerated() {
                ada.send(op)
                #expect(try await ada.next()["seq"]?.intValue == i + 1, "\(op)")
            }
            let (_, welcome) = try await server.join(as: "Bo")
            return try Board(json: try #require(welcome["board"]))
        }
        first.close()
        let second = try SQLiteStore(directory: dir, snapshotEvery: 3, keepOps: 10)
        defer { second.close() }
        try await withTestServer(store: second) { server in
            let (_, welcome) = try await server.join(as: "Ada")
            #expect(welcome["seq"]?.intValue == 5)
            #expect(try Board(json: try #require(welcome["board"])) == expected)
            #expect(expected.title == "Retro" && expected.item(ItemID("c1")!)?.label == "Ünïcødé ✓")
            // A resume from seq 2 gets the ops after it.
            let (ada, resumed) = try await server.join(as: "Ada", since: 2)
            #expect(
                resumed["ops"]?.arrayValue?.map { $0["type"]?.stringValue ?? "" } == ["addZone", "remove", "retitle"])
            // A resend after the restart is acknowledged, not applied again.
            ada.send(#"{"type":"remove","op":"o4","base":3,"item":"t5"}"#)
            #expect(try await ada.expect("ack")["seq"]?.intValue == 4)
        }
    }
}
