internal import BoardCore
import Glibc

/// The write rules both stores share: creating, appending and deleting boards, a snapshot every
/// `snapshotEvery` ops (or sooner, when the ops since the last one are large), compaction that
/// keeps `keepOps` ops within `keepOpBytes` and never passes the latest snapshot, and the
/// snapshots between the base and the latest thinned to `keepSnapshotBytes` (so that the board
/// as of any kept seq is a snapshot plus the ops after it, as few as the bytes allow), so that
/// what a board takes on disk is bounded in bytes, however many ops it gets. It keeps a replica
/// of each board it wrote, so that it can write snapshots without reading boards back, until its
/// owner `forget`s it (the server does when the board leaves memory): its memory follows the
/// boards in the server's.
///
/// Runs inside a transaction its owner holds (`SQLiteWriter`, `PostgresWriter`), which must call
/// `forgetAll` when that transaction rolls back: the replicas may hold what was just undone.
final class BoardLog<Rows: BoardRows> {
    let rows: Rows
    /// A snapshot is written each time a board gains this many ops.
    let snapshotEvery: Int
    /// At least this many of a board's newest ops are kept, unless they are over `keepOpBytes`.
    let keepOps: Int
    /// The bytes of a board's snapshots kept, over all of them (0: no bound): past it, the
    /// snapshots between the base and the latest are thinned out, evenly (the base and the
    /// latest always stay, so a board keeps at least two).
    let keepSnapshotBytes: Int
    /// The bytes of a board's ops kept (0: no bound): past it, compaction drops the oldest. A
    /// snapshot is also written once the ops since the latest one take a quarter of it, so that
    /// compaction can always get the ops under it.
    let keepOpBytes: Int
    private var replicas: [BoardID: Replica] = [:]

    /// What an op costs beyond its fields (its id, user, name, seq, time and the row), counted
    /// against `keepOpBytes`.
    static var opOverhead: Int { 64 }

    init(
        rows: Rows, snapshotEvery: Int, keepOps: Int, keepSnapshotBytes: Int = KeptBytes.snapshots,
        keepOpBytes: Int = KeptBytes.ops
    ) {
        self.rows = rows
        self.snapshotEvery = max(snapshotEvery, 1)
        self.keepOps = max(keepOps, 0)
        self.keepSnapshotBytes = max(keepSnapshotBytes, 0)
        self.keepOpBytes = max(keepOpBytes, 0)
    }

    /// Applies one change.
    func apply(_ change: StoreWrite) throws(StoreError) {
        switch change {
        case .create(let board): try create(board)
        case .append(let id, let ops): try append(ops, to: id)
        case .delete(let id):
            try delete(id)
            try rows.deleteGrants(of: id)  // Not in `delete`: an import that replaces a board keeps them.
        case .restore(let archive):
            if try rows.boardSeq(of: archive.id) == nil { try restore(archive, replace: false) }
        }
    }

    /// Creates the board at seq 0; an existing board is kept as it is.
    func create(_ board: Board) throws(StoreError) {
        guard try rows.insertBoard(board, seq: 0, created: Self.now(), ignoringExisting: true) else { return }
        try started(board)
    }

    /// Creates a board its caller knows is not stored (a fenced writer read so, under the board's
    /// lease), without waiting to learn whether its row was inserted (`insertNewBoard`).
    func createAbsent(_ board: Board) throws(StoreError) {
        try rows.insertNewBoard(board, created: Self.now())
        try started(board)
    }

    /// The snapshot, search documents and replica of a board whose row was just inserted at seq 0.
    private func started(_ board: Board) throws(StoreError) {
        let json = board.encoded(stored: true)
        try rows.putSnapshot(json, of: board.id, at: 0)
        try rows.reindex(board, comments: [], seq: 0)
        replicas[board.id] = Replica(
            state: BoardState(board: board, seq: 0, latestSnapshot: 0, baseSeq: 0), snapshots: [(0, json.count)],
            ops: [])
    }

