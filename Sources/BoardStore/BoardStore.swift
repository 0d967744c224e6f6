package import BoardCore

/// A board as loaded from a store: the board with every stored op applied, and the newest ops.
package struct StoredBoard: Equatable, Sendable {
    /// The board at `seq`.
    package var board: Board
    /// The seq of the last stored op.
    package var seq: Seq
    /// The most recent ops, oldest first, ending at `seq` (as many as asked for, or all there are).
    package var recent: [CommittedOp]

    /// A loaded board.
    package init(board: Board, seq: Seq, recent: [CommittedOp]) {
        self.board = board
        self.seq = seq
        self.recent = recent
    }
}

/// One line of the board list.
package struct BoardSummary: Equatable, Sendable {
    /// The board id.
    package var id: BoardID
    /// Its title.
    package var title: String
    /// The seq of its last stored op.
    package var seq: Seq
    /// The template it was made from, or nil (not made from one, or made before boards kept it).
    package var template: Template?

    /// A summary.
    package init(id: BoardID, title: String, seq: Seq, template: Template? = nil) {
        self.id = id
        self.title = title
        self.seq = seq
        self.template = template
    }
}

/// A change to the store. The server's writer thread applies a batch of these in one transaction.
///
/// A write is copied several times on its way (an action, a job, a batch) for every op: the rare
/// cases with a whole board are boxed (`indirect`), so that an append copies only its own size
/// (`StoreWriteLayoutTests`).
package enum StoreWrite: Equatable, Sendable {
    /// Create a board at seq 0.
    indirect case create(Board)
    /// Append committed ops (in seq order) to a board's log.
    case append(BoardID, [CommittedOp])
    /// Remove a board, its snapshots and its log.
    case delete(BoardID)
    /// Create a board from an archive at its seq, with its comments (`POST
    /// /api/boards/import/trello`); like `create`, an existing board is kept as it is.
    indirect case restore(BoardArchive)
}

/// A page of a board's op log.
package enum OpsPage: Equatable, Sendable {
    /// The ops with seq greater than the asked-for seq, oldest first, and the board's current seq.
    case ops([CommittedOp], current: Seq)
    /// Some ops after the asked-for seq were compacted away.
    case gone
    /// No such board.
    case unknownBoard
}

/// A board as it was right after one of its ops (`GET /api/boards/{id}?at=SEQ`, restores).
package enum BoardAsOf: Equatable, Sendable {
    /// The board as of the seq, and when that op was committed (nil: not known, for seq 0 and
    /// for the oldest kept seq, whose op went with compaction).
    case board(Board, time: UnixTime?)
    /// The seq is older than what the store keeps; `oldest` is the oldest it can show.
    case compacted(oldest: Seq)
    /// The seq is after the board's `current` seq.
    case ahead(current: Seq)
    /// No such board.
    case unknownBoard
}

/// A page of a board's history, newest first (`GET /api/boards/{id}/history`).
package enum HistoryPage: Equatable, Sendable {
    /// Up to the asked-for number of ops before the asked-for seq, newest first; the board's
    /// current seq and the oldest seq `board(_:at:)` can show.
    case ops([CommittedOp], current: Seq, oldest: Seq)
    /// No such board.
    case unknownBoard
}

/// A store failure, with a message for people.
package struct StoreError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Whether trying the same thing again may succeed.
    package enum Kind: Equatable, Sendable {
        /// The environment failed (busy or locked, I/O, disk full, out of memory): the same
        /// write may succeed later, once the lock is free or there is space again.
        case transient
        /// The data or the code is wrong (a constraint, a damaged or undecodable row, misuse):
        /// the same write fails again however often it is tried.
        case permanent
        /// In a cluster: this node no longer holds the board's lease at the epoch it claimed (or
        /// the batch does not continue the stored seq), so nothing of the board's writes was
        /// committed, and no write of this node to it ever will be until it claims it again.
        case fenced
    }

    /// What went wrong, naming the path or board where that helps.
    package var message: String
    /// Whether a retry can help; errors this module makes up itself are permanent.
    package var kind: Kind
    /// An error with this message.
    package init(_ message: String, kind: Kind = .permanent) {
        self.message = message
        self.kind = kind
    }
    /// The message.
    package var description: String { message }
    /// The error of a value that does not decode: the decoder's message after `context`.
    package init(_ error: JSON.DecodingError, context: String = "") {
        message = context + error.message
        kind = .permanent
    }
}

