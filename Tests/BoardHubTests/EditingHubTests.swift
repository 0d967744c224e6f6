import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Issue 19 through the hub: every editing op is persisted before anyone hears of it, then
/// broadcast to everyone on the board once durable, like a move.
@Suite struct EditingHubTests {
    @Test func everyEditingOpIsDurableBeforeItIsVisible() {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        let steps: [(String, String)] = [
            (#"{"type":"add","op":"e1","base":0,"zone":"tray","before":null,"item":{"label":"New"}}"#, "add"),
            (#"{"type":"edit","op":"e2","base":1,"item":"c1","label":"Newer","detail":"d"}"#, "edit"),
            (#"{"type":"addZone","op":"e3","base":2,"before":null,"zone":{"title":"Blocked"}}"#, "addZone"),
            (#"{"type":"editZone","op":"e4","base":3,"zone":"z3","title":"Waiting"}"#, "editZone"),
            (#"{"type":"remove","op":"e5","base":4,"item":"c1"}"#, "remove"),
            (#"{"type":"removeZone","op":"e6","base":5,"zone":"tray"}"#, "removeZone"),
            (#"{"type":"retitle","op":"e7","base":6,"title":"Sprint"}"#, "retitle"),
        ]
        for (seq, (text, type)) in steps.enumerated() {
            let sent = h.send(ada, text)
            let persisted = sent.compactMap { action -> [CommittedOp]? in
                if case .persist(.append(_, let ops), _) = action { return ops }
                return nil
            }
            #expect(persisted.flatMap { $0 }.map(\.seq) == [seq + 1], "\(type)")
            #expect(messages(to: ada, in: sent).isEmpty && messages(to: bo, in: sent).isEmpty, "not before durable")
            let durable = h.makeDurable()
            #expect(types(messages(to: ada, in: durable)) == [type])
            #expect(types(messages(to: bo, in: durable)) == [type])
        }
        // A removed zone's id is a conflict for an op made before its removal, and unknown after.
        let late = h.send(ada, #"{"type":"editZone","op":"e8","base":5,"zone":"tray","title":"x"}"#)
        #expect(types(messages(to: ada, in: late)) == ["reject:conflict"])
        let unknown = h.send(ada, #"{"type":"editZone","op":"e9","base":7,"zone":"tray","title":"x"}"#)
        #expect(types(messages(to: ada, in: unknown)) == ["reject:unknown_zone"])
    }
}