    /// Appends ops that continue the board's seq. Like `MemoryStore`, ops for a board that is gone
    /// (deleted earlier in the queue) are dropped.
    func append(_ ops: [CommittedOp], to id: BoardID) throws(StoreError) {
        guard !ops.isEmpty, let replica = try takeReplica(of: id) else { return }
        try checkFollows(ops, replica, id)
        // All rows and the new seq first (one statement where the database allows), then the
        // snapshots they call for: compaction only reads and deletes ops at or below the snapshot's seq.
        try rows.appendOps(ops, of: id)
        try follow(ops, on: replica, id: id)
    }

    /// Throws unless the ops continue the replica's seq.
    private func checkFollows(_ ops: [CommittedOp], _ replica: Replica, _ id: BoardID) throws(StoreError) {
        for (i, op) in ops.enumerated() where op.seq != replica.state.seq + i + 1 {
            throw StoreError(
                "\(rows.location): op seq \(op.seq) does not follow seq \(replica.state.seq + i) of board \(id)")
        }
    }

    /// What follows the op rows of one board in the same transaction: the comments table, the
    /// notices, the replica and the snapshots it calls for, the title and the search index.
    /// The replica comes in owned (taken out of `replicas`, `takeReplica`): it is changed in place,
    /// not copied (its op-size list holds up to `keepOps` entries), and put back at the end.
    private func follow(_ ops: [CommittedOp], on replica: consuming Replica, id: BoardID) throws(StoreError) {
        if ops.contains(where: \.op.isCommentOp) { try rows.writeComments(ops, of: id) }
        let title = replica.state.board.title
        for op in ops {
            try writeNotices(of: op, on: replica.state.board, id: id)
            replica.state.board.apply(op.op)
            replica.state.seq = op.seq
            replica.addOp(op.seq, bytes: Self.bytes(of: op))
            if snapshotDue(replica) { try snapshot(&replica, of: id) }
        }
        try keepTitle(of: replica, was: title, id: id)
        try rows.index(SearchChanges(ops), board: replica.state.board)
        replicas[id] = replica
    }

    /// Appends to several boards at once: the batch's appends merged per board (in order of
    /// first appearance; a board's ops stay in order), every row in as few statements as the
    /// rows allow (`appendOps(ofBoards:)`: one INSERT for all boards on PostgreSQL, instead of
    /// one per board), then each board's snapshots as `append` writes them. The same rules as
    /// `append` board by board: ops that do not continue a board's seq throw, a board that is gone
    /// is skipped.
    func append(_ changes: [(id: BoardID, ops: [CommittedOp])]) throws(StoreError) {
        var order: [BoardID] = []
        var merged: [BoardID: [CommittedOp]] = [:]
        for (id, ops) in changes where !ops.isEmpty {
            if merged[id] == nil { order.append(id) }
            merged[id, default: []] += ops
        }
        guard order.count > 1 else {
            if let id = order.first, let ops = merged[id] { try append(ops, to: id) }
            return
        }
        var appends: [(id: BoardID, ops: [CommittedOp], replica: Replica)] = []
        for id in order {
            guard let ops = merged[id], let replica = try takeReplica(of: id) else { continue }
            try checkFollows(ops, replica, id)
            appends.append((id, ops, replica))
        }
        try rows.appendOps(ofBoards: appends.map { ($0.id, $0.ops) })
        // Each replica moved out of the list (reversed, then taken from its end), so that it is
        // changed in place, not copied.
        appends.reverse()
        while case (let id, let ops, let replica)? = appends.popLast() { try follow(ops, on: replica, id: id) }
    }

    /// Stores the notices `op` makes on `board` (as it was before the op), in this transaction.
    private func writeNotices(of op: CommittedOp, on board: Board, id: BoardID) throws(StoreError) {
        guard Notice.mayNotify(op.op) else { return }
        for notice in Notice.made(by: op, on: board, id: id) { try rows.putNotice(notice) }
    }

