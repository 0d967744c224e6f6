package import BoardCore
package import BoardStore

/// Write failures, routed: `.writeFailed` goes to `WriteFailures` (WriteFailures.swift, where the
/// rules are: which ops are lost and whom to tell, which board is dropped with which close code,
/// which exchanges get 503), and the hub carries out its decisions on the parts that own what
/// they touch (the board directory, the sessions, the event streams, the REST ops, the lease).
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

    /// The store cannot write `failure`'s writes: what each ticket was waiting for is over, and
    /// `WriteFailures` says what follows.
    func writeFailed(_ failure: WriteFailure) {
        let tickets = failure.tickets.map { boards.pending.failed($0) }
        apply(WriteFailures.failed(failure, tickets: tickets, room: boards[failure.board]?.room))
    }

    /// Drops the board from memory (`WriteFailures.drop` says what that does to its people), ends
    /// its event streams, fails its REST ops with 503 and, in a cluster, gives up its lease after
    /// the writes still queued for it.
    func dropBoard(_ id: BoardID, because why: WriteFailures.Drop) {
        guard let host = boards.remove(id) else { return }
        apply(
            WriteFailures.drop(
                id, because: why, room: host.room, members: host.members, connection: host.connection(of:)))
        streams.end(of: host, deleted: false)
        restOps.fail(on: host, storeFailed)
        releaseLease(id)
    }

    /// Carries out what `WriteFailures` decided, in order.
    private func apply(_ actions: [WriteFailures.Action]) {
        for action in actions {
            switch action {
            case .log(let level, let line): log(level, line)
            case .unavailable(let exchange): emit(.respond(exchange, storeFailed))
            case .drop(let board, let why): dropBoard(board, because: why)
            case .lost(let connection, let error): send(.error(error), to: connection)
            case .close(let connection, let code, let reason):
                closeSession(connection, code: code, reason: reason, flush: true)
            }
        }
    }
}
