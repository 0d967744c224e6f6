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
    private var answers: [Ticket: (ExchangeID, HTTPResponse)] = [:]

    /// What a durable ticket finished.
    struct Done {
        /// The board whose creation it stored.
        var created: BoardID?
        /// The answer that waited for it.
        var answer: (ExchangeID, HTTPResponse)?
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

    /// The board's deletion is queued under `ticket`; `answer` goes out once it is durable.
    mutating func delete(_ board: BoardID, ticket: Ticket, answer: (ExchangeID, HTTPResponse)) {
        deleting[ticket] = board
        answers[ticket] = answer
    }

    /// True while the board's creation is not yet durable.
    func isCreating(_ id: BoardID) -> Bool { creating.values.contains(id) }

    /// True while the board's deletion is not yet durable.
    func isDeleting(_ id: BoardID) -> Bool { deleting.values.contains(id) }

    /// The boards whose deletion is not yet durable.
    var deletingBoards: Dictionary<Ticket, BoardID>.Values { deleting.values }

    /// The ticket's write is durable.
    mutating func durable(_ ticket: Ticket) -> Done {
        deleting[ticket] = nil
        return Done(created: creating.removeValue(forKey: ticket), answer: answers.removeValue(forKey: ticket))
    }

    /// The ticket's write cannot be stored. A failed deletion leaves the board as stored (it may
    /// be loaded again).
    mutating func failed(_ ticket: Ticket) -> Failed {
        deleting[ticket] = nil
        return Failed(
            creationLost: creating.removeValue(forKey: ticket) != nil, exchange: answers.removeValue(forKey: ticket)?.0)
    }
}
