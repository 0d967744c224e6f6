import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Issue 32 through the hub: every card-content op is persisted before anyone hears of it, then
/// broadcast to everyone on the board once durable, like a move; the refusals of its rules.
@Suite struct CardContentHubTests {
    @Test func everyContentOpIsDurableBeforeItIsVisible() {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        let steps: [(String, String)] = [
            (##"{"type":"addTag","op":"c1","base":0,"tag":{"name":"Bug","color":"#d32f2f"}}"##, "addTag"),
            (#"{"type":"tag","op":"c2","base":1,"item":"t1","add":["g1"]}"#, "tag"),
            (#"{"type":"assign","op":"c3","base":2,"item":"t1","add":[{"member":"bo","name":"Bo"}]}"#, "assign"),
            (
                ##"{"type":"edit","op":"c4","base":3,"item":"t1","description":"# A\n\n- b","due":"2026-02-28"}"##,
                "edit"
            ),
            (#"{"type":"addCheck","op":"c5","base":4,"item":"t1","before":null,"text":"Write it"}"#, "addCheck"),
            (#"{"type":"editCheck","op":"c6","base":5,"item":"t1","check":"k5","done":true}"#, "editCheck"),
            (#"{"type":"editTag","op":"c7","base":6,"tag":"g1","name":"Defect"}"#, "editTag"),
            (#"{"type":"removeCheck","op":"c8","base":7,"item":"t1","check":"k5"}"#, "removeCheck"),
            (#"{"type":"removeTag","op":"c9","base":8,"tag":"g1"}"#, "removeTag"),
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
        // A tag removed after the sender's base is a conflict; once seen, unknown.
        let late = h.send(bo, #"{"type":"tag","op":"b1","base":8,"item":"t2","add":["g1"]}"#)
        #expect(types(messages(to: bo, in: late)) == ["reject:conflict"])
        let unknown = h.send(bo, #"{"type":"tag","op":"b2","base":9,"item":"t2","add":["g1"]}"#)
        #expect(types(messages(to: bo, in: unknown)) == ["reject:unknown_tag"])
        let check = h.send(bo, #"{"type":"editCheck","op":"b3","base":9,"item":"t1","check":"k5","done":false}"#)
        #expect(types(messages(to: bo, in: check)) == ["reject:unknown_check"])
        // A bad date is a bad message naming the member, and nothing is committed.
        let bad = h.send(bo, #"{"type":"edit","op":"b4","base":9,"item":"t1","due":"2026-02-30"}"#)
        #expect(types(messages(to: bo, in: bad)) == ["error:bad_message"])
    }
}