/// Where boards live between restarts.
///
/// Writes come from one writer thread per writer (`write`, `writerCount`); reads come from one reader thread at the same
/// time (never from the server's service thread: `ReadGuard` checks that in debug builds). Implementations must make a `write` batch atomic and durable before returning.
package protocol BoardStore: AnyObject, Sendable {
    /// This store as a cluster's (`ClusterStore`), or nil; said by its type (StoreCapabilities.swift).
    var asClusterStore: (any ClusterStore)? { get }
    /// This store as one that keeps revocations (`RevocationStore`), or nil; said by its type.
    var asRevocationStore: (any RevocationStore)? { get }
    /// This store as one that keeps batches on their way (`PipelinedWrites`), or nil; said by its type.
    var asPipelinedWrites: (any PipelinedWrites)? { get }
    /// The store as one that keeps share links, or nil (StoreCapabilities.swift).
    var asLinkStore: (any LinkStore)? { get }
    /// The store as one that keeps members' grants, or nil (StoreCapabilities.swift).
    var asGrantStore: (any GrantStore)? { get }
    /// The store as one that keeps webhooks, or nil (StoreCapabilities.swift).
    var asWebhookStore: (any WebhookStore)? { get }
    /// The store as one that keeps members' inboxes, or nil (Inbox.swift).
    var asInboxStore: (any InboxStore)? { get }
    /// Applies `batch` in one transaction; when this returns, the batch is durable.
    func write(_ batch: [StoreWrite]) throws(StoreError)
    /// The board with this id, with up to `recentLimit` of its newest ops; nil when absent.
    func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard?
    /// Whether the store has the board (cheaper than `load`).
    func exists(_ id: BoardID) throws(StoreError) -> Bool
    /// Up to `limit` boards with ids after `after` (from the first when nil), ordered by id.
    func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary]
    /// Up to `limit` ops of a board's log with seq greater than `since`.
    func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage
    /// The board as it was right after op `seq`: the nearest snapshot at or before it, with the
    /// ops after that replayed.
    func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf
    /// Up to `limit` of a board's stored ops with seq less than `before`, newest first.
    func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage
    /// The board's oldest kept snapshot and every stored op after it (for export); nil when absent.
    func archive(of id: BoardID) throws(StoreError) -> BoardArchive?
    /// Stores an archived board; a board with its id is overwritten only when `replace` (for import).
    func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError)
    /// A page of a card's comments, newest first: up to `limit` (at most `maximumCommentsPage`)
    /// made before the comment of seq `before` (nil: from the newest).
    func comments(of id: BoardID, item: ItemID, before: Seq?, limit: Int) throws(StoreError) -> CommentsPage
    /// Up to `limit` (at most `maximumSearchResults`) search hits, best first: over every board,
    /// or only `board` when given (Search.swift).
    func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults
    /// Rebuilds the search index from the log: the boards whose index is behind their seq, or
    /// every board when `all`. Returns how many boards it rebuilt.
    func reindex(all: Bool) throws(StoreError) -> Int
    /// Releases what the store holds (connections, the directory lock); a closed store may refuse later calls.
    /// Safe to call twice.
    func close()
    /// True when `write` never waits (no disk, no network) and never fails: the server's service
    /// thread may then write itself instead of handing writes to the writer thread.
    var writesNeverWait: Bool { get }
    /// Drops what the store keeps in memory of the board for writing it (its writer's replica):
    /// the board left the server's memory. Called from the writer thread, after the board's writes.
    func forget(_ id: BoardID)
    /// How many writers the store writes over at once (1 for most; `PostgresStore`'s writer
    /// connections, `--store-writers`): the server then runs one writer thread per writer, and
    /// sends each board's writes to the thread of `writer(of:)`, so that batches of different
    /// writers commit side by side and a board's writes stay in order.
    var writerCount: Int { get }
    /// The writer (0 ..< `writerCount`) whose connection writes the board: always the same one.
    func writer(of id: BoardID) -> Int
}

extension BoardStore {
    /// One writer.
    package var writerCount: Int { 1 }
    /// The only writer.
    package func writer(of id: BoardID) -> Int { 0 }
}

extension BoardStore {
    package var writesNeverWait: Bool { false }
    /// A store without a search index (a test's) finds nothing it could be asked for.
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        throw StoreError("this store keeps no search index")
    }
    package func reindex(all: Bool) throws(StoreError) -> Int { 0 }
    package func forget(_ id: BoardID) {}
}
