import BoardCore
import Testing

/// A comment on `t1` as a `comment` request carries it.
func newComment(_ text: String, on card: String = "t1", mentions: [Mention] = []) -> Op {
    .comment(
        item: item(card),
        comment: BoardCore.Comment(
            id: .unassigned, text: text, member: MemberID("unassigned")!, name: "unassigned", at: 0,
            mentions: mentions))
}
func commentID(_ s: String) -> CommentID { CommentID(s)! }
func editComment(_ id: String, _ text: String, on card: String = "t1") -> Op {
    .editComment(item: item(card), comment: commentID(id), text: text, mentions: [], edited: 0)
}
func removeComment(_ id: String, on card: String = "t1") -> Op {
    .removeComment(item: item(card), comment: commentID(id))
}

extension SequencerTests {
    /// The conflict rows of comments (docs/conflicts.md, "Comments"), on the colors board; the
    /// history is bob's, the request alice's (comments made in the history get ids `n<seq>`).
    static let commentCases: [Case] = [
        Case(name: "comment commits", base: 0, op: newComment("Looks good")),
        Case(
            name: "comment on a card another holds commits", base: 0, op: newComment("Mine now?"), heldByBob: ["t1"]),
        Case(
            name: "comment after a concurrent comment and edit of the card commits",
            history: [newComment("First"), .edit(item: item("t1"), changes: ItemEdit(label: "Renamed"))], base: 0,
            op: newComment("Second")),
        Case(name: "comment on an unknown card", base: 0, op: newComment("?", on: "nope"), expected: .unknownItem),
        Case(
            name: "comment on a card removed after base", history: [.remove(item: item("t1"))], base: 0,
            op: newComment("Too late"), expected: .conflict),
        Case(
            name: "comment over 500 on a card",
            history: (1...BoardLimits.commentsPerItem).map { newComment("C\($0)") },
            base: BoardLimits.commentsPerItem, op: newComment("one more"), expected: .boardFull),
        Case(
            name: "editComment of another's comment", history: [newComment("Bo's")], base: 1,
            op: editComment("n1", "Ada's now"), expected: .forbidden),
        Case(
            name: "removeComment of another's comment", history: [newComment("Bo's")], base: 1,
            op: removeComment("n1"), expected: .forbidden),
        Case(
            name: "editComment of an unknown comment", base: 0, op: editComment("n9", "?"), expected: .unknownComment),
        Case(
            name: "editComment naming another card", history: [newComment("Bo's", on: "t2")], base: 1,
            op: editComment("n1", "?"), expected: .unknownComment),
        Case(
            name: "editComment of a comment removed after base",
            history: [newComment("Bo's"), removeComment("n1")], base: 1, op: editComment("n1", "?"),
            expected: .conflict),
        Case(
            name: "removeComment of a comment removed before base",
            history: [newComment("Bo's"), removeComment("n1")], base: 2, op: removeComment("n1"),
            expected: .unknownComment),
    ]

    /// Sends `op` as `user` (member = the user id), expecting a commit.
    private static func commit(_ s: inout Sequencer, _ op: Op, by user: UserID, base: Seq? = nil) -> CommittedOp? {
        let outcome = s.submit(
            OpRequest(opID: opID("o\(s.seq)-\(user)"), base: base ?? s.seq, op: op), by: user, name: "N\(user)",
            time: wall
        ) { _ in nil }
        guard case .committed(let committed) = outcome else { return nil }
        return committed
    }

