import BoardCore
import Testing

@testable import BoardStore

/// The board list reads titles from the boards table, never a snapshot: a `retitle`, a
/// `restore` to a board of another title, and an import of a retitled board keep it true.
@Suite struct BoardTitleStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func op(_ seq: Seq, _ op: Op) -> CommittedOp {
        CommittedOp(seq: seq, opID: OpID("o\(seq)")!, by: UserID("u1"), op: op, time: UnixTime(milliseconds: 5))
    }

    @Test(arguments: stores) func theListShowsATitleChangedByAnOpOrAnImport(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try space.open()
            let board = Board.defaultTemplate(id: boardA)
            try store.write([.create(board), .create(.defaultTemplate(id: boardB))])
            try store.write([.append(boardA, [Self.op(1, .retitle(title: "Sprint 12"))])])
            #expect(try store.list(after: nil, limit: 10).map(\.title) == ["Sprint 12", boardB.rawValue])
            // Two boards in one batch (the multi-board path), one of them retitled.
            try store.write([
                .append(boardA, [Self.op(2, .retitle(title: "Sprint 13"))]),
                .append(boardB, [Self.op(1, .toggle(item: ItemID("t1")!, on: true))]),
            ])
            #expect(try store.list(after: nil, limit: 10).map(\.title) == ["Sprint 13", boardB.rawValue])
            try store.write([.append(boardA, [Self.op(3, .restore(to: 0, board: board))])])
            #expect(try store.list(after: nil, limit: 1).first?.title == board.title, "a restore to seq 0")
            try store.write([.append(boardA, [Self.op(4, .retitle(title: "Kept"))])])
            let archive = try #require(try store.archive(of: boardA))
            try store.restore(archive, replace: true)
            #expect(try store.list(after: nil, limit: 1).first?.title == "Kept", "an import keeps the last title")
        }
    }
}
