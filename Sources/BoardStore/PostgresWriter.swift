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
    /// The boards of each batch sent whole (`send`) and not answered yet, oldest first.
    private var boardsSent: [[BoardID]] = []
    /// Outcomes of batches sent, read by a `write` or `restore` that had to wait for them, for
    /// `answers` to hand on.
    private var stashed: [StoreError?] = []

    init(
        db: PostgresConnection, node: String, snapshotEvery: Int, keepOps: Int,
        keepSnapshotBytes: Int = KeptBytes.snapshots, keepOpBytes: Int = KeptBytes.ops, pipelining: Bool = true
    ) {
        self.db = db
        self.node = node
        self.pipelining = pipelining
        log = BoardLog(
            rows: db, snapshotEvery: snapshotEvery, keepOps: keepOps, keepSnapshotBytes: keepSnapshotBytes,
            keepOpBytes: keepOpBytes)
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
        stashAnswers()
        // A retry after a COMMIT whose answer was lost: if that commit happened, the batch is stored.
        let uncertain = db.commitUncertain
        if pipelining, !uncertain, let expected = pipelinable(batch, epochs: epochs) {
            pipelinedBatches += 1
            try inTransaction(pipelined: true) { () throws(StoreError) in
                try sendFence(expected)
                try log.append(Self.appends(of: batch))
            }
            return
        }
        let boards = Self.boards(of: batch)
        try inTransaction { () throws(StoreError) in
            var seqs = try fence(boards, epochs: epochs)
            if uncertain, Self.isStored(batch, seqs: seqs) { return }
            // After lost answers, some of the batches sent may have committed: under this
            // node's epoch only this writer appends, so the ops already stored are its own.
            // The appends wait, checked, and go together after the rest (`log.append`: one
            // INSERT for every board), each board's changes still in order: a board's first op
            // comes in the batch that creates it, and at the first writes of many boards this
            // was one INSERT (and its parse and plan) per board.
            var appends: [(id: BoardID, ops: [CommittedOp])] = []
            for change in uncertain ? Self.unstored(batch, seqs: seqs) : batch {
                switch change {
                case .create(let board):
                    if let seq = seqs[board.id] {
                        throw fenced(board.id, "it exists already, at seq \(seq)")
                    }
                    // Known absent under its locked lease: the row goes without waiting for an answer.
                    try log.createAbsent(board)
                    seqs[board.id] = 0
                case .append(let id, let ops):
                    // Ops for a board that is gone (deleted earlier in the queue) are dropped, as in SQLite.
                    guard let first = ops.first, let last = ops.last, let stored = seqs[id] else { continue }
                    guard first.seq == stored + 1 else {
                        throw fenced(id, "the batch starts at seq \(first.seq) but the stored seq is \(stored)")
                    }
                    appends.append((id, ops))
                    seqs[id] = last.seq
                case .delete(let id):
                    try flush(&appends)
                    try log.delete(id)
                    try log.rows.deleteGrants(of: id)
                    seqs[id] = nil
                case .restore(let archive):
                    if let seq = seqs[archive.id] {
                        throw fenced(archive.id, "it exists already, at seq \(seq)")
                    }
                    try log.restore(archive, replace: false)
                    seqs[archive.id] = archive.seq
                }
            }
            try flush(&appends)
        }
        for id in boards { replicaEpochs[id] = epochs[id] }
    }

    /// Writes the appends waiting in `write`'s batch (before a deletion, which may be of their board).
    private func flush(_ appends: inout [(id: BoardID, ops: [CommittedOp])]) throws(StoreError) {
        guard !appends.isEmpty else { return }
        try log.append(appends)
        appends = []
    }

    /// Stores an archived board (import) under this node's lease at `epoch`, overwriting an
    /// existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool, epoch: Int64?) throws(StoreError) {
        stashAnswers()
        let epochs = epoch.map { [archive.id: $0] } ?? [:]
        try inTransaction { () throws(StoreError) in
            _ = try fence([archive.id], epochs: epochs)
            try log.restore(archive, replace: replace)
        }
        replicaEpochs[archive.id] = epoch
    }

    /// Rebuilds the search documents of the boards behind their log (every board's when `all`),
    /// 64 boards a transaction, each board's row locked while it is rebuilt; returns how many.
    func reindex(all: Bool) throws(StoreError) -> Int {
        stashAnswers()
        return try log.reindex(all: all) { body throws(StoreError) in try inTransaction(body) }
    }

    /// Drops the replica of a board (it left the server's memory); a later write reads it again.
    func forget(_ id: BoardID) {
        log.forget(id)
        replicaEpochs[id] = nil
    }

    /// How many boards the writer keeps a replica of.
    var replicaCount: Int { log.replicaCount }

    // MARK: Batches on their way

    /// Sends a batch of appends behind the batches on their way, as one transaction (BEGIN, the
    /// fence, the inserts, COMMIT) without waiting for its answer; false, sending nothing, for a
    /// batch that is not plain appends to boards this writer wrote under the same epochs, or
    /// whose compaction would read. Its fence names the boards of every batch on its way too,
    /// at the seqs they leave: should one of them not commit, neither does this one.
    func send(_ batch: [StoreWrite], epochs: [BoardID: Int64]) throws(StoreError) -> Bool {
        guard pipelining, !db.commitUncertain, stashed.allSatisfy({ $0 == nil }),
            var expected = pipelinable(batch, epochs: epochs)
        else { return false }
        var counts: [BoardID: [CommittedOp]] = [:]
        for case .append(let id, let ops) in batch { counts[id, default: []] += ops }
        guard !counts.contains(where: { log.appendMayRead($0.value, to: $0.key) }) else { return false }
        for id in Set(boardsSent.joined()) where counts[id] == nil {
            guard let epoch = epochs[id], replicaEpochs[id] == epoch, let replica = log.cachedReplica(of: id) else {
                return false
            }
            expected.append((id, Int(epoch), replica.seq))
        }
        expected.sort { $0.board.rawValue < $1.board.rawValue }
        do throws(StoreError) {
            try db.sendTransaction { () throws(StoreError) in
                try sendFence(expected)
                try log.append(Self.appends(of: batch))
            }
        } catch {
            forgetAll()
            throw error
        }
        pipelinedBatches += 1
        boardsSent.append(Array(counts.keys))
        return true
    }

    /// The outcomes of the batches sent and answered since the last call, oldest first (nil:
    /// committed); with `wait`, of every batch sent.
    func answers(wait: Bool) -> [StoreError?] {
        let outcomes = stashed + read(wait: wait)
        stashed = []
        return outcomes
    }

    /// Reads the answers of batches sent, keeping the replicas right: a failed batch may have
    /// left them ahead of the database.
    private func read(wait: Bool) -> [StoreError?] {
        let outcomes = db.readSent(wait: wait)
        boardsSent.removeFirst(min(outcomes.count, boardsSent.count))
        if db.sentCount == 0 { boardsSent = [] }
        if outcomes.contains(where: { $0 != nil }) { forgetAll() }
        return outcomes
    }

    /// Waits for every batch sent, keeping their outcomes for `answers`: a transaction on this
    /// connection comes after them.
    private func stashAnswers() {
        if db.sentCount > 0 { stashed += read(wait: true) }
    }

    /// Sends the fence of `expected` (boards in order), whose answer is read with the rest.
    private func sendFence(_ expected: [(board: BoardID, epoch: Int, seq: Seq)]) throws(StoreError) {
        try db.send(
            "SELECT shuffleboard_fence($1, $2, $3, $4)",
            [
                .textArray(expected.map(\.board.rawValue)), .text(node), .intArray(expected.map(\.epoch)),
                .intArray(expected.map(\.seq)),
            ])
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
            case .restore(let archive):
                guard seqs[archive.id] != nil else { return false }
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

    /// The batch without the ops already stored (`seqs`): each append keeps only its ops past
    /// its board's stored seq. Only after lost answers, when nobody but this writer can have
    /// stored them under this node's epoch.
    private static func unstored(_ batch: [StoreWrite], seqs: [BoardID: Seq]) -> [StoreWrite] {
        batch.compactMap { change in
            guard case .append(let id, let ops) = change, let stored = seqs[id] else { return change }
            let rest = ops.filter { $0.seq > stored }
            return rest.isEmpty ? nil : .append(id, rest)
        }
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
    /// The appends of a batch of appends, in order: one INSERT for all its boards' ops.
    private static func appends(of batch: [StoreWrite]) -> [(id: BoardID, ops: [CommittedOp])] {
        batch.compactMap { change in
            if case .append(let id, let ops) = change { (id, ops) } else { nil }
        }
    }

    private static func boards(of batch: [StoreWrite]) -> [BoardID] {
        var seen = Set<BoardID>()
        var boards: [BoardID] = []
        for change in batch {
            let id: BoardID =
                switch change {
                case .create(let board): board.id
                case .append(let id, _), .delete(let id): id
                case .restore(let archive): archive.id
                }
            if seen.insert(id).inserted { boards.append(id) }
        }
        return boards
    }
}
