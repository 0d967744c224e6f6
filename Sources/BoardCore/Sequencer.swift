package import Basics

/// An op as a client submits it: what to do, against which seq, under which op id.
package struct OpRequest: Equatable, Sendable {
    /// The client-chosen op id.
    package var opID: OpID
    /// The last seq the client had applied.
    package var base: Seq
    /// The change.
    package var op: Op

    /// A request.
    package init(opID: OpID, base: Seq, op: Op) {
        self.opID = opID
        self.base = base
        self.op = op
    }
}

/// Orders ops on one board: checks them against the conflict rules, numbers and applies them.
///
/// It keeps the last `historyLimit` committed ops (to check conflicts against stale bases and to
/// serve `since` resumes) and the op ids of those ops (to answer resends with `ack`).
package struct Sequencer: Sendable {
    /// The board with every committed op applied.
    package private(set) var board: Board
    /// The seq of the last committed op (0 before any).
    package private(set) var seq: Seq
    /// How many committed ops are kept.
    package let historyLimit: Int

    private var history = FIFO<CommittedOp>()
    private var opSeqs: [OpID: Seq] = [:]
    /// For each item, the last op that involved it: the conflict rule in O(1) per item.
    private var lastTouch: [ItemID: (seq: Seq, by: UserID)] = [:]

    /// What became of a submitted op.
    package enum Outcome: Equatable, Sendable {
        /// Committed with the next seq.
        case committed(CommittedOp)
        /// The op id was committed before, with this seq.
        case duplicate(Seq)
        /// Refused.
        case rejected(Rejection)
    }

    /// A sequencer for `board` at `seq`, optionally seeded with the most recent committed ops.
    package init(board: Board, seq: Seq = 0, recent: [CommittedOp] = [], historyLimit: Int = 1000) {
        precondition(historyLimit >= 1, "history must keep at least one op")
        self.board = board
        self.seq = seq
        self.historyLimit = historyLimit
        for op in recent.suffix(historyLimit) where op.seq <= seq { remember(op) }
    }

    /// The oldest seq still in the history, or `seq + 1` when it is empty.
    package var oldestHeldSeq: Seq { history.first?.seq ?? seq + 1 }

    /// The committed ops with seq greater than `since`, or nil when some were already forgotten.
    package func ops(after since: Seq) -> FIFO<CommittedOp>.SubSequence? {
        guard since <= seq, since >= oldestHeldSeq - 1 else { return nil }
        return history[(since - (oldestHeldSeq - 1))...]
    }

    /// The seq under which `opID` was committed, if it is still remembered.
    package func committedSeq(of opID: OpID) -> Seq? { opSeqs[opID] }

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
        // Unknown ids now; an op that is meaningless on the current board only after the base,
        // hold and conflict rules, in the documented order.
        let problem = board.problem(applying: op)
        if let problem, problem.reason != .invalid { return reject(problem.reason, nil) }
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
        if let problem { return reject(problem.reason, nil) }
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
        if history.count > historyLimit, let forgotten = history.popFirst() { opSeqs[forgotten.opID] = nil }
    }
}
