import BoardCore
import Testing

@testable import BoardHub

/// The writes the hub waits on (`PendingWrites`), alone: what a durable or failed ticket finishes.
@Suite struct PendingWritesTests {
    private let created = HTTPResponse.error(201, "created", "c")
    private let deleted = HTTPResponse.error(200, "deleted", "d")

    @Test func aDurableCreationFreesTheBoardAndItsAnswer() {
        var writes = PendingWrites()
        writes.create(BoardID("a")!, ticket: Ticket(1), answer: (ExchangeID(7), created))
        #expect(writes.isCreating(BoardID("a")!))
        #expect(!writes.isDeleting(BoardID("a")!))
        let done = writes.durable(Ticket(1))
        #expect(done.created == BoardID("a")!)
        #expect(done.answer?.0 == ExchangeID(7))
        #expect(done.answer?.1 == created)
        #expect(!writes.isCreating(BoardID("a")!))
        let again = writes.durable(Ticket(1))
        #expect(again.created == nil, "a ticket finishes once")
    }

    @Test func aCreationWithoutAnAnswerHasNone() {
        var writes = PendingWrites()
        writes.create(BoardID("a")!, ticket: Ticket(2))
        let done = writes.durable(Ticket(2))
        #expect(done.created == BoardID("a")!)
        #expect(done.answer == nil)
    }

    @Test func aDeletionIsPendingUntilDurable() {
        var writes = PendingWrites()
        writes.delete(BoardID("b")!, ticket: Ticket(3), answer: (ExchangeID(8), deleted))
        #expect(writes.isDeleting(BoardID("b")!))
        #expect(Array(writes.deletingBoards) == [BoardID("b")!])
        let done = writes.durable(Ticket(3))
        #expect(done.created == nil)
        #expect(done.answer?.1 == deleted)
        #expect(!writes.isDeleting(BoardID("b")!))
    }

    @Test func aFailedCreationIsLostAndAFailedDeletionLeavesTheBoard() {
        var writes = PendingWrites()
        writes.create(BoardID("a")!, ticket: Ticket(1), answer: (ExchangeID(7), created))
        writes.delete(BoardID("b")!, ticket: Ticket(2), answer: (ExchangeID(8), deleted))
        let creation = writes.failed(Ticket(1))
        #expect(creation.creationLost)
        #expect(creation.exchange == ExchangeID(7))
        let deletion = writes.failed(Ticket(2))
        #expect(!deletion.creationLost)
        #expect(deletion.exchange == ExchangeID(8))
        #expect(!writes.isCreating(BoardID("a")!))
        #expect(!writes.isDeleting(BoardID("b")!))
        let unknown = writes.failed(Ticket(9))
        #expect(!unknown.creationLost, "an unknown ticket finishes nothing")
        #expect(unknown.exchange == nil)
    }

    /// With access control, a deleted board's id stays taken after its deletion is durable until
    /// the revocation load that shows its links' tokens revoked (an earlier load does not count).
    @Test func aDeletionSettlesOnlyWithTheRevocationLoadAskedAfterIt() {
        var writes = PendingWrites()
        let board = BoardID("gone")!
        writes.delete(board, ticket: Ticket(3), answer: (ExchangeID(9), .json(200) { _ in }))
        let done = writes.durable(Ticket(3), settlesAt: 5)
        #expect(done.answer?.0 == ExchangeID(9), "the 200 goes out once durable")
        #expect(writes.isDeleting(board) && writes.isSettling && writes.deletingBoards == [board])
        let early = writes.revocationsLoaded(4)
        #expect(early.isEmpty && writes.isDeleting(board), "load 4 was asked before: still waiting")
        let settled = writes.revocationsLoaded(5)
        #expect(settled == [board])
        #expect(!writes.isDeleting(board) && !writes.isSettling && writes.deletingBoards.isEmpty)
        // Without access control there are no links: durable is the end.
        writes.delete(board, ticket: Ticket(4), answer: (ExchangeID(10), .json(200) { _ in }))
        _ = writes.durable(Ticket(4))
        #expect(!writes.isDeleting(board))
    }
}
