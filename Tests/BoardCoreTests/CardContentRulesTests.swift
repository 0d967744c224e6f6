import BoardCore
import Testing

/// Shorthands for card content.
func tagID(_ s: String) -> TagID { TagID(s)! }
func checkID(_ s: String) -> CheckID { CheckID(s)! }
func person(_ member: String, _ name: String? = nil) -> Assignee {
    Assignee(member: MemberID(member)!, name: name ?? member.capitalized)
}
/// A new tag, as an `addTag` request carries it.
func newTag(_ name: String, color: String = "#d32f2f") -> Op {
    .addTag(tag: Tag(id: .unassigned, name: name, color: color))
}
/// A new checklist entry at the end of `t1`'s, as an `addCheck` request carries it.
func newCheck(_ text: String, on card: String = "t1", before: String? = nil) -> Op {
    .addCheck(item: item(card), before: before.map(checkID), check: Check(id: .unassigned, text: text))
}

extension SequencerTests {
    /// The conflict rows of card content (docs/conflicts.md, "Card content"), on the colors
    /// board; history is bob's, the request alice's. Tags made in the history get ids `g<seq>`,
    /// checklist entries `k<seq>`.
    static let contentCases: [Case] = [
        // edit of description and due: the same-field rule of label
        Case(
            name: "edit of a description commits", base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(description: "# Plan\n\n- write", due: "2026-12-24"))),
        Case(
            name: "edit of a description after a concurrent description edit",
            history: [.edit(item: item("t1"), changes: ItemEdit(description: "Bo's"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(description: "Ada's")), expected: .conflict),
        Case(
            name: "edit of a due date after a concurrent description edit commits",
            history: [.edit(item: item("t1"), changes: ItemEdit(description: "Bo's"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(due: "2026-02-28T09:30Z"))),
        Case(
            name: "edit clearing a due date after a concurrent due edit",
            history: [.edit(item: item("t1"), changes: ItemEdit(due: "2026-03-01"))], base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(due: .some(nil))), expected: .conflict),
        Case(
            name: "edit of a description while another holds the card commits", base: 0,
            op: .edit(item: item("t1"), changes: ItemEdit(description: "text")), heldByBob: ["t1"]),
        // tag
        Case(
            name: "tag commits", history: [newTag("Bug")], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: [])),
        Case(
            name: "tag and a concurrent tag of the same card commit",
            history: [newTag("Bug"), newTag("UX"), .tag(item: item("t1"), add: [tagID("g1")], remove: [])], base: 2,
            op: .tag(item: item("t1"), add: [tagID("g2")], remove: [tagID("g1")])),
        Case(
            name: "tag adding a tag the card has commits",
            history: [newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: [])], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: [])),
        Case(
            name: "tag removing a tag the card lacks commits", history: [newTag("Bug")], base: 1,
            op: .tag(item: item("t1"), add: [], remove: [tagID("g1")])),
        Case(
            name: "tag with an unknown tag", base: 0, op: .tag(item: item("t1"), add: [tagID("nope")], remove: []),
            expected: .unknownTag),
        Case(
            name: "tag with a tag removed after base", history: [newTag("Bug"), .removeTag(tag: tagID("g1"))], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: []), expected: .conflict),
        Case(
            name: "tag with a tag removed at or before base", history: [newTag("Bug"), .removeTag(tag: tagID("g1"))],
            base: 2, op: .tag(item: item("t1"), add: [tagID("g1")], remove: []), expected: .unknownTag),
        Case(
            name: "tag after a concurrent label edit commits",
            history: [newTag("Bug"), .edit(item: item("t1"), changes: ItemEdit(label: "Rouge"))], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: [])),
        Case(
            name: "tag of a card another holds commits", history: [newTag("Bug")], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: []), heldByBob: ["t1"]),
        Case(
            name: "tag of a card removed after base", history: [newTag("Bug"), .remove(item: item("t1"))], base: 1,
            op: .tag(item: item("t1"), add: [tagID("g1")], remove: []), expected: .conflict),
        Case(
            name: "tag over 20 tags on a card",
            history: (1...21).map { newTag("T\($0)") } + [
                .tag(item: item("t1"), add: (1...20).map { tagID("g\($0)") }, remove: [])
            ], base: 22, op: .tag(item: item("t1"), add: [tagID("g21")], remove: []), expected: .boardFull),
        Case(
            name: "tag trading one of 20 tags for another commits",
            history: (1...21).map { newTag("T\($0)") } + [
                .tag(item: item("t1"), add: (1...20).map { tagID("g\($0)") }, remove: [])
            ], base: 22, op: .tag(item: item("t1"), add: [tagID("g21")], remove: [tagID("g1")])),
        Case(
            name: "remove of a card after a concurrent tag",
            history: [newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: [])], base: 1,
            op: .remove(item: item("t1")), expected: .conflict),
        // assign
        Case(name: "assign commits", base: 0, op: .assign(item: item("t1"), add: [person("ann")], remove: [])),
        Case(
            name: "assign and a concurrent assign commit",
            history: [.assign(item: item("t1"), add: [person("bo")], remove: [])], base: 0,
            op: .assign(item: item("t1"), add: [person("ann")], remove: [person("bo").member])),
        Case(
            name: "assign over 20 assignees",
            history: [.assign(item: item("t1"), add: (1...20).map { person("m\($0)") }, remove: [])], base: 1,
            op: .assign(item: item("t1"), add: [person("ann")], remove: []), expected: .boardFull),
        Case(
            name: "assign of a card removed after base", history: [.remove(item: item("t1"))], base: 0,
            op: .assign(item: item("t1"), add: [person("ann")], remove: []), expected: .conflict),
        // addTag, editTag, removeTag
        Case(name: "addTag commits", base: 0, op: newTag("Bug")),
        Case(
            name: "addTag over 64 tags", history: (1...64).map { newTag("T\($0)") }, base: 64, op: newTag("one more"),
            expected: .boardFull),
        Case(
            name: "editTag of the same field after base",
            history: [newTag("Bug"), .editTag(tag: tagID("g1"), changes: TagEdit(name: "Defect"))], base: 1,
            op: .editTag(tag: tagID("g1"), changes: TagEdit(name: "Issue")), expected: .conflict),
        Case(
            name: "editTag of another field after base commits",
            history: [newTag("Bug"), .editTag(tag: tagID("g1"), changes: TagEdit(color: "#000"))], base: 1,
            op: .editTag(tag: tagID("g1"), changes: TagEdit(name: "Issue"))),
        Case(
            name: "editTag of an unknown tag", base: 0, op: .editTag(tag: tagID("g9"), changes: TagEdit(name: "x")),
            expected: .unknownTag),
        Case(
            name: "removeTag after a concurrent editTag",
            history: [newTag("Bug"), .editTag(tag: tagID("g1"), changes: TagEdit(color: "#000"))], base: 1,
            op: .removeTag(tag: tagID("g1")), expected: .conflict),
        Case(
            name: "removeTag after a concurrent tag of a card commits",
            history: [newTag("Bug"), .tag(item: item("t1"), add: [tagID("g1")], remove: [])], base: 1,
            op: .removeTag(tag: tagID("g1"))),
        Case(
            name: "removeTag after a concurrent removeTag", history: [newTag("Bug"), .removeTag(tag: tagID("g1"))],
            base: 1, op: .removeTag(tag: tagID("g1")), expected: .conflict),
        // addCheck, editCheck, removeCheck
        Case(name: "addCheck commits", base: 0, op: newCheck("Write it")),
        Case(
            name: "addCheck before an entry commits", history: [newCheck("Second")], base: 1,
            op: newCheck("First", before: "k1")),
        Case(
            name: "addCheck before an unknown entry", base: 0, op: newCheck("First", before: "k9"),
            expected: .unknownCheck),
        Case(
            name: "addCheck before an entry removed after base",
            history: [newCheck("Second"), .removeCheck(item: item("t1"), check: checkID("k1"))], base: 1,
            op: newCheck("First", before: "k1"), expected: .conflict),
        Case(
            name: "addCheck before an entry of another card", history: [newCheck("Second", on: "t2")], base: 1,
            op: newCheck("First", before: "k1"), expected: .unknownCheck),
        Case(
            name: "addCheck over 100 entries", history: (1...100).map { newCheck("C\($0)") }, base: 100,
            op: newCheck("one more"), expected: .boardFull),
        Case(
            name: "editCheck of the same field after base",
            history: [
                newCheck("Write"), .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)),
            ],
            base: 1, op: .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: false)),
            expected: .conflict),
        Case(
            name: "editCheck of another field after base commits",
            history: [
                newCheck("Write"), .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)),
            ],
            base: 1, op: .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(text: "Write it"))),
        Case(
            name: "editCheck after a concurrent edit of another entry commits",
            history: [
                newCheck("A"), newCheck("B"),
                .editCheck(item: item("t1"), check: checkID("k2"), changes: CheckEdit(done: true)),
            ], base: 2, op: .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true))),
        Case(
            name: "editCheck of an entry removed after base",
            history: [newCheck("Write"), .removeCheck(item: item("t1"), check: checkID("k1"))], base: 1,
            op: .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)), expected: .conflict),
        Case(
            name: "editCheck of an unknown entry", base: 0,
            op: .editCheck(item: item("t1"), check: checkID("k9"), changes: CheckEdit(done: true)),
            expected: .unknownCheck),
        Case(
            name: "editCheck on a card another holds commits", history: [newCheck("Write")], base: 1,
            op: .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)), heldByBob: ["t1"]),
        Case(
            name: "removeCheck after a concurrent editCheck",
            history: [
                newCheck("Write"), .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)),
            ],
            base: 1, op: .removeCheck(item: item("t1"), check: checkID("k1")), expected: .conflict),
        Case(
            name: "removeCheck after an edit it has seen commits",
            history: [
                newCheck("Write"), .editCheck(item: item("t1"), check: checkID("k1"), changes: CheckEdit(done: true)),
            ],
            base: 2, op: .removeCheck(item: item("t1"), check: checkID("k1"))),
    ]
}
