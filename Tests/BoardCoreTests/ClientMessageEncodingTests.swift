import BoardCore
import TestSupport
import Testing

/// `ClientMessage.encoded()` is what a cluster node forwards to a board's owner: the owner must
/// parse back exactly the message the client sent.
@Suite struct ClientMessageEncodingTests {
    static let messages: [ClientMessage] = [
        .hello(board: demo, name: "Ada", since: nil, token: nil),
        .hello(board: demo, name: #"Ada "the" <Countess> & \ co"#, since: 0, token: nil),
        .hello(board: BoardID("b_1-X")!, name: "Zoë 😀", since: 12_345, token: "v1.eyJiIjoiZGVtbyJ9.c2ln+/="),
        .hello(board: demo, name: "x", since: nil, token: ""),
        .op(OpRequest(opID: opID("o1"), base: 0, op: .swap(a: item("t1"), b: item("t2")))),
        .op(OpRequest(opID: opID("o 2 ✓"), base: 4, op: .move(item: item("t1"), zone: zone("tray"), before: nil))),
        .op(OpRequest(opID: opID("o3"), base: 9, op: .move(item: item("t1"), zone: zone("grid"), before: item("t9")))),
        .op(OpRequest(opID: opID("o4"), base: 1, op: .toggle(item: item("t5"), on: true))),
        .op(OpRequest(opID: opID("o5"), base: 1, op: .toggle(item: item("t5"), on: false))),
        .dragStart(item: item("t1")),
        .hover(item: item("t1"), over: nil, zone: nil, mode: nil),
        .hover(item: item("t1"), over: item("t2"), zone: zone("grid"), mode: .move),
        .hover(item: item("t1"), over: item("t2"), zone: nil, mode: .swap, t: 0),
        .hover(item: item("t1"), over: nil, zone: zone("tray"), mode: nil, t: 1_764_000_000_123.25),
        .hover(item: item("t1"), over: nil, zone: nil, mode: nil, t: -3.5e-7),
        .hover(item: item("t1"), over: nil, zone: nil, mode: nil, t: 1e300),
        .hover(item: item("t1"), over: nil, zone: nil, mode: nil, t: 0.1 + 0.2),
        .drop(item: item("t1"), action: nil),
        .drop(item: item("t1"), action: OpRequest(opID: opID("o6"), base: 2, op: .swap(a: item("t1"), b: item("t3")))),
        .drop(
            item: item("t1"),
            action: OpRequest(opID: opID("o7"), base: 2, op: .move(item: item("t1"), zone: zone("grid"), before: nil))),
        .drop(
            item: item("t1"),
            action: OpRequest(
                opID: opID("o8"), base: 3, op: .move(item: item("t1"), zone: zone("grid"), before: item("t4")))),
        .ping,
        .op(OpRequest(opID: opID("e1"), base: 3, op: .add(zone: zone("tray"), before: nil, item: card("New <b>")))),
        .op(
            OpRequest(
                opID: opID("e2"), base: 3,
                op: .add(zone: zone("grid"), before: item("t2"), item: card("N", detail: "d")))),
        .op(OpRequest(opID: opID("e3"), base: 3, op: .edit(item: item("t1"), changes: ItemEdit(label: "Ro\"uge")))),
        .op(
            OpRequest(
                opID: opID("e4"), base: 3,
                op: .edit(item: item("t1"), changes: ItemEdit(label: "a", color: "#000", detail: .some(nil))))),
        .op(OpRequest(opID: opID("e5"), base: 3, op: .edit(item: item("t1"), changes: ItemEdit(detail: "note")))),
        .op(OpRequest(opID: opID("e6"), base: 3, op: .remove(item: item("t1")))),
        .op(OpRequest(opID: opID("e7"), base: 3, op: .addZone(before: nil, zone: column("Blocked")))),
        .op(
            OpRequest(
                opID: opID("e8"), base: 3,
                op: .addZone(
                    before: zone("tray"),
                    zone: Zone(
                        id: .unassigned, items: [], title: "G", layout: .grid, columns: 4, handle: true, axis: .y)
                ))),
        .op(OpRequest(opID: opID("e9"), base: 3, op: .editZone(zone: zone("tray"), changes: ZoneEdit(title: "T")))),
        .op(
            OpRequest(
                opID: opID("e10"), base: 3,
                op: .editZone(zone: zone("tray"), changes: ZoneEdit(layout: .grid, columns: 2))
            )),
        .op(OpRequest(opID: opID("e11"), base: 3, op: .removeZone(zone: zone("tray")))),
        .op(OpRequest(opID: opID("e12"), base: 3, op: .retitle(title: "Sprint ✓ 12"))),
        .auth(token: "v1.eyJiIjoiZGVtbyJ9.c2ln"),
        .auth(token: ""),
    ]

    @Test(arguments: messages)
    func everyMessageParsesBackAsItself(_ message: ClientMessage) {
        let text = message.encoded()
        #expect(ClientMessage.parse(text) == .success(message), "\(String(decoding: text, as: UTF8.self))")
    }

    @Test func hoverTimesOfEveryMagnitudeSurviveTheRoundTrip() {
        var random = SplitMix64(seed: 12)
        for _ in 0..<2_000 {
            let bits = random.next()
            let t = Double(bitPattern: bits)
            guard t.isFinite else { continue }
            let message = ClientMessage.hover(item: item("t1"), over: nil, zone: nil, mode: nil, t: t)
            #expect(ClientMessage.parse(message.encoded()) == .success(message), "seed 12, t = \(t)")
        }
    }

    @Test func whatAClientSentIsWhatIsForwarded() {
        let texts = [
            #"{"type":"hello","board":"demo","name":" Ada ","since":3,"token":"abc"}"#,
            #"{"type":"hover","item":"t1","over":"t2","zone":"grid","mode":"swap","t":1234.5}"#,
            #"{"type":"drop","item":"t1","op":"o5","base":2,"action":{"type":"move","zone":"grid","before":"t9"}}"#,
        ]
        for text in texts {
            guard case .success(let message) = ClientMessage.parse(Array(text.utf8)) else {
                Issue.record("\(text) did not parse")
                continue
            }
            #expect(ClientMessage.parse(message.encoded()) == .success(message))
        }
    }
}
