internal import BoardCore
internal import BoardStore

/// What the hub knows of the store's notices (Hub+Inbox.swift): the greatest id its clients were
/// told of (or that was stored before it started), whether a read of newer ones is out, and
/// which boards have an op that may make a notice and is not durable yet.
///
/// The store numbers notices in commit order, so reading "after the greatest id seen" misses
/// none. On one server a read follows each durable op that may notify; in a cluster every node
/// also reads each `pollEvery`, because another node's ops make notices for members on this one
/// (the same way the revocation list reaches every node). Confined to the service thread.
struct InboxFeed {
    /// In a cluster, how often a node reads the notices other nodes made (ms).
    static let pollEvery = Instant.Span(milliseconds: 1000)
    /// The most notices one read brings; more are read at once after.
    static let readLimit = 256

    enum Phase: Equatable {
        /// The greatest id stored is not known yet (the first read asks for it).
        case starting
        /// Every notice up to `seen` was handled.
        case idle(seen: Int64)
        /// A read of the notices after `seen` (nil: of the greatest id) is out; `again`: something
        /// may have been stored since it was asked, so read again when it comes.
        case reading(seen: Int64?, again: Bool)
    }

    private(set) var phase = Phase.starting
    /// Where the hub begins (ms since 1970): the notices made before are old; those made since
    /// are told. The earlier of its first read and the first op that may notify it committed
    /// (whose durability may be what starts that read).
    private(set) var started: Int64?
    /// When the last read was asked.
    private(set) var lastRead: Instant?
    /// Per board, the newest op that may make a notice and is not durable yet (one entry a board;
    /// a board whose write failed may stay, so past `awaitingLimit` boards all are read for).
    private var awaiting: [BoardID: Seq] = [:]
    /// The most boards `awaiting` holds.
    static let awaitingLimit = 4096
    /// Set when `awaiting` overflowed: the next durable write is read for.
    private var overflowed = false

    /// `op` of `board` was committed and is on its way to the store.
    mutating func persisting(_ op: CommittedOp, on board: BoardID) {
        guard Notice.mayNotify(op.op) else { return }
        if phase == .starting { started = min(started ?? op.time.milliseconds, op.time.milliseconds) }
        if awaiting[board] == nil && awaiting.count >= Self.awaitingLimit {
            awaiting.removeAll()
            overflowed = true
        }
        awaiting[board] = max(awaiting[board] ?? 0, op.seq)
    }

    /// The store made these boards durable up to these seqs: true when one of them had an op
    /// that may have made a notice.
    mutating func durable(_ seqs: [BoardID: Seq]) -> Bool {
        var due = overflowed
        overflowed = false
        for (board, seq) in seqs {
            guard let waiting = awaiting[board], waiting <= seq else { continue }
            awaiting[board] = nil
            due = true
        }
        return due
    }

    /// Whether to ask for new notices now: `due` when something was stored; otherwise only to
    /// start, or in a cluster each `pollEvery`. Returns the read's `after` (nil: the greatest id).
    mutating func shouldRead(due: Bool, clustered: Bool, now: Instant, wall: UnixTime) -> Int64?? {
        switch phase {
        case .reading(let seen, let again):
            if due && !again { phase = .reading(seen: seen, again: true) }
            return nil
        case .starting:
            break
        case .idle(let seen):
            let polled = clustered && lastRead.map { now >= $0 + Self.pollEvery } ?? true
            guard due || polled else { return nil }
            phase = .reading(seen: seen, again: false)
            lastRead = now
            return .some(seen)
        }
        phase = .reading(seen: nil, again: false)
        lastRead = now
        started = min(started ?? wall.milliseconds, wall.milliseconds)
        return .some(nil)
    }

    /// The read came back: the notices to tell (none for the first read, which is always read
    /// after at once), and whether to read again at once (more were there than one read brings,
    /// or something was stored meanwhile).
    mutating func answered(_ feed: NoticeFeed) -> (tell: [Notice], again: Bool) {
        guard case .reading(let seen, let again) = phase else { return ([], false) }
        guard let seen else {
            // The greatest id made before the start: what came after is read at once.
            phase = .idle(seen: feed.latest)
            return ([], true)
        }
        let fresh = feed.notices.filter { $0.id > seen }
        phase = .idle(seen: max(seen, fresh.last?.id ?? seen))
        return (fresh, again || feed.notices.count >= Self.readLimit)
    }

    /// The read failed: try again at the next occasion (a later op, or the next poll).
    mutating func failed() {
        guard case .reading(let seen, _) = phase else { return }
        phase = seen.map { .idle(seen: $0) } ?? .starting
    }
}