    /// The board row's title follows a `retitle` or a `restore` (the board list reads it there,
    /// without a snapshot).
    private func keepTitle(of replica: Replica, was title: String, id: BoardID) throws(StoreError) {
        if replica.state.board.title != title { try rows.setTitle(replica.state.board.title, of: id) }
    }

    /// Removes the board, its snapshots, its log and its comments, and revokes its share links.
    func delete(_ id: BoardID) throws(StoreError) {
        try rows.deleteComments(of: id)
        try rows.deleteSearchDocs(of: id)
        try rows.deleteBoard(id)
        // After the board row: on PostgreSQL a link being added holds that row (FOR SHARE), so
        // the deletion waits for it and this statement, a fresh snapshot, sees the new link.
        try rows.revokeLinks(of: id)
        replicas[id] = nil
    }

    /// Stores an archived board at its seq, overwriting an existing one only when `replace`.
    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        if try rows.boardSeq(of: archive.id) != nil {
            guard replace else { throw StoreError("board \(archive.id) already exists (replace it to overwrite)") }
            try delete(archive.id)
        }
        _ = try rows.insertBoard(archive.board, seq: archive.seq, created: Self.now(), ignoringExisting: false)
        if archive.current.title != archive.board.title { try rows.setTitle(archive.current.title, of: archive.id) }
        try rows.putSnapshot(archive.board.encoded(stored: true), of: archive.id, at: archive.baseSeq)
        try rows.appendOps(archive.ops, of: archive.id)
        for c in archive.comments {
            try rows.putComment(c.comment, on: c.item, seq: c.comment.id.seq ?? 0, of: archive.id)
        }
        try rows.writeComments(archive.ops, of: archive.id)
        // A snapshot bounds the replay on load; compaction waits for the next one, so that an
        // import keeps every op of the archive.
        if archive.seq - archive.baseSeq >= snapshotEvery {
            try rows.putSnapshot(archive.current.encoded(stored: true), of: archive.id, at: archive.seq)
        }
        try rows.reindex(
            archive.current, comments: try rows.commentRows(of: archive.id, through: archive.seq), seq: archive.seq)
        // The next write reads the board back, with the sizes of what it keeps.
        replicas[archive.id] = nil
    }

    /// Rebuilds the search documents of the boards behind their log (every board's when `all`),
    /// 64 boards a transaction opened by `transaction` (the writer's, which forgets the replicas
    /// when one fails); returns how many.
    func reindex(
        all: Bool, in transaction: (() throws(StoreError) -> Void) throws(StoreError) -> Void
    ) throws(StoreError) -> Int {
        if all { try transaction { () throws(StoreError) in try rows.clearSearchIndex() } }
        var total = 0
        while true {
            var done = 0
            try transaction { () throws(StoreError) in done = try reindexBehind(limit: 64) }
            guard done > 0 else { return total }
            total += done
        }
    }

    /// Rebuilds the search documents of up to `limit` boards whose index is behind their log
    /// (`boardsBehindIndex`): each board as its snapshot and ops make it, with its comments.
    /// Returns how many it rebuilt; the caller repeats, one transaction each time, until none.
    private func reindexBehind(limit: Int) throws(StoreError) -> Int {
        let ids = try rows.boardsBehindIndex(limit: limit)
        for id in ids where try rows.lockBehindIndex(id) {
            guard let state = try rows.boardState(of: id) else { continue }
            try rows.reindex(state.board, comments: try rows.commentRows(of: id, through: state.seq), seq: state.seq)
        }
        return ids.count
    }

    /// Whether appending `ops` may read the database (a compaction, which reads a snapshot and
    /// ops), judged by its replica; true when there is none.
    func appendMayRead(_ ops: [CommittedOp], to id: BoardID) -> Bool {
        guard var replica = replicas[id] else { return true }
        for op in ops {
            replica.state.seq = op.seq
            replica.addOp(op.seq, bytes: Self.bytes(of: op))
            guard snapshotDue(replica) else { continue }
            let seq = replica.state.seq
            if seq - keepOps > replica.state.baseSeq || (keepOpBytes > 0 && replica.opBytes > keepOpBytes) {
                return true
            }
            replica.state.latestSnapshot = seq
            replica.opBytesSinceSnapshot = 0
        }
        return false
    }

    /// The replica of a board, if one is kept (without reading the database).
    func cachedReplica(of id: BoardID) -> BoardState? { replicas[id]?.state }

    /// Drops the replica of a board (it may have changed behind this writer's back).
    func forget(_ id: BoardID) { replicas[id] = nil }

    /// How many boards have a replica.
    var replicaCount: Int { replicas.count }

    /// Drops every replica (after a rollback).
    func forgetAll() { replicas = [:] }

    private func snapshotDue(_ replica: Replica) -> Bool {
        replica.state.seq - replica.state.latestSnapshot >= snapshotEvery
            || (keepOpBytes > 0 && replica.opBytesSinceSnapshot * 4 >= keepOpBytes)
    }

    /// Writes the board as the latest snapshot, then compacts: the base moves up to keep `keepOps`
    /// ops and at most `keepOpBytes` of them (never past the latest snapshot, so every dropped
    /// op is covered), and older ops and snapshots go. Then the snapshots between the base and
    /// the latest are thinned to `keepSnapshotBytes`: `board(_:at:)` starts from the nearest one.
    private func snapshot(_ replica: inout Replica, of id: BoardID) throws(StoreError) {
        let seq = replica.state.seq
        let json = replica.state.board.encoded(stored: true)
        try rows.putSnapshot(json, of: id, at: seq)
        replica.state.latestSnapshot = seq
        replica.opBytesSinceSnapshot = 0
        replica.setSnapshot(seq, bytes: json.count)

        var newBase = max(replica.state.baseSeq, seq - keepOps)
        if keepOpBytes > 0 {
            var bytes = replica.opBytes
            for op in replica.ops where bytes > keepOpBytes {
                bytes -= op.bytes
                newBase = max(newBase, op.seq)
            }
        }
        newBase = min(newBase, seq)
        if newBase > replica.state.baseSeq {
            try compact(&replica, of: id, to: newBase)
        }
        try thin(&replica, of: id)
    }

    /// Moves the base up to `newBase` (at most the latest snapshot): the board there is written
    /// as a snapshot (the nearest one before it with the ops up to it replayed, unless there is
    /// one at it already), and the older snapshots and the ops up to it go.
    private func compact(_ replica: inout Replica, of id: BoardID, to newBase: Seq) throws(StoreError) {
        if !replica.snapshots.contains(where: { $0.seq == newBase }) {
            guard let nearest = try rows.snapshot(of: id, atOrBefore: newBase) else {
                throw rows.damaged(id, "it has no base snapshot")
            }
            var base = nearest.board
            for op in try rows.committedOps(of: id, after: nearest.seq, through: newBase) { base.apply(op.op) }
            let json = base.encoded(stored: true)
            try rows.putSnapshot(json, of: id, at: newBase)
            replica.setSnapshot(newBase, bytes: json.count)
        }
        try rows.deleteSnapshots(of: id, below: newBase)
        try rows.deleteOps(of: id, through: newBase)
        replica.snapshots.removeAll { $0.seq < newBase }
        replica.dropOps(through: newBase)
        replica.state.baseSeq = newBase
    }

    /// Deletes inner snapshots (never the base or the latest) while the board's snapshots are over
    /// `keepSnapshotBytes`: each time the one whose neighbours are closest, so that those left
    /// stay about evenly spread and no replay from one is much longer than another's.
    private func thin(_ replica: inout Replica, of id: BoardID) throws(StoreError) {
        guard keepSnapshotBytes > 0 else { return }
        var total = replica.snapshots.reduce(0) { $0 + $1.bytes }
        while total > keepSnapshotBytes && replica.snapshots.count > 2 {
            var drop = 1
            var gap = Int.max
            for i in 1..<(replica.snapshots.count - 1) {
                let around = replica.snapshots[i + 1].seq - replica.snapshots[i - 1].seq
                if around < gap {
                    gap = around
                    drop = i
                }
            }
            try rows.deleteSnapshot(of: id, at: replica.snapshots[drop].seq)
            total -= replica.snapshots[drop].bytes
            replica.snapshots.remove(at: drop)
        }
    }

    /// The replica of a board, taken out of `replicas` (read from the database when none is
    /// kept): the caller changes it and puts it back. Taken, not copied, so that it is the only
    /// reference to its board and its arrays (up to `keepOps` sizes), which are then changed in
    /// place instead of copied whole at each batch; a batch that throws leaves none, and the
    /// next write reads the board again.
    private func takeReplica(of id: BoardID) throws(StoreError) -> Replica? {
        if let replica = replicas.removeValue(forKey: id) { return replica }
        guard let state = try rows.boardState(of: id) else { return nil }
        var replica = Replica(state: state, snapshots: try rows.snapshotSizes(of: id), ops: [])
        for op in try rows.opSizes(of: id) { replica.addOp(op.seq, bytes: op.bytes + Self.opOverhead) }
        replica.opBytesSinceSnapshot = replica.ops.reduce(0) { $0 + ($1.seq > state.latestSnapshot ? $1.bytes : 0) }
        return replica
    }

    /// What an op counts against `keepOpBytes`: its fields as stored, and `opOverhead`.
    static func bytes(of op: CommittedOp) -> Int { op.op.encodedFields().count + opOverhead }

    /// Wall-clock milliseconds since 1970, for `boards.created`.
    private static func now() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000
    }
}

