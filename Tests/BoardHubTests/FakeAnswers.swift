import BoardCore
import BoardStore
import Testing

@testable import BoardHub

/// What a test answers a read with, by what the store would say. Each read's own reply takes it
/// (`answer(_:to:)`): a test that gives a read an answer of another read records an issue.
enum FakeAnswer {
    /// A load's (or a claim that got the lease): the board's room, or nil (no such board).
    case room(Room?)
    /// An existence check's.
    case exists(Bool)
    /// A claim's: another node owns the board.
    case elsewhere(node: String, advertise: String)
    /// A snapshot's (or, in a cluster, `snapshotAndOwner`'s without an owner).
    case board(StoredBoard?)
    /// `snapshotAndOwner`'s.
    case boardAndOwner(StoredBoard?, owner: String?)
    /// A restore's `boardAt`.
    case boardAsOf(BoardAsOf, bytes: Int)
    /// An encoded HTTP answer (or nil: no such board stored).
    case encoded(HTTPResponse?)
    /// A list of boards.
    case list([BoardSummary])
    /// The cluster's nodes.
    case nodes([ClusterNode])
    /// A revocation stored.
    case revoked(Revocation)
    /// The revocations loaded.
    case revocations(RevocationSet)
    /// The store failed.
    case failed(StoreError)
}

/// An event whose answer is a test's (`HubHarness.on(_:)` turns it into the hub's).
enum FakeEvent {
    /// The read `ReadID` (asked among the harness's actions) came back with this answer.
    case answered(ReadID, FakeAnswer)
}

extension Reply {
    /// A reply that does nothing: for reads built only to be compared, or queued by a test (two
    /// reads are equal when they ask the same, whatever their replies).
    static var any: Self { Reply { _, _ in } }
}

/// `fake` as the answer to `read`, through the read's own reply; nil (and an issue) when `read`
/// does not answer so.
func answer(_ fake: FakeAnswer, to read: StoreRead, sourceLocation: SourceLocation = #_sourceLocation) -> StoreAnswer? {
    if case .failed(let error) = fake { return read.failed(error) }
    switch (read, fake) {
    case (.load(_, _, let reply), .room(let room)): return reply(.success(room))
    case (.claim(_, _, _, let reply), .room(let room)): return reply(.success(.mine(room)))
    case (.claim(_, _, _, let reply), .elsewhere(let node, let advertise)):
        return reply(.success(.elsewhere(node: node, advertise: advertise)))
    case (.exists(_, let reply), .exists(let exists)): return reply(.success(exists))
    case (.exists(_, let reply), .room(nil)): return reply(.success(false))
    case (.snapshot(_, let reply), .board(let stored)): return reply(.success(stored))
    case (.snapshotAndOwner(_, let reply), .board(let stored)):
        return reply(.success(StoredBoardAndOwner(board: stored, owner: nil)))
    case (.snapshotAndOwner(_, let reply), .boardAndOwner(let stored, let owner)):
        return reply(.success(StoredBoardAndOwner(board: stored, owner: owner)))
    case (.boardAt(_, _, let reply), .boardAsOf(let asOf, let bytes)): return reply(.success((asOf, bytes: bytes)))
    case (.opsPage(_, let reply), .encoded(let response)), (.boardAtAnswer(_, let reply), .encoded(let response)),
        (.historyPage(_, let reply), .encoded(let response)), (.commentsPage(_, let reply), .encoded(let response)),
        (.export(_, let reply), .encoded(let response)):
        return reply(.success(response))
    case (.list(_, _, let reply), .list(let boards)): return reply(.success(boards))
    case (.nodes(let reply), .nodes(let nodes)): return reply(.success(nodes))
    case (.revoke(_, _, let reply), .revoked(let revocation)): return reply(.success(revocation))
    case (.revocations(_, let reply), .revocations(let set)): return reply(.success(set))
    default:
        Issue.record("a test answers \(read) with \(fake)", sourceLocation: sourceLocation)
        return nil
    }
}

extension HubHarness {
    /// Answers a read asked among this harness's actions with a test's answer, through its reply.
    @discardableResult
    func on(_ event: FakeEvent, sourceLocation: SourceLocation = #_sourceLocation) -> [Hub.Action] {
        let (id, fake): (ReadID, FakeAnswer)
        switch event {
        case .answered(let read, let answer): (id, fake) = (read, answer)
        }
        let asked = log.lazy.compactMap { action -> StoreRead? in
            if case .read(id, let read) = action { read } else { nil }
        }.first
        guard let asked else {
            Issue.record("no read \(id) was asked", sourceLocation: sourceLocation)
            return []
        }
        guard let answer = answer(fake, to: asked, sourceLocation: sourceLocation) else { return [] }
        return on(.answered(id, answer))
    }
}
