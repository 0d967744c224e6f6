internal import BoardCore
internal import BoardStore

/// What happens when the store cannot write a board's ops, creation or deletion, and never will:
/// the rules, as decisions returned as values (`Action`s) that the hub carries out
/// (Hub+WriteFailures.swift routes `.writeFailed` here and applies them).
///
/// The writer retries a transient failure (a lock, the disk) until it succeeds; a permanent one
/// it reports as `.writeFailed`, one board at a time, after committing every other board of the
/// batch on its own. Nothing in a failed write was ever acknowledged: its ops were applied to the
/// room's head board but never published. The rule for that board:
///
/// - every op the room applied but has not published (the failed ones and any after them, which
///   were checked against them) is lost; each one's sender, if still on the board, gets
///   `error unavailable` naming the op;
/// - the board is dropped from memory and every connection on it is closed with 1011, so that
///   clients reconnect and resume from what the store has (a board the store cannot read is then
///   refused with `unavailable` and 1011 as usual);
/// - an HTTP answer waiting for one of the failed writes gets 503 `unavailable`; a board whose
///   creation failed is dropped the same way; a failed deletion leaves the board as stored.
///
/// Nothing is broadcast that is not durable: the dropped room's gated broadcasts go nowhere.
/// The writer keeps going, so a board it cannot write never stops the others.
///
/// In a cluster a write may also be *fenced*: this node's lease on the board is gone (another node
/// has it, or it ran out), so the store committed none of it. The board is dropped the same way,
/// but its connections are closed with **1012** (the board moved: reconnect), so that they resume
/// with `since` on whichever node owns it now (Hub+Cluster.swift drops a board for a lease lost at
/// a renewal by the same rule).
///
/// It keeps no state of its own: what it needs is passed in (the failure, what each failed ticket
/// left in `PendingWrites`, the board's room in memory, the people on it). Tested alone in
/// `WriteFailuresTests`.
enum WriteFailures {
    /// Why a board leaves memory with its clients closed.
    enum Drop: Equatable {
        /// The store cannot write it: 1011.
        case writeFailed
        /// In a cluster: this node's lease is gone (lost at a renewal, run out, or fenced): 1012.
        case moved
    }

    /// What the hub does, in order.
    enum Action: Equatable {
        /// A log line.
        case log(LogLevel, String)
        /// Answer this exchange `503 unavailable`: the write it waited for is lost.
        case unavailable(ExchangeID)
        /// The board leaves memory, and its people are told as `drop(_:because:…)` says.
        case drop(BoardID, Drop)
        /// Tell this connection that an op it sent is lost (`error unavailable` naming the op).
        case lost(ConnectionID, ProtocolError)
        /// Close this connection with `code` after what is queued for it.
        case close(ConnectionID, code: UInt16, reason: String)
    }

    /// What to do about `failure`. `tickets`: what each of its tickets left (`PendingWrites.failed`,
    /// in the failure's order); `room`: the board's room in memory now, if any.
    static func failed(_ failure: Hub.WriteFailure, tickets: [PendingWrites.Failed], room: Room?) -> [Action] {
        // The writer has logged the failure and its reason; these say what the hub does about it.
        let id = failure.board
        var actions: [Action] = []
        var boardIsLost = false
        for ticket in tickets {
            if let exchange = ticket.exchange {
                actions.append(.log(.warning, "\(exchange): a write of board \(id) could not be stored; answering 503"))
                actions.append(.unavailable(exchange))
            }
            // The room in memory serves a board the store does not have.
            if ticket.creationLost { boardIsLost = true }
        }
        guard let room else { return actions }
        for case .append(_, let ops) in failure.writes {
            if let first = ops.first, isUnpublished(first, in: room) { boardIsLost = true }
        }
        if failure.kind == .fenced {
            // Whichever room the writes were of, this node's lease is gone: another node may be
            // committing to the board already.
            actions.append(.log(.warning, "board \(id): this node's lease is gone (fenced write)"))
            actions.append(.drop(id, .moved))
        } else if boardIsLost {
            actions.append(.drop(id, .writeFailed))
        } else {
            actions.append(
                .log(.debug, "board \(id): the failed writes were an earlier room's; the board in memory stays"))
        }
        return actions
    }

    /// True when `op` is the room's own op at its seq, not yet published. An op of an earlier
    /// room of the same id (one already dropped for a failure, whose later writes fail too) is not.
    static func isUnpublished(_ op: CommittedOp, in room: Room) -> Bool {
        guard op.seq > room.visibleSeq, let held = room.sequencer.ops(after: op.seq - 1) else { return false }
        return held.first == op
    }

    /// What dropping board `id` does to its people: the senders of the room's unpublished ops
    /// still on it (`connection(of:)`) hear that each is lost, and every one of `members` is closed,
    /// with 1011 or 1012 as `why` says.
    static func drop(
        _ id: BoardID, because why: Drop, room: Room, members: [ConnectionID],
        connection: (UserID) -> ConnectionID?
    ) -> [Action] {
        let lost = room.sequencer.ops(after: room.visibleSeq).map(Array.init) ?? []
        let code: UInt16 = why == .moved ? 1012 : 1011
        var actions: [Action] = [
            .log(
                why == .moved ? .warning : .error,
                "dropping board \(id) from memory: \(lost.count) op(s) after seq \(room.visibleSeq) "
                    + (why == .moved ? "may not be stored (its lease is gone)" : "were not stored")
                    + "; closing its \(members.count) connection(s) with \(code)")
        ]
        let text =
            why == .moved
            ? "the board moved to another node before this op was stored; reconnect (with since) to see whether it was"
            : "this op could not be stored and was not applied; reconnect for the board as stored"
        for op in lost {
            guard let sender = connection(op.by) else { continue }
            actions.append(.lost(sender, ProtocolError(.unavailable, text, opID: op.opID.rawValue)))
        }
        let reason = why == .moved ? "board moved to another node; reconnect" : "board unavailable"
        for member in members { actions.append(.close(member, code: code, reason: reason)) }
        return actions
    }
}