/// How many bytes of its history a board keeps by default (`--keep-snapshot-bytes`,
/// `--keep-op-bytes`): with the WAL, a board of 2.5 MB then takes under 64 MB of disk however
/// many ops it gets (docs/operations.md).
package enum KeptBytes {
    /// The bytes of a board's snapshots: a board of 2.5 MB keeps six.
    package static let snapshots = 16 << 20
    /// The bytes of a board's ops.
    package static let ops = 16 << 20
}

/// What the writer keeps of a board it writes: the board and where its snapshots are, and the
/// sizes of its snapshots and ops, for the byte bounds.
struct Replica {
    var state: BoardState
    /// Every stored snapshot's seq and size in bytes, oldest (the base) first.
    var snapshots: [(seq: Seq, bytes: Int)]
    /// Every stored op's seq and what it counts in bytes, oldest first.
    var ops: [(seq: Seq, bytes: Int)]
    /// Their sum.
    var opBytes = 0
    /// The bytes of the ops after the latest snapshot.
    var opBytesSinceSnapshot = 0

    init(state: BoardState, snapshots: [(seq: Seq, bytes: Int)], ops: [(seq: Seq, bytes: Int)]) {
        self.state = state
        self.snapshots = snapshots
        self.ops = ops
    }

    mutating func addOp(_ seq: Seq, bytes: Int) {
        ops.append((seq, bytes))
        opBytes += bytes
        opBytesSinceSnapshot += bytes
    }

    /// Drops the ops with seq up to `seq`.
    mutating func dropOps(through seq: Seq) {
        let count = ops.prefix { $0.seq <= seq }.count
        opBytes -= ops[..<count].reduce(0) { $0 + $1.bytes }
        ops.removeFirst(count)
    }

    /// Records a snapshot written at `seq`, in seq order (replacing one at the same seq).
    mutating func setSnapshot(_ seq: Seq, bytes: Int) {
        snapshots.removeAll { $0.seq == seq }
        let index = snapshots.firstIndex { $0.seq > seq } ?? snapshots.endIndex
        snapshots.insert((seq, bytes), at: index)
    }
}
