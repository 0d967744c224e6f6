/// An op as a client submits it: what to do, against which seq, under which op id.
public struct OpRequest: Equatable, Sendable {
    /// The client-chosen op id.
    public var opID: OpID
    /// The last seq the client had applied.
    public var base: Seq
    /// The change.
    public var op: Op

    /// A request.
    public init(opID: OpID, base: Seq, op: Op) {
        self.opID = opID
        self.base = base
        self.op = op
    }
}

/// Orders ops on one board: checks them against the conflict rules, numbers and applies them.
///
/// It keeps the last `historyLimit` committed ops (to check conflicts against stale bases and to
/// serve `since` resumes) and the op ids of those ops (to answer resends with `ack`).
public struct Sequencer: Sendable {
    /// The board with every committed op applied.
    public private(set) var board: Board
    /// The seq of the last committed op (0 before any).
    public private(set) var seq: Seq
    /// How many committed ops are kept.
    public let historyLimit: Int

    private var history: [CommittedOp] = []
    private var historyStart = 0
    private var opSeqs: [OpID: Seq] = [:]
    /// For each item, the last op that involved it: the conflict rule in O(1) per item.
    private var lastTouch: [ItemID: (seq: Seq, by: UserID)] = [:]

    /// What became of a submitted op.
    public enum Outcome: Equatable, Sendable {
        /// Committed with the next seq.
        case committed(CommittedOp)
        /// The op id was committed before, with this seq.
        case duplicate(Seq)
        /// Refused.
        case rejected(Rejection)
    }

    /// A sequencer for `board` at `seq`, optionally seeded with the most recent committed ops.
    public init(board: Board, seq: Seq = 0, recent: [CommittedOp] = [], historyLimit: Int = 1000) {
        precondition(historyLimit >= 1, "history must keep at least one op")
        self.board = board
        self.seq = seq
        self.historyLimit = historyLimit
        for op in recent.suffix(historyLimit) where op.seq <= seq { remember(op) }
    }

    /// The oldest seq still in the history, or `seq + 1` when it is empty.
    public var oldestHeldSeq: Seq { history.count > historyStart ? history[historyStart].seq : seq + 1 }

    /// The committed ops with seq greater than `since`, or nil when some were already forgotten.
    public func ops(after since: Seq) -> ArraySlice<CommittedOp>? {
        guard since <= seq, since >= oldestHeldSeq - 1 else { return nil }
        let start = historyStart + (since - (oldestHeldSeq - 1))
        return history[start...]
    }

    /// The seq under which `opID` was committed, if it is still remembered.
    public func committedSeq(of opID: OpID) -> Seq? { opSeqs[opID] }

    /// Checks `request` against the conflict rules in their documented order and commits it if it passes.
    ///
    /// `holder` says which user's drag holds an item, if any.
    package mutating func submit(
        _ request: OpRequest, by user: UserID, time: UnixTime, holder: (ItemID) -> UserID?
    ) -> Outcome {
        if let earlier = opSeqs[request.opID] { return .duplicate(earlier) }
        let reject = { (reason: RejectReason, by: UserID?) in
            Outcome.rejected(Rejection(reason, by: by, opID: request.opID))
        }
        let op = request.op
        // Unknown ids.
        for item in op.involvedItems where board.item(item) == nil { return reject(.unknownItem, nil) }
        if case .move(_, let zone, _) = op, !board.hasZone(zone) { return reject(.unknownZone, nil) }
        // Base.
        if request.base > seq { return reject(.badBase, nil) }
        if request.base < oldestHeldSeq - 1 { return reject(.stale, nil) }
        // Holds by other users.
        for item in op.involvedItems {
            if let h = holder(item), h != user { return reject(.held, h) }
        }
        // Anything committed after base that touched the same items.
        for item in op.involvedItems {
            if let touch = lastTouch[item], touch.seq > request.base { return reject(.conflict, touch.by) }
        }
        // Meaningless on the current board.
        switch op {
        case .swap(let a, let b):
            if a == b { return reject(.invalid, nil) }
        case .move(let item, let zone, let before):
            if let before {
                if before == item { return reject(.invalid, nil) }
                if board.zone(zone)?.items.contains(before) != true { return reject(.invalid, nil) }
            }
        case .toggle:
            break
        }
        seq += 1
        let committed = CommittedOp(seq: seq, opID: request.opID, by: user, op: op, time: time)
        board.apply(op)
        remember(committed)
        return .committed(committed)
    }

    private mutating func remember(_ op: CommittedOp) {
        history.append(op)
        opSeqs[op.opID] = op.seq
        for item in op.op.involvedItems { lastTouch[item] = (op.seq, op.by) }
        if history.count - historyStart > historyLimit {
            opSeqs[history[historyStart].opID] = nil
            historyStart += 1
            // Compact in chunks so trimming stays amortised O(1).
            if historyStart >= historyLimit {
                history.removeFirst(historyStart)
                historyStart = 0
            }
        }
    }
}
