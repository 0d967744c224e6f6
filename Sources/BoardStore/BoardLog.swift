internal import BoardCore
import Glibc

/// The write rules both stores share: creating, appending and deleting boards, a snapshot every
/// `snapshotEvery` ops (each kept until compaction passes it, so that the board as of any kept
/// seq is a snapshot plus fewer than `snapshotEvery` ops), and compaction that keeps at least
/// `keepOps` ops and never passes the latest snapshot. It keeps a replica of every board it wrote, so that it can write snapshots
/// without reading boards back.
///
/// Runs inside a transaction its owner holds (`SQLiteWriter`, `PostgresWriter`), which must call
/// `forgetAll` when that transaction rolls back: the replicas may hold what was just undone.
final class BoardLog<Rows: BoardRows> {
    let rows: Rows
    /// A snapshot is written each time a board gains this many ops.
    let snapshotEvery: Int
    /// At least this many of a board's newest ops are kept.
    let keepOps: Int
    private var replicas: [BoardID: BoardState] = [:]

    init(rows: Rows, snapshotEvery: Int, keepOps: Int) {
        self.rows = rows
        self.snapshotEvery = max(snapshotEvery, 1)
        self.keepOps = max(keepOps, 0)
    }

    /// Applies one change.
    func apply(_ change: StoreWrite) throws(StoreError) {
        switch change {
        case .create(let board): try create(board)
        case .append(let id, let ops): try append(ops, to: id)
        case .delete(let id): try delete(id)
        }
    }

    /// Creates the board at seq 0; an existing board is kept as it is.
    func create(_ board: Board) throws(StoreError) {
        guard try rows.insertBoard(board, seq: 0, created: Self.now(), ignoringExisting: true) else { return }
        try rows.putSnapshot(board.encoded(), of: board.id, at: 0)
        replicas[board.id] = BoardState(board: board, seq: 0, latestSnapshot: 0, baseSeq: 0)
    }

    /// Appends ops that continue the board's seq. Like `MemoryStore`, ops for a board that is gone
    /// (deleted earlier in the queue) are dropped.
    func append(_ ops: [CommittedOp], to id: BoardID) throws(StoreError) {
        guard var state = try replica(of: id), !ops.isEmpty else { return }
        for (i, op) in ops.enumerated() where op.seq != state.seq + i + 1 {
            throw StoreError(
                "\(rows.location): op seq \(op.seq) does not follow seq \(state.seq + i) of board \(id)")
        }
        // All rows and the new seq first (one statement where the database allows), then the
        // snapshots they call for: compaction only reads and deletes ops at or below the snapshot's seq.
        try rows.appendOps(ops, of: id)
        for op in ops {
            state.board.apply(op.op)
            state.seq = op.seq
            if state.seq - state.latestSnapshot >= snapshotEvery { try snapshot(&state, of: id) }
        }
        replicas[id] = state
    }

    /// Removes the board, its snapshots and its log.
    func delete(_ id: BoardID) throws(StoreError) {
        try rows.deleteBoard(id)
        replicas[id] = nil
    }

    /// Stores an archived board at its seq, overwriting an existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        if try rows.boardSeq(of: archive.id) != nil {
            guard replace else { throw StoreError("board \(archive.id) already exists (replace it to overwrite)") }
            try delete(archive.id)
        }
        _ = try rows.insertBoard(archive.board, seq: archive.seq, created: Self.now(), ignoringExisting: false)
        try rows.putSnapshot(archive.board.encoded(), of: archive.id, at: archive.baseSeq)
        try rows.appendOps(archive.ops, of: archive.id)
        var state = BoardState(
            board: archive.current, seq: archive.seq, latestSnapshot: archive.baseSeq, baseSeq: archive.baseSeq)
        // A snapshot bounds the replay on load; compaction waits for the next one, so that an
        // import keeps every op of the archive.
        if state.seq - state.latestSnapshot >= snapshotEvery {
            try snapshot(&state, of: archive.id, compact: false)
        }
        replicas[archive.id] = state
    }

    /// Whether appending `count` ops to the board may read the database (a compaction, which
    /// reads a snapshot and ops), judged by its replica; true when there is none.
    func appendMayRead(_ count: Int, to id: BoardID) -> Bool {
        guard let state = replicas[id] else { return true }
        let seq = state.seq + count
        return seq - state.latestSnapshot >= snapshotEvery && seq - keepOps > state.baseSeq
    }

    /// The replica of a board, if one is kept (without reading the database).
    func cachedReplica(of id: BoardID) -> BoardState? { replicas[id] }

    /// Drops the replica of a board (it may have changed behind this writer's back).
    func forget(_ id: BoardID) { replicas[id] = nil }

    /// Drops every replica (after a rollback).
    func forgetAll() { replicas = [:] }

    /// Writes the board as the latest snapshot, then compacts: the base moves up to keep `keepOps`
    /// ops (never past the latest snapshot, so every dropped op is covered), and older ops and
    /// snapshots go. The snapshots between the base and the latest stay: `board(_:at:)` starts
    /// from the nearest one.
    private func snapshot(_ state: inout BoardState, of id: BoardID, compact: Bool = true) throws(StoreError) {
        try rows.putSnapshot(state.board.encoded(), of: id, at: state.seq)
        state.latestSnapshot = state.seq

        let newBase = max(state.baseSeq, state.seq - keepOps)
        guard compact, newBase > state.baseSeq else { return }
        if newBase < state.seq {
            // The board at the new base: the nearest snapshot before it with the ops up to it
            // replayed (none when a snapshot is there already).
            guard let nearest = try rows.snapshot(of: id, atOrBefore: newBase) else {
                throw rows.damaged(id, "it has no base snapshot")
            }
            if nearest.seq < newBase {
                var base = nearest.board
                for op in try rows.committedOps(of: id, after: nearest.seq, through: newBase) { base.apply(op.op) }
                try rows.putSnapshot(base.encoded(), of: id, at: newBase)
            }
        }
        try rows.deleteSnapshots(of: id, below: newBase)
        try rows.deleteOps(of: id, through: newBase)
        state.baseSeq = newBase
    }

    private func replica(of id: BoardID) throws(StoreError) -> BoardState? {
        if let state = replicas[id] { return state }
        let state = try rows.boardState(of: id)
        replicas[id] = state
        return state
    }

    /// Wall-clock milliseconds since 1970, for `boards.created`.
    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}
