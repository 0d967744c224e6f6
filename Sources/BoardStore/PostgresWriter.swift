internal import BoardCore

/// The writing half of `PostgresStore`: the writer connection, the board log rules on it, and the
/// fence every batch passes inside its own transaction.
///
/// Used only under `PostgresStore`'s writer mutex.
final class PostgresWriter {
    let db: PostgresConnection
    /// This node's name, which each written board's lease must name.
    let node: String
    private let log: BoardLog<PostgresConnection>
    /// The epoch under which each of `log`'s replicas was made. Under one epoch only this node
    /// writes the board; under another, another node may have written it in between, so the
    /// replica is read again.
    private var replicaEpochs: [BoardID: Int64] = [:]
    /// How many batches went to the server as one pipeline (tests check the fast path is taken).
    private(set) var pipelinedBatches = 0

    /// Whether batches may go as one pipeline (off only to measure the other way: the store bench).
    let pipelining: Bool

    init(db: PostgresConnection, node: String, snapshotEvery: Int, keepOps: Int, pipelining: Bool = true) {
        self.db = db
        self.node = node
        self.pipelining = pipelining
        log = BoardLog(rows: db, snapshotEvery: snapshotEvery, keepOps: keepOps)
    }

    /// Applies the batch in one transaction after fencing every board it writes: its lease is
    /// locked, and must be this node's, at `epochs[board]`, unexpired; a create needs the board
    /// absent and an append must continue the stored seq. Otherwise nothing commits and this
    /// throws `.fenced`.
    ///
    /// A batch of appends to boards this writer last wrote under the same epochs goes to the
    /// server as one pipeline — BEGIN, the fence, the inserts, COMMIT — and costs one round trip;
    /// any other batch (a create, a delete, the first write after a claim, a retry after a lost
    /// COMMIT) checks the fence first and goes on from what it read.
    func write(_ batch: [StoreWrite], epochs: [BoardID: Int64]) throws(StoreError) {
        // A retry after a COMMIT whose answer was lost: if that commit happened, the batch is stored.
        let uncertain = db.commitUncertain
        if pipelining, !uncertain, let expected = pipelinable(batch, epochs: epochs) {
            pipelinedBatches += 1
            try inTransaction(pipelined: true) { () throws(StoreError) in
                try db.send(
                    "SELECT shuffleboard_fence($1, $2, $3, $4)",
                    [
                        .textArray(expected.map(\.board.rawValue)), .text(node), .intArray(expected.map(\.epoch)),
                        .intArray(expected.map(\.seq)),
                    ])
                for change in batch {
                    if case .append(let id, let ops) = change { try log.append(ops, to: id) }
                }
            }
            return
        }
        let boards = Self.boards(of: batch)
        try inTransaction { () throws(StoreError) in
            var seqs = try fence(boards, epochs: epochs)
            if uncertain, Self.isStored(batch, seqs: seqs) { return }
            for change in batch {
                switch change {
                case .create(let board):
                    if let seq = seqs[board.id] {
                        throw fenced(board.id, "it exists already, at seq \(seq)")
                    }
                    try log.create(board)
                    seqs[board.id] = 0
                case .append(let id, let ops):
                    // Ops for a board that is gone (deleted earlier in the queue) are dropped, as in SQLite.
                    guard let first = ops.first, let last = ops.last, let stored = seqs[id] else { continue }
                    guard first.seq == stored + 1 else {
                        throw fenced(id, "the batch starts at seq \(first.seq) but the stored seq is \(stored)")
                    }
                    try log.append(ops, to: id)
                    seqs[id] = last.seq
                case .delete(let id):
                    try log.delete(id)
                    seqs[id] = nil
                }
            }
        }
        for id in boards { replicaEpochs[id] = epochs[id] }
    }

