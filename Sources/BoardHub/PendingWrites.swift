internal import BoardCore

/// The writes the hub waits on to be durable, by their ticket: boards whose creation or deletion
/// is not stored yet, and the HTTP answers that go out once their write is.
///
/// A board being created must not be evicted and reloaded before its creation is stored; a board
/// being deleted must not be loaded (ops could be acknowledged onto a board about to vanish). When
/// the store says a ticket is durable (`durable`) or cannot be written (`failed`), this says what
/// it finished; the hub does the rest (Hub.swift, Hub+WriteFailures.swift). A value: tested alone
/// in `PendingWritesTests`.
struct PendingWrites {
    private var creating: [Ticket: BoardID] = [:]
    private var deleting: [Ticket: BoardID] = [:]
    /// Boards deleted durably whose share links' revocations the hub has not loaded yet, with the
    /// number of the revocation load that will show them: until then the id may not be used again
    /// (a board made again under it would honour the old links' tokens).
    private var settling: [BoardID: Int] = [:]
    private var answers: [Ticket: (ExchangeID, HTTPResponse)] = [:]
    /// Reads that wait for a creation to be durable (a share link made on a board `hello` made,
    /// which the store has only once this is).
    private var followUps: [Ticket: (read: StoreRead, exchange: ExchangeID)] = [:]

    /// What a durable ticket finished.
    struct Done {
        /// The board whose creation it stored.
        var created: BoardID?
        /// The answer that waited for it.
        var answer: (ExchangeID, HTTPResponse)?
        /// The read that waited for it, to ask now for its exchange.
        var read: (StoreRead, ExchangeID)?
    }

    /// What a failed ticket leaves.
    struct Failed {
        /// True when it was a board's creation: the room in memory serves a board the store does not have.
        var creationLost: Bool
        /// The exchange that waited for it, to answer 503.
        var exchange: ExchangeID?
    }

    /// The board's creation is queued under `ticket`; `answer` goes out once it is durable.
    mutating func create(_ board: BoardID, ticket: Ticket, answer: (ExchangeID, HTTPResponse)? = nil) {
        creating[ticket] = board
        if let answer { answers[ticket] = answer }
    }

    /// `read` is asked for `exchange` once `ticket` (a creation) is durable; if it fails, the
    /// exchange gets 503.
    mutating func after(_ ticket: Ticket, read: StoreRead, for exchange: ExchangeID) {
        followUps[ticket] = (read, exchange)
    }

    /// The board's deletion is queued under `ticket`; `answer` goes out once it is durable.
    mutating func delete(_ board: BoardID, ticket: Ticket, answer: (ExchangeID, HTTPResponse)) {
        deleting[ticket] = board
        answers[ticket] = answer
    }

    /// True while the board's creation is not yet durable.
    func isCreating(_ id: BoardID) -> Bool { creating.values.contains(id) }

    /// True while the board's deletion is not yet durable, or its links' revocations not yet loaded.
    func isDeleting(_ id: BoardID) -> Bool { settling[id] != nil || deleting.values.contains(id) }

    /// The boards whose deletion is not yet durable, or not yet settled.
    var deletingBoards: [BoardID] { Array(deleting.values) + settling.keys }

    /// The ticket's write is durable. A deletion stays until revocation load `settlesAt` has
    /// come back (`revocationsLoaded`), when given.
    mutating func durable(_ ticket: Ticket, settlesAt load: Int? = nil) -> Done {
        if let board = deleting.removeValue(forKey: ticket), let load { settling[board] = load }
        return Done(
            created: creating.removeValue(forKey: ticket), answer: answers.removeValue(forKey: ticket),
            read: followUps.removeValue(forKey: ticket))
    }

    /// Revocation load `load` came back: the deletions it settles are over; their boards, by id.
    mutating func revocationsLoaded(_ load: Int) -> [BoardID] {
        let settled = settling.filter { $0.value <= load }.keys.sorted()
        for board in settled { settling[board] = nil }
        return settled
    }

    /// True while a deleted board waits for a revocation load.
    var isSettling: Bool { !settling.isEmpty }

    /// The ticket's write cannot be stored. A failed deletion leaves the board as stored (it may
    /// be loaded again).
    mutating func failed(_ ticket: Ticket) -> Failed {
        deleting[ticket] = nil
        let waiting = followUps.removeValue(forKey: ticket)?.exchange
        return Failed(
            creationLost: creating.removeValue(forKey: ticket) != nil,
            exchange: answers.removeValue(forKey: ticket)?.0 ?? waiting)
    }
}
