internal import BoardCore

/// A board as the database holds it: the board at `seq`, and where its snapshots are.
struct BoardState {
    /// The board with every stored op applied.
    var board: Board
    /// The seq of the last stored op.
    var seq: Seq
    /// The seq of the newest snapshot (where replay starts).
    var latestSnapshot: Seq
    /// The seq of the oldest snapshot; the stored ops are exactly those after it.
    var baseSeq: Seq
}

/// Which of a board's snapshots to read.
enum SnapshotChoice {
    case base
    case latest
}

/// An op as a row of the `ops` table.
struct OpRow {
    var seq: Seq
    var opID: String
    var user: String
    var type: String
    /// The op's own members as a JSON object.
    var fields: [UInt8]
    /// Milliseconds since 1970.
    var time: Int64
    /// The sender's name, or empty when not known (ops stored before names were).
    var name: String
}

/// A row of the `boards` table, for the board list.
struct SummaryRow {
    var id: String
    var title: String
    var seq: Seq
    /// The template's name, or empty when not known.
    var template: String
}

/// The rows of a board log database: what SQLite and PostgreSQL each say in their own SQL.
///
/// Every call runs inside a transaction its caller holds. The rules built on these rows — replay
/// from the latest snapshot, when a page is `.gone`, snapshots and compaction — exist once, in the
/// extension below (reads) and in `BoardLog` (writes), so that both stores keep them alike.
protocol BoardRows: CommentRows, InboxRows, SearchRows, GrantRows {
    /// The database, for messages: a file path, or a URL without its password.
    var location: String { get }
    /// The seq of a board, or nil when there is no such board.
    func boardSeq(of id: BoardID) throws(StoreError) -> Seq?
    /// The seq of the board's oldest snapshot, or nil when it has none.
    func baseSeq(of id: BoardID) throws(StoreError) -> Seq?
    /// The base or latest snapshot's seq and JSON text.
    func snapshotRow(of id: BoardID, _ choice: SnapshotChoice) throws(StoreError) -> (seq: Seq, json: [UInt8])?
    /// The newest snapshot at or before `seq`: its seq and JSON text.
    func snapshotRow(of id: BoardID, atOrBefore seq: Seq) throws(StoreError) -> (seq: Seq, json: [UInt8])?
    /// Op rows with `since < seq <= through`, oldest first, at most `limit` (all when nil).
    func opRows(of id: BoardID, after since: Seq, through: Seq, limit: Int?) throws(StoreError) -> [OpRow]
    /// The newest `limit` op rows with seq less than `before`, newest first.
    func newestOpRows(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> [OpRow]
    /// Up to `limit` boards with ids after `after` (from the first when nil), by id in byte order.
    func summaryRows(after: BoardID?, limit: Int) throws(StoreError) -> [SummaryRow]

    /// Inserts a board row at `seq`; with `ignoringExisting` an existing one is kept. Whether a row was inserted.
    func insertBoard(_ board: Board, seq: Seq, created: Int64, ignoringExisting: Bool) throws(StoreError) -> Bool
    /// Inserts the row of a board at seq 0 that the caller knows is not stored (its transaction
    /// read so, under the board's lease), without asking whether it was: a store may send it
    /// without waiting for its answer (an existing row then fails the transaction).
    func insertNewBoard(_ board: Board, created: Int64) throws(StoreError)
    /// Inserts or replaces the snapshot at `seq`.
    func putSnapshot(_ json: [UInt8], of id: BoardID, at seq: Seq) throws(StoreError)
    /// Deletes the snapshots older than `seq`.
    func deleteSnapshots(of id: BoardID, below seq: Seq) throws(StoreError)
    /// Deletes the snapshot at `seq`.
    func deleteSnapshot(of id: BoardID, at seq: Seq) throws(StoreError)
    /// Every snapshot's seq and size in bytes, oldest first.
    func snapshotSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)]
    /// Every stored op's seq and the size in bytes of its fields, oldest first.
    func opSizes(of id: BoardID) throws(StoreError) -> [(seq: Seq, bytes: Int)]
    /// Inserts the ops, in order, and sets the board row's seq to the last one's.
    func appendOps(_ ops: [CommittedOp], of id: BoardID) throws(StoreError)
    /// `appendOps` for several boards, each once, each's ops in order (a store may write them
    /// all in fewer statements).
    func appendOps(ofBoards appends: [(id: BoardID, ops: [CommittedOp])]) throws(StoreError)
    /// Deletes the ops with seq up to `seq`.
    func deleteOps(of id: BoardID, through seq: Seq) throws(StoreError)
    /// Deletes the board, its snapshots and its ops.
    func deleteBoard(_ id: BoardID) throws(StoreError)
    /// Sets the board row's title.
    func setTitle(_ title: String, of id: BoardID) throws(StoreError)
    /// Puts the tokens of the board's share links on the revocation list and forgets the links:
    /// a link must not outlive its board (a board made again under that id is another board).
    func revokeLinks(of id: BoardID) throws(StoreError)
}

