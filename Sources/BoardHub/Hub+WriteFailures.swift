package import BoardCore
package import BoardStore

/// What happens when the store cannot write a board's ops, creation or deletion, and never will.
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
/// with `since` on whichever node owns it now (Hub+Cluster.swift).
extension Hub {
    /// Writes to one board that the store refused, and why.
    package struct WriteFailure: Equatable, Sendable {
        /// The board written.
        package var board: BoardID
        /// The writes that were not stored, in order.
        package var writes: [StoreWrite]
        /// The tickets of those writes.
        package var tickets: [Ticket]
        /// The store's message, for the log (it names files: never sent to clients).
        package var reason: String
        /// `.permanent`, or `.fenced` when this node no longer holds the board's lease.
        package var kind: StoreError.Kind

        /// A failure.
        package init(
            board: BoardID, writes: [StoreWrite], tickets: [Ticket], reason: String,
            kind: StoreError.Kind = .permanent
        ) {
            self.board = board
            self.writes = writes
            self.tickets = tickets
            self.reason = reason
            self.kind = kind
        }
    }

    func writeFailed(_ failure: WriteFailure) {
        // The writer has logged the failure and its reason; this logs what the hub does about it.
        let id = failure.board
        var boardIsLost = false
        for ticket in failure.tickets {
            let failed = boards.pending.failed(ticket)
            if let exchange = failed.exchange {
                log(.warning, "\(exchange): a write of board \(id) could not be stored; answering 503")
                emit(.respond(exchange, storeFailed))
            }
            // The room in memory serves a board the store does not have.
            if failed.creationLost { boardIsLost = true }
        }
        if let host = boards[id] {
            for case .append(_, let ops) in failure.writes {
                if let first = ops.first, isUnpublished(first, in: host.room) { boardIsLost = true }
            }
        }
        if failure.kind == .fenced, boards[id] != nil {
            // Whichever room the writes were of, this node's lease is gone: another node may be
            // committing to the board already.
            log(.warning, "board \(id): this node's lease is gone (fenced write)")
            dropBoard(id, because: .moved)
        } else if boardIsLost {
            dropBoard(id, because: .writeFailed)
        } else if boards[id] != nil {
            log(.debug, "board \(id): the failed writes were an earlier room's; the board in memory stays")
        }
    }

    /// True when `op` is the room's own op at its seq, not yet published. An op of an earlier
    /// room of the same id (one already dropped for a failure, whose later writes fail too) is not.
    private func isUnpublished(_ op: CommittedOp, in room: Room) -> Bool {
        guard op.seq > room.visibleSeq, let held = room.sequencer.ops(after: op.seq - 1) else { return false }
        return held.first == op
    }

    /// Why a board leaves memory with its clients closed.
    enum Drop {
        /// The store cannot write it: 1011.
        case writeFailed
        /// In a cluster: this node's lease is gone (lost at a renewal, run out, or fenced): 1012.
        case moved
    }

    /// Tells the senders of the room's unpublished ops that they are lost, closes everyone on the
    /// board (1011 or 1012, as `why` says), and forgets the board; in a cluster, gives up its
    /// lease after the writes still queued for it.
    func dropBoard(_ id: BoardID, because why: Drop) {
        guard let host = boards.remove(id) else { return }
        let room = host.room
        let lost = room.sequencer.ops(after: room.visibleSeq).map(Array.init) ?? []
        let code: UInt16 = why == .moved ? 1012 : 1011
        log(
            why == .moved ? .warning : .error,
            "dropping board \(id) from memory: \(lost.count) op(s) after seq \(room.visibleSeq) "
                + (why == .moved ? "may not be stored (its lease is gone)" : "were not stored")
                + "; closing its \(host.members.count) connection(s) with \(code)")
        for op in lost {
            guard let connection = host.connection(of: op.by) else { continue }
            let text =
                why == .moved
                ? "the board moved to another node before this op was stored; reconnect (with since) to see "
                    + "whether it was"
                : "this op could not be stored and was not applied; reconnect for the board as stored"
            send(.error(ProtocolError(.unavailable, text, opID: op.opID.rawValue)), to: connection)
        }
        for connection in host.members {
            if why == .moved {
                closeSession(connection, code: 1012, reason: "board moved to another node; reconnect", flush: true)
            } else {
                closeSession(connection, code: 1011, reason: "board unavailable", flush: true)
            }
        }
        streams.end(of: host, deleted: false)
        restOps.fail(on: id, storeFailed)
        releaseLease(id)
    }
}
