internal import Basics
internal import BoardCore

/// The board directory's state: the boards in memory, the boards waiting for a store read that
/// decides what happens to them (with the work that waits behind it, in arrival order), and the
/// creations and deletions not durable yet (`PendingWrites`). A board is never both in memory and
/// waiting. The rules (loading, creating, deleting, evicting) are Hub+Boards.swift's; this owns
/// what they work on. Iterating it goes through the boards in memory in no particular order.
/// Confined to the service thread (with the hub).
final class BoardDirectory: Sequence {
    private var loaded: [BoardID: BoardHost] = [:]
    private var waiting: [BoardID: FIFO<Deferred>] = [:]
    /// Boards whose creation or deletion is not yet durable, and the HTTP answers waiting for
    /// their write.
    var pending = PendingWrites()

    // MARK: In memory

    /// The board, if it is in memory.
    subscript(id: BoardID) -> BoardHost? { loaded[id] }

    /// The boards in memory.
    var count: Int { loaded.count }
    var ids: Dictionary<BoardID, BoardHost>.Keys { loaded.keys }
    var hosts: Dictionary<BoardID, BoardHost>.Values { loaded.values }

    func makeIterator() -> Dictionary<BoardID, BoardHost>.Iterator { loaded.makeIterator() }

    /// The board is in memory from now on (in place of any board of its id).
    func insert(_ host: BoardHost) { loaded[host.id] = host }

    /// The board leaves memory: its host, if it was in memory.
    @discardableResult
    func remove(_ id: BoardID) -> BoardHost? { loaded.removeValue(forKey: id) }

    /// Whether memory holds (or is loading) `maximum` boards already (0: no maximum).
    func isFull(maximum: Int) -> Bool { maximum > 0 && loaded.count + waiting.count >= maximum }

    // MARK: Waiting for the store

    /// The boards waiting for a store read.
    var waitingCount: Int { waiting.count }

    /// Whether work on the board waits for a store read.
    func isWaiting(_ board: BoardID) -> Bool { waiting[board] != nil }

    /// `work` waits on `board`; true when it is the first (and a read must be asked for).
    func wait(_ work: Deferred, on board: BoardID) -> Bool {
        if waiting[board] != nil {
            waiting[board]!.append(work)
            return false
        }
        waiting[board] = FIFO([work])
        return true
    }

    /// The work waiting on `board`, which no longer waits.
    func takeWaiting(_ board: BoardID) -> FIFO<Deferred>? { waiting.removeValue(forKey: board) }

    /// `queue` waits on `board` again, behind a new read.
    func waitAgain(_ queue: FIFO<Deferred>, on board: BoardID) { waiting[board] = queue }
}