    @Test func aCommentGetsItsIdAuthorNameAndTimeFromTheServer() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let op = try #require(Self.commit(&s, newComment("Hi @Bo", mentions: [person("bo", "Bo")]), by: alice))
        guard case .comment(let on, let comment) = op.op else { Issue.record("\(op.op)"); return }
        #expect(on == item("t1"))
        #expect(comment.id == commentID("n1"))
        #expect(comment.member == MemberID(alice.rawValue))
        #expect(comment.name == "N\(alice)")
        #expect(comment.at == wall.milliseconds)
        #expect(comment.mentions == [person("bo", "Bo")])
        #expect(s.board.item(item("t1"))?.comments == 1)
        #expect(s.board.commentRefs[commentID("n1")] == CommentRef(item: item("t1"), member: MemberID(alice.rawValue)!))
    }

    @Test func theAuthorEditsAndRemovesAndAnAdminRemovesAnyonesComment() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        _ = try #require(Self.commit(&s, newComment("One"), by: alice))
        _ = try #require(Self.commit(&s, newComment("Two"), by: alice))
        let edit = try #require(Self.commit(&s, editComment("n1", "One, edited"), by: alice))
        guard case .editComment(_, _, let text, _, let edited) = edit.op else { Issue.record("\(edit.op)"); return }
        #expect(text == "One, edited" && edited == wall.milliseconds)
        _ = try #require(Self.commit(&s, removeComment("n1"), by: alice))
        #expect(s.board.item(item("t1"))?.comments == 1)
        // Bob may not remove n2, unless he is an admin.
        let refused = s.submit(OpRequest(opID: opID("b1"), base: s.seq, op: removeComment("n2")), by: bob, time: wall) {
            _ in nil
        }
        #expect(refused == .rejected(Rejection(.forbidden, opID: opID("b1"))))
        let admin = s.submit(
            OpRequest(opID: opID("b2"), base: s.seq, op: removeComment("n2")), by: bob, admin: true, time: wall
        ) { _ in nil }
        guard case .committed = admin else { Issue.record("\(admin)"); return }
        #expect(s.board.item(item("t1"))?.comments == 0)
        #expect(s.board.commentRefs.isEmpty)
    }

    @Test func aSecondEditFromTheSameBaseConflictsAndTheBoardBoundHolds() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        _ = try #require(Self.commit(&s, newComment("One"), by: alice))
        _ = try #require(Self.commit(&s, editComment("n1", "A"), by: alice, base: 1))
        let second = s.submit(OpRequest(opID: opID("x"), base: 1, op: editComment("n1", "B")), by: alice, time: wall) {
            _ in nil
        }
        #expect(second == .rejected(Rejection(.conflict, by: alice, opID: opID("x"))))
    }

    @Test func aBoardKeepsAtMost5000CommentsOverItsCards() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let cards = s.board.items.prefix(BoardLimits.comments / BoardLimits.commentsPerItem + 1).map(\.id.rawValue)
        try #require(cards.count > BoardLimits.comments / BoardLimits.commentsPerItem)
        for card in cards.dropLast() {
            for n in 1...BoardLimits.commentsPerItem {
                _ = try #require(Self.commit(&s, newComment("C\(n)", on: card), by: alice))
            }
        }
        #expect(s.board.commentRefs.count == BoardLimits.comments)
        let full = s.submit(
            OpRequest(opID: opID("full"), base: s.seq, op: newComment("one more", on: cards.last!)), by: alice,
            time: wall
        ) { _ in nil }
        #expect(full == .rejected(Rejection(.boardFull, opID: opID("full"))))
        // Removing one frees room.
        _ = try #require(Self.commit(&s, removeComment("n1", on: cards[0]), by: alice))
        _ = try #require(Self.commit(&s, newComment("now it fits", on: cards.last!), by: alice))
    }

    @Test func restoreKeepsEveryCommentAndCardsBackShowTheirCounts() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let before = s.board
        _ = try #require(Self.commit(&s, newComment("One"), by: alice))
        _ = try #require(Self.commit(&s, .remove(item: item("t1")), by: alice))
        #expect(s.board.commentRefs.count == 1)
        // Back to seq 0: t1 is back, with its comment (made after seq 0).
        _ = try #require(Self.commit(&s, .restore(to: 0, board: before), by: alice))
        #expect(s.board.item(item("t1"))?.comments == 1)
        #expect(s.board.commentRefs.count == 1)
    }

    @Test func theStoredSnapshotCarriesTheRefsAndWelcomeOnlyCounts() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        _ = try #require(Self.commit(&s, newComment("One"), by: alice))
        let wire = String(decoding: s.board.encoded(), as: UTF8.self)
        #expect(wire.contains(#""comments":1"#))
        #expect(!wire.contains("commentRefs"))
        let stored = s.board.encoded(stored: true)
        let back = try Board(json: JSON.parse(stored))
        #expect(back == s.board)
        let fromWire = try Board(json: JSON.parse(s.board.encoded()))
        #expect(fromWire.item(item("t1"))?.comments == 1)
    }

    @Test func commentOpsRoundTripThroughJSON() throws {
        var s = Sequencer(board: .defaultTemplate(id: demo))
        let made = try #require(Self.commit(&s, newComment("**Hi** @Bo", mentions: [person("bo", "Bo")]), by: alice))
        let edited = try #require(Self.commit(&s, editComment("n1", "Edited"), by: alice))
        let removed = try #require(Self.commit(&s, removeComment("n1"), by: alice))
        for op in [made, edited, removed] {
            let back = try Op(type: op.op.kind, fields: JSON.parse(op.op.encodedFields()))
            #expect(back == op.op)
        }
    }

    @Test func requestsAreBounded() {
        func parse(_ text: String) -> Bool {
            if case .success = ClientMessage.parse(Array(text.utf8)) { return true }
            return false
        }
        #expect(parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"Hi"}"#))
        #expect(!parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":""}"#))
        #expect(!parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"  \n"}"#))
        let long = String(repeating: "a", count: 4001)
        #expect(!parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"\#(long)"}"#))
        #expect(parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"\#(long.dropLast())"}"#))
        // 4,000 scalars of 4 bytes each is 16,000 bytes: within; 4,000 of them and one more byte is not.
        let wide = String(repeating: "😀", count: 4000)
        #expect(parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"\#(wide)"}"#))
        let mentions = (0...20).map { #"{"member":"m\#($0)","name":"M\#($0)"}"# }.joined(separator: ",")
        #expect(!parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"x","mentions":[\#(mentions)]}"#))
        let twenty = (1...20).map { #"{"member":"m\#($0)","name":"M\#($0)"}"# }.joined(separator: ",")
        #expect(parse(#"{"type":"comment","op":"o","base":0,"item":"t1","text":"x","mentions":[\#(twenty)]}"#))
        #expect(
            !parse(
                #"{"type":"comment","op":"o","base":0,"item":"t1","text":"x","mentions":[{"member":"a","name":"A"},{"member":"a","name":"B"}]}"#
            ))
        #expect(!parse(#"{"type":"editComment","op":"o","base":0,"item":"t1","comment":"n1"}"#))
        #expect(parse(#"{"type":"removeComment","op":"o","base":0,"item":"t1","comment":"n1"}"#))
    }
}
