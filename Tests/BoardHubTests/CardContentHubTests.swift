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

    @Test func anAddCarryingContentBringsARemovedCardBackWholeOnEveryPage() {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        for text in [
            ##"{"type":"addTag","op":"c1","base":0,"tag":{"name":"Bug","color":"#d32f2f"}}"##,
            #"{"type":"remove","op":"c2","base":1,"item":"t1"}"#,
        ] {
            _ = h.send(ada, text)
            _ = h.makeDurable()
        }
        // The undo of the remove: the card's content rides on the add.
        let undo = ##"""
            {"type":"add","op":"c3","base":2,"zone":"tray","before":null,"item":{"label":"Back","color":"#123456",\##
            "description":"**kept**","tags":["g1"],"assignees":[{"member":"bo","name":"Bo"}],"due":"2026-12-24",\##
            "checklist":[{"text":"Write it","done":true},{"text":"Ship it"}]}}
            """##
        let sent = h.send(ada, undo)
        #expect(messages(to: bo, in: sent).isEmpty, "not before durable")
        let durable = h.makeDurable()
        for page in [ada, bo] {
            let got = messages(to: page, in: durable)
            guard case .committed(let c)? = got.first, case .add(_, _, let card) = c.op else {
                Issue.record("\(types(got))")
                continue
            }
            #expect(card.description == "**kept**" && card.due == "2026-12-24" && card.tags == [TagID("g1")!])
            #expect(card.assignees.map(\.name) == ["Bo"])
            #expect(
                card.checklist.map(\.text) == ["Write it", "Ship it"] && card.checklist.map(\.done) == [true, false])
            #expect(card.checklist.map(\.id.rawValue) == ["k3", "k3-2"])
        }
        // Over a card's bounds: refused as board_full, nothing committed.
        let checks = (1...101).map { #"{"text":"c\#($0)"}"# }.joined(separator: ",")
        let full = h.send(
            bo,
            #"{"type":"add","op":"b1","base":3,"zone":"tray","before":null,"item":{"label":"A","checklist":[\#(checks)]}}"#
        )
        #expect(types(messages(to: bo, in: full)) == ["reject:board_full"])
    }
}
