import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// Issue 36 through the hub: moveMany, archive and unarchive are persisted before anyone hears
/// of them and then broadcast to everyone, as one op each; a group drag is held whole and seen by
/// the others; the refusals of their rules.
@Suite struct BulkHubTests {
    @Test func everyBulkOpIsOneDurableOpBeforeItIsVisible() {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        let steps: [(String, String)] = [
            (
                #"{"type":"moveMany","op":"m1","base":0,"items":["t3","t1","t2"],"zone":"tray","before":null}"#,
                "moveMany"
            ),
            (#"{"type":"archive","op":"m2","base":1,"items":["t1","t5"]}"#, "archive"),
            (#"{"type":"unarchive","op":"m3","base":2,"items":["t5"],"zone":"tray","before":"t3"}"#, "unarchive"),
        ]
        for (seq, (text, type)) in steps.enumerated() {
            let sent = h.send(ada, text)
            let persisted = sent.compactMap { action -> [CommittedOp]? in
                if case .persist(.append(_, let ops), _) = action { return ops }
                return nil
            }
            #expect(persisted.flatMap { $0 }.map(\.seq) == [seq + 1], "\(type): one op, one seq")
            #expect(messages(to: ada, in: sent).isEmpty && messages(to: bo, in: sent).isEmpty, "not before durable")
            let durable = h.makeDurable()
            #expect(types(messages(to: ada, in: durable)) == [type])
            #expect(types(messages(to: bo, in: durable)) == [type])
        }
        // Bo's move of an archived card, with a base that has seen it: archived.
        let archived = h.send(bo, #"{"type":"move","op":"b1","base":3,"item":"t1","zone":"grid","before":null}"#)
        #expect(types(messages(to: bo, in: archived)) == ["reject:archived"])
        // A moveMany with a card moved after its base: conflict, and nothing moves.
        let late = h.send(
            bo, #"{"type":"moveMany","op":"b2","base":0,"items":["t4","t2"],"zone":"grid","before":null}"#)
        #expect(types(messages(to: bo, in: late)) == ["reject:conflict"])
        let unknown = h.send(bo, #"{"type":"archive","op":"b3","base":3,"items":["t4","nope"]}"#)
        #expect(types(messages(to: bo, in: unknown)) == ["reject:unknown_item"])
        let invalid = h.send(
            bo, #"{"type":"moveMany","op":"b4","base":3,"items":["t4","t6"],"zone":"grid","before":"t6"}"#)
        #expect(types(messages(to: bo, in: invalid)) == ["reject:invalid"])
        let twice = h.send(bo, #"{"type":"archive","op":"b5","base":3,"items":["t4","t4"]}"#)
        #expect(types(messages(to: bo, in: twice)) == ["error:bad_message"])
    }

    @Test func aGroupDragIsHeldWholeAndOthersSeeTheStack() {
        let h = HubHarness()
        let ada = h.open(1)
        let bo = h.open(2)
        h.joinNew(ada)
        h.hello(bo, name: "Bo")
        let lifted = h.send(ada, #"{"type":"dragStart","items":["t1","t2","t3"]}"#)
        guard case .dragStart(let lead, _, _, _, let group)? = messages(to: bo, in: lifted).first else {
            Issue.record("\(types(messages(to: bo, in: lifted)))")
            return
        }
        #expect(lead == ItemID("t1")! && group == [ItemID("t2")!, ItemID("t3")!])
        let refused = h.send(bo, #"{"type":"dragStart","items":["t4","t3"]}"#)
        #expect(types(messages(to: bo, in: refused)) == ["reject:held"])
        let drop = h.send(
            ada, #"{"type":"drop","item":"t1","op":"d1","base":0,"action":{"type":"move","zone":"tray","before":null}}"#
        )
        #expect(types(messages(to: bo, in: drop)) == ["drop"])
        let durable = h.makeDurable()
        guard case .committed(let op)? = messages(to: bo, in: durable).first else {
            Issue.record("\(types(messages(to: bo, in: durable)))")
            return
        }
        #expect(op.op == .moveMany(items: ["t1", "t2", "t3"].map { ItemID($0)! }, zone: ZoneID("tray")!, before: nil))
    }
}
