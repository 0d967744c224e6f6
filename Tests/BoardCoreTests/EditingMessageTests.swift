import BoardCore
import Testing

@Suite struct EditingMessageTests {
    func parse(_ text: String) -> Result<ClientMessage, ProtocolError> { ClientMessage.parse(Array(text.utf8)) }

    func request(_ op: Op, id: String = "o", base: Seq = 2) -> Result<ClientMessage, ProtocolError> {
        .success(.op(OpRequest(opID: opID(id), base: base, op: op)))
    }

    @Test func parsesEveryEditingOp() {
        #expect(
            parse(#"{"type":"add","op":"o","base":2,"zone":"tray","before":null,"item":{"label":"Buy milk"}}"#)
                == request(
                    .add(zone: zone("tray"), before: nil, item: card("Buy milk", color: BoardLimits.defaultColor))))
        #expect(
            parse(
                #"{"type":"add","op":"o","base":2,"zone":"grid","before":"t3","item":{"id":"x","label":"A","color":"red","detail":"d","on":true}}"#
            )
                == request(
                    .add(
                        zone: zone("grid"), before: item("t3"),
                        item: Item(id: .unassigned, label: "A", color: "red", on: true, detail: "d"))))
        #expect(
            parse(#"{"type":"edit","op":"o","base":2,"item":"t1","detail":null}"#)
                == request(.edit(item: item("t1"), changes: ItemEdit(detail: .some(nil)))))
        #expect(
            parse(##"{"type":"edit","op":"o","base":2,"item":"t1","label":"","color":"#fff"}"##)
                == request(.edit(item: item("t1"), changes: ItemEdit(label: "", color: "#fff"))))
        #expect(parse(#"{"type":"remove","op":"o","base":2,"item":"t1"}"#) == request(.remove(item: item("t1"))))
        #expect(
            parse(#"{"type":"addZone","op":"o","base":2,"before":null,"zone":{"title":"Blocked"}}"#)
                == request(.addZone(before: nil, zone: column("Blocked"))))
        #expect(
            parse(
                #"{"type":"addZone","op":"o","base":2,"before":"tray","zone":{"title":"G","layout":"grid","columns":3}}"#
            )
                == request(
                    .addZone(
                        before: zone("tray"),
                        zone: Zone(id: .unassigned, items: [], title: "G", layout: .grid, columns: 3))))
        #expect(
            parse(#"{"type":"editZone","op":"o","base":2,"zone":"tray","title":"Done","layout":"row"}"#)
                == request(.editZone(zone: zone("tray"), changes: ZoneEdit(title: "Done", layout: .row))))
        #expect(
            parse(#"{"type":"removeZone","op":"o","base":2,"zone":"tray"}"#) == request(.removeZone(zone: zone("tray")))
        )
        #expect(parse(#"{"type":"retitle","op":"o","base":2,"title":"Q3"}"#) == request(.retitle(title: "Q3")))
    }

    static let long = String(repeating: "a", count: 201)
    static let wide = String(repeating: "€", count: 150)  // 150 scalars, 450 bytes: over a zone title's 400.

    @Test(arguments: [
        (#"{"type":"add","op":"o","base":0,"zone":"tray","item":{"label":"x"}}"#, "\"before\""),
        (#"{"type":"add","op":"o","base":0,"zone":"tray","before":null}"#, "\"item\""),
        (#"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{}}"#, "\"item.label\""),
        (
            #"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"\#(long)"}}"#,
            "\"item.label\""
        ),
        (#"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"a\u0007"}}"#, "\"item.label\""),
        (
            #"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"a","color":"red;x:url(y)"}}"#,
            "\"item.color\""
        ),
        (
            #"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"a","detail":7}}"#,
            "\"item.detail\""
        ),
        (#"{"type":"add","op":"o","base":0,"zone":"tray","before":null,"item":{"label":"a","on":1}}"#, "\"item.on\""),
        (#"{"type":"edit","op":"o","base":0,"item":"t1"}"#, "at least one"),
        (#"{"type":"edit","op":"o","base":0,"item":"t1","label":null}"#, "\"label\""),
        (#"{"type":"edit","op":"o","base":0,"item":"t1","detail":"\#(long)"}"#, "\"detail\""),
        (#"{"type":"remove","op":"o","base":0}"#, "\"item\""),
        (#"{"type":"addZone","op":"o","base":0,"zone":{"title":"x"}}"#, "\"before\""),
        (#"{"type":"addZone","op":"o","base":0,"before":null,"zone":{"title":""}}"#, "\"zone.title\""),
        (#"{"type":"addZone","op":"o","base":0,"before":null,"zone":{"title":"\#(wide)"}}"#, "\"zone.title\""),
        (
            #"{"type":"addZone","op":"o","base":0,"before":null,"zone":{"title":"x","layout":"list","columns":3}}"#,
            "\"zone.columns\""
        ),
        (#"{"type":"addZone","op":"o","base":0,"before":null,"zone":{"title":"x","layout":"spiral"}}"#, "zone.layout"),
        (#"{"type":"editZone","op":"o","base":0,"zone":"tray"}"#, "at least one"),
        (#"{"type":"editZone","op":"o","base":0,"zone":"tray","layout":"row","columns":3}"#, "\"columns\""),
        (#"{"type":"editZone","op":"o","base":0,"zone":"tray","columns":65}"#, "\"columns\""),
        (#"{"type":"retitle","op":"o","base":0,"title":""}"#, "\"title\""),
        (#"{"type":"retitle","op":"o","base":0,"title":"\#(long)"}"#, "\"title\""),
    ])
    func badEditsNameTheField(_ text: String, _ field: String) {
        guard case .failure(let error) = parse(text) else {
            Issue.record("\(text) parsed")
            return
        }
        #expect(error.code == .badMessage)
        #expect(error.message.contains(field), "\(error.message)")
        #expect(error.opID == "o")
    }

    @Test func committedEditingOpsReadBackFromTheirArchivedJSON() throws {
        let ops: [Op] = [
            .add(zone: zone("tray"), before: nil, item: Item(id: item("c4"), label: "N", color: "#000", detail: "d")),
            .add(
                zone: zone("grid"), before: item("t2"), item: Item(id: item("c5"), label: "M", color: "#000", on: true)),
            .edit(item: item("t1"), changes: ItemEdit(label: "x", detail: .some(nil))),
            .remove(item: item("t1")),
            .addZone(before: zone("tray"), zone: Zone(id: zone("z7"), items: [], title: "B", layout: .list)),
            .editZone(zone: zone("z7"), changes: ZoneEdit(columns: 2)),
            .removeZone(zone: zone("z7")),
            .retitle(title: "T"),
        ]
        for (i, op) in ops.enumerated() {
            let committed = CommittedOp(seq: i + 1, opID: opID("o\(i)"), by: alice, op: op, time: wall)
            var w = JSONWriter()
            committed.encode(into: &w, withTime: true)
            #expect(try CommittedOp(json: JSON.parse(w.bytes)) == committed)
            #expect(try Op(type: op.kind, fields: JSON.parse(op.encodedFields())) == op)
        }
    }

    @Test func aStoredAddWithoutItsIDIsRefused() {
        #expect(throws: JSON.DecodingError.self) {
            try Op(
                type: "add", fields: JSON.parse(#"{"zone":"tray","before":null,"item":{"label":"x","color":"red"}}"#))
        }
    }
}
