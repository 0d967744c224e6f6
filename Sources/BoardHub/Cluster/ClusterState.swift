internal import BoardCore

/// The waits `Cluster` keeps besides its lease views and forwards: the boards whose `release` the
/// store has not carried out yet, the joins waiting to claim their board again or for any answer
/// at all, and the REST requests relayed to their board's owner. The rules that use them are
/// `Cluster`'s; this keeps their state and answers what is due. A value: tested alone in
/// `ClusterStateTests`.
struct ClusterState {
    /// Boards whose `release` has not been carried out yet: not claimed again before it is.
    private var releasing: Set<BoardID> = []
    /// Joining sessions waiting to claim their board again after a forward that never reached
    /// the owner (`Session.retry` says when).
    private var retrying: Set<ConnectionID> = []
    /// When each session that said `hello` and has no answer yet (no `welcome` here, nothing from
    /// the owner it was forwarded to) is closed anyway.
    private var joinDeadlines: [ConnectionID: Instant] = [:]
    /// REST requests relayed to their board's owner, waiting for its answer.
    private var forwards: [ExchangeID: HTTPForward] = [:]

    // MARK: Releases

    /// The board's release is asked for; false when it was already.
    mutating func release(_ board: BoardID) -> Bool { releasing.insert(board).inserted }

    /// The store carried out the board's release; false when none was out.
    mutating func released(_ board: BoardID) -> Bool { releasing.remove(board) != nil }

    /// True while the board's release is out.
    func isReleasing(_ board: BoardID) -> Bool { releasing.contains(board) }

    // MARK: Joins

    /// The session tries its board again when its retry is due.
    mutating func retry(_ id: ConnectionID) { retrying.insert(id) }

    /// The sessions waiting to try again, in connection order.
    var retries: [ConnectionID] { retrying.isEmpty ? [] : retrying.sorted() }

    /// The session no longer waits to try again.
    mutating func endRetry(_ id: ConnectionID) { retrying.remove(id) }

    /// The session said `hello`: without an answer by `deadline`, it is closed.
    mutating func awaitAnswer(_ id: ConnectionID, until deadline: Instant) { joinDeadlines[id] = deadline }

    /// The session got its answer (or is gone).
    mutating func answered(_ id: ConnectionID) { joinDeadlines[id] = nil }

    /// The sessions past their deadline at `now`, in connection order; they no longer wait.
    mutating func lateJoins(now: Instant) -> [ConnectionID] {
        guard !joinDeadlines.isEmpty else { return [] }
        let late = joinDeadlines.filter { now >= $0.value }.keys.sorted()
        for id in late { joinDeadlines[id] = nil }
        return late
    }

    // MARK: Relayed requests

    /// The REST requests relayed and not answered yet.
    var forwardCount: Int { forwards.count }

    /// The request is relayed to its board's owner.
    mutating func relay(_ exchange: ExchangeID, _ forward: HTTPForward) { forwards[exchange] = forward }

    /// The owner answered (or the client went away): the relay, if it was still out.
    mutating func relayEnded(_ exchange: ExchangeID) -> HTTPForward? { forwards.removeValue(forKey: exchange) }

    /// The relays past their deadline at `now`, in exchange order; they no longer wait.
    mutating func lateRelays(now: Instant) -> [(ExchangeID, HTTPForward)] {
        guard !forwards.isEmpty else { return [] }
        let late = forwards.filter { now >= $0.value.deadline }.sorted { $0.key.rawValue < $1.key.rawValue }
        for (exchange, _) in late { forwards[exchange] = nil }
        return late
    }
}