    /// Stores an archived board (import) under this node's lease at `epoch`, overwriting an
    /// existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool, epoch: Int64?) throws(StoreError) {
        let epochs = epoch.map { [archive.id: $0] } ?? [:]
        try inTransaction { () throws(StoreError) in
            _ = try fence([archive.id], epochs: epochs)
            try log.restore(archive, replace: replace)
        }
        replicaEpochs[archive.id] = epoch
    }

    /// Closes the connection.
    func close() {
        forgetAll()
        db.close()
    }

    // MARK: The fence

    /// For a batch of appends only, each to a board whose replica this writer made under the
    /// batch's epoch and which the appends continue: each board (sorted, as the fence locks them)
    /// with that epoch and the seq the database must hold. Nil for any other batch.
    ///
    /// The replica's seq is the stored one: under one epoch only this writer writes the board,
    /// and a failed transaction drops every replica. The fence checks that in the database all
    /// the same.
    private func pipelinable(
        _ batch: [StoreWrite], epochs: [BoardID: Int64]
    ) -> [(board: BoardID, epoch: Int, seq: Seq)]? {
        var expected: [BoardID: (epoch: Int, stored: Seq, last: Seq)] = [:]
        for change in batch {
            guard case .append(let id, let ops) = change, let first = ops.first, let last = ops.last else { return nil }
            if let seen = expected[id] {
                guard first.seq == seen.last + 1 else { return nil }
                expected[id]?.last = last.seq
                continue
            }
            guard let epoch = epochs[id], replicaEpochs[id] == epoch, let replica = log.cachedReplica(of: id),
                first.seq == replica.seq + 1
            else { return nil }
            expected[id] = (Int(epoch), replica.seq, last.seq)
        }
        guard !expected.isEmpty else { return nil }
        return expected.sorted { $0.key.rawValue < $1.key.rawValue }.map { ($0.key, $0.value.epoch, $0.value.stored) }
    }

    /// Locks the boards' lease rows (in board order, as `renew` does, so that the two never
    /// deadlock), checks each is this node's at the claimed epoch and unexpired by the database's
    /// clock, and returns the stored seq of each board that exists. Drops replicas the lease
    /// says may be stale.
    private func fence(_ boards: [BoardID], epochs: [BoardID: Int64]) throws(StoreError) -> [BoardID: Seq] {
        for id in boards where epochs[id] == nil { throw fenced(id, "this node has not claimed it") }
        struct Lease {
            var node: String
            var epoch: Int64
            var live: Bool
        }
        var leases: [BoardID: Lease] = [:]
        var seqs: [BoardID: Seq] = [:]
        try db.query(
            "SELECT l.board, l.node, l.epoch, l.expires_at > now(), b.seq FROM leases l "
                + "LEFT JOIN boards b ON b.id = l.board WHERE l.board = ANY($1) ORDER BY l.board FOR UPDATE OF l",
            [.textArray(boards.map(\.rawValue))]
        ) { row in
            guard let id = BoardID(row.text(0)) else { return }
            leases[id] = Lease(node: row.text(1), epoch: Int64(row.int(2)), live: row.bool(3))
            if !row.isNull(4) { seqs[id] = row.int(4) }
        }
        for id in boards {
            guard let lease = leases[id] else { throw fenced(id, "nobody holds its lease") }
            guard lease.node == node else { throw fenced(id, "node \(lease.node) holds its lease") }
            guard lease.epoch == epochs[id] else {
                throw fenced(id, "its lease is at epoch \(lease.epoch), not \(epochs[id] ?? 0)")
            }
            guard lease.live else { throw fenced(id, "its lease ran out") }
            if replicaEpochs[id] != lease.epoch || log.cachedReplica(of: id)?.seq != seqs[id] {
                log.forget(id)
                replicaEpochs[id] = nil
            }
        }
        return seqs
    }

    private func fenced(_ id: BoardID, _ reason: String) -> StoreError {
        StoreError("\(db.location): board \(id) is fenced (\(reason)); nothing of it was stored", kind: .fenced)
    }

    /// Whether a batch already committed, judged by the stored seqs: every append's ops and every
    /// created board are there. Only asked after a COMMIT whose answer was lost, when under this
    /// node's epoch nobody but this writer can have stored them.
    private static func isStored(_ batch: [StoreWrite], seqs: [BoardID: Seq]) -> Bool {
        var wrote = false
        for change in batch {
            switch change {
            case .create(let board):
                guard seqs[board.id] != nil else { return false }
            case .append(let id, let ops):
                guard let last = ops.last else { continue }
                guard let stored = seqs[id], stored >= last.seq else { return false }
            case .delete:
                // A deletion cannot be told from a board never created; apply the batch again.
                return false
            }
            wrote = true
        }
        return wrote
    }

    // MARK: Transactions

    private func inTransaction(pipelined: Bool = false, _ body: () throws(StoreError) -> Void) throws(StoreError) {
        do throws(StoreError) {
            try db.transaction(pipelined: pipelined, body)
        } catch {
            // The replicas may hold changes that were just rolled back.
            forgetAll()
            throw error
        }
    }

    private func forgetAll() {
        log.forgetAll()
        replicaEpochs = [:]
    }

    /// The boards a batch writes, in order of first appearance.
    private static func boards(of batch: [StoreWrite]) -> [BoardID] {
        var seen = Set<BoardID>()
        var boards: [BoardID] = []
        for change in batch {
            let id: BoardID =
                switch change {
                case .create(let board): board.id
                case .append(let id, _), .delete(let id): id
                }
            if seen.insert(id).inserted { boards.append(id) }
        }
        return boards
    }
}