extension BoardRows {
    /// `insertBoard`, its answer unread.
    func insertNewBoard(_ board: Board, created: Int64) throws(StoreError) {
        _ = try insertBoard(board, seq: 0, created: created, ignoringExisting: false)
    }

    /// One board at a time.
    func appendOps(ofBoards appends: [(id: BoardID, ops: [CommittedOp])]) throws(StoreError) {
        for (id, ops) in appends { try appendOps(ops, of: id) }
    }
}

/// The reads both stores share, on top of the rows.
extension BoardRows {
    /// The base or latest snapshot of a board and its seq.
    func snapshot(of id: BoardID, _ choice: SnapshotChoice) throws(StoreError) -> (seq: Seq, board: Board)? {
        try decodedSnapshot(try snapshotRow(of: id, choice), of: id)
    }

    /// The newest snapshot of a board at or before `seq`, and its seq: from `cache` when it has
    /// that very snapshot (the same JSON text), decoded and kept there otherwise.
    func snapshot(of id: BoardID, atOrBefore seq: Seq, cache: SnapshotCache? = nil) throws(StoreError)
        -> (seq: Seq, board: Board)?
    {
        let row = try snapshotRow(of: id, atOrBefore: seq)
        guard let cache, let row else { return try decodedSnapshot(row, of: id) }
        if let board = cache.board(of: id, at: row.seq, json: row.json) { return (row.seq, board) }
        let decoded = try decodedSnapshot(row, of: id)
        if let decoded { cache.keep(decoded.board, of: id, at: row.seq, json: row.json) }
        return decoded
    }

    private func decodedSnapshot(_ row: (seq: Seq, json: [UInt8])?, of id: BoardID) throws(StoreError)
        -> (seq: Seq, board: Board)?
    {
        guard let found = row else { return nil }
        let json: JSON
        do { json = try JSON.parse(found.json) } catch {
            throw damaged(id, "its snapshot at seq \(found.seq) is not JSON")
        }
        do {
            return (found.seq, try Board(json: json, path: "snapshot"))
        } catch {
            throw damaged(id, "its snapshot at seq \(found.seq) is unreadable (\(error.message))")
        }
    }

    /// Stored ops of a board with `since < seq <= through`, oldest first, at most `limit` (all when nil).
    func committedOps(of id: BoardID, after since: Seq, through: Seq = .max, limit: Int? = nil) throws(StoreError)
        -> [CommittedOp]
    {
        var ops: [CommittedOp] = []
        for row in try opRows(of: id, after: since, through: through, limit: limit) {
            ops.append(try committedOp(row, board: id))
        }
        return ops
    }

    /// The newest `limit` ops of a board, oldest first.
    func newestOps(of id: BoardID, limit: Int) throws(StoreError) -> [CommittedOp] {
        guard limit > 0 else { return [] }
        var ops: [CommittedOp] = []
        for row in try newestOpRows(of: id, before: .max, limit: limit).reversed() {
            ops.append(try committedOp(row, board: id))
        }
        return ops
    }

    /// The board at its current seq: the latest snapshot with the ops after it replayed.
    func boardState(of id: BoardID) throws(StoreError) -> BoardState? {
        guard let seq = try boardSeq(of: id) else { return nil }
        guard let latest = try snapshot(of: id, .latest), let baseSeq = try baseSeq(of: id) else {
            throw damaged(id, "it has no snapshot")
        }
        var board = latest.board
        let ops = try committedOps(of: id, after: latest.seq)
        try replay(ops, onto: &board, after: latest.seq, of: id)
        guard latest.seq + ops.count == seq else {
            throw damaged(id, "its op log ends at seq \(latest.seq + ops.count) but the board is at seq \(seq)")
        }
        return BoardState(board: board, seq: seq, latestSnapshot: latest.seq, baseSeq: baseSeq)
    }

    // MARK: What the stores answer

    /// `load`: the board at its current seq and its newest ops.
    func storedBoard(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        guard let state = try boardState(of: id) else { return nil }
        let recent = try newestOps(of: id, limit: recentLimit)
        return StoredBoard(board: state.board, seq: state.seq, recent: recent)
    }

    /// `list`: a page of boards, by id.
    func summaries(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        var summaries: [BoardSummary] = []
        for row in try summaryRows(after: after, limit: max(limit, 0)) {
            guard let id = BoardID(row.id) else {
                throw StoreError("\(location): a board has the invalid id \(row.id)")
            }
            // The store wrote the name itself; one it does not know (a newer server's) lists as none.
            summaries.append(
                BoardSummary(id: id, title: row.title, seq: row.seq, template: Template(rawValue: row.template)))
        }
        return summaries
    }

    /// `ops(of:since:limit:)`: up to `limit` ops after `since`; `.gone` when some were compacted away.
    func opsPage(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        guard let current = try boardSeq(of: id) else { return .unknownBoard }
        let since = max(since, 0)
        // The stored ops are exactly those after the base snapshot.
        let base = try baseSeq(of: id) ?? 0
        guard since >= base else { return .gone }
        guard since < current, limit > 0 else { return .ops([], current: current) }
        return .ops(try committedOps(of: id, after: since, limit: limit), current: current)
    }

    /// `board(_:at:)`: the newest snapshot at or before `seq` with the ops after it replayed (at
    /// most `--snapshot-every` of them, since every snapshot from the base on is kept), its
    /// snapshot decoded once for every read through `cache` (SnapshotCache.swift).
    func boardAsOf(_ id: BoardID, at seq: Seq, cache: SnapshotCache? = nil) throws(StoreError) -> BoardAsOf {
        guard let current = try boardSeq(of: id) else {
            cache?.forget(id)
            return .unknownBoard
        }
        guard seq <= current else { return .ahead(current: current) }
        let base = try baseSeq(of: id) ?? 0
        guard seq >= base else { return .compacted(oldest: base) }
        guard let snapshot = try snapshot(of: id, atOrBefore: seq, cache: cache) else {
            throw damaged(id, "it has no snapshot at or before seq \(seq)")
        }
        var board = snapshot.board
        let ops = try committedOps(of: id, after: snapshot.seq, through: seq)
        try replay(ops, onto: &board, after: snapshot.seq, of: id)
        guard snapshot.seq + ops.count == seq else {
            throw damaged(id, "its op log ends at seq \(snapshot.seq + ops.count), before seq \(seq)")
        }
        var time = ops.last?.time
        if ops.isEmpty, seq > base, let row = try opRows(of: id, after: seq - 1, through: seq, limit: 1).first {
            time = UnixTime(milliseconds: row.time)
        }
        return .board(board, time: time)
    }

    /// `history(of:before:limit:)`: up to `limit` stored ops before `before`, newest first.
    func historyPage(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        guard let current = try boardSeq(of: id) else { return .unknownBoard }
        let base = try baseSeq(of: id) ?? 0
        var ops: [CommittedOp] = []
        if limit > 0 {
            for row in try newestOpRows(of: id, before: before, limit: limit) {
                ops.append(try committedOp(row, board: id))
            }
        }
        return .ops(ops, current: current, oldest: base)
    }

    /// `archive(of:)`: the base snapshot and every stored op after it.
    func boardArchive(of id: BoardID) throws(StoreError) -> BoardArchive? {
        guard try boardSeq(of: id) != nil else { return nil }
        guard let base = try snapshot(of: id, .base) else { throw damaged(id, "it has no snapshot") }
        let ops = try committedOps(of: id, after: base.seq)
        do throws(StoreError) {
            return try BoardArchive(
                board: base.board, baseSeq: base.seq, ops: ops, comments: commentRows(of: id, through: base.seq))
        } catch {
            throw damaged(id, error.message)
        }
    }

    /// An op row as a committed op.
    private func committedOp(_ row: OpRow, board id: BoardID) throws(StoreError) -> CommittedOp {
        guard let opID = OpID(row.opID), let fields = try? JSON.parse(row.fields),
            let op = try? Op(type: row.type, fields: fields)
        else { throw damaged(id, "its op at seq \(row.seq) is unreadable") }
        return CommittedOp(
            seq: row.seq, opID: opID, by: UserID(row.user), op: op, time: UnixTime(milliseconds: row.time),
            name: row.name.isEmpty ? nil : row.name, member: fields["member"]?.stringValue.flatMap(MemberID.init))
    }

    /// An error for data that cannot have been written by this store.
    /// Applies `ops` to `board`, the board of `id` at `seq`; each must be the next seq, else the
    /// log is damaged.
    func replay(_ ops: [CommittedOp], onto board: inout Board, after seq: Seq, of id: BoardID) throws(StoreError) {
        for (i, op) in ops.enumerated() {
            guard op.seq == seq + i + 1 else {
                throw damaged(id, "its op log jumps from seq \(seq + i) to \(op.seq)")
            }
            board.apply(op.op)
        }
    }

    func damaged(_ id: BoardID, _ problem: String) -> StoreError {
        StoreError("\(location): board \(id) is damaged: \(problem)")
    }
}
