package import BoardCore
import Synchronization

/// A store that keeps everything in memory: for `--memory` and for tests. Nothing survives a restart.
package final class MemoryStore: BoardStore {
    private struct Entry {
        var board: Board
        var log: [CommittedOp]
        /// The board before the first op in `log`, and its seq (for archives).
        var base: Board
        var baseSeq: Seq = 0
        var seq: Seq { log.last?.seq ?? baseSeq }
        /// The live comments by the seq that made them (`Comments.swift`).
        var comments: [Seq: ItemComment] = [:]
        /// The comments made at `baseSeq` or before (an import's), for archives.
        var baseComments: [ItemComment] = []

        /// The live comments, oldest first.
        var liveComments: [ItemComment] { comments.sorted { $0.key < $1.key }.map(\.value) }

        /// Applies `op` and keeps it.
        mutating func append(_ op: CommittedOp) {
            board.apply(op.op)
            log.append(op)
            note(op)
        }

        /// Applies `ops` and keeps them, in order.
        mutating func append(_ ops: [CommittedOp]) {
            for op in ops { append(op) }
        }

        /// Follows what the op did to comments.
        mutating func note(_ op: CommittedOp) {
            switch op.op {
            case .comment(let item, let comment):
                comments[comment.id.seq ?? op.seq] = ItemComment(item: item, comment: comment)
            case .editComment(_, let id, let text, let mentions, let edited):
                guard let seq = id.seq else { return }
                comments[seq]?.comment.text = text
                comments[seq]?.comment.mentions = mentions
                comments[seq]?.comment.edited = edited
            case .removeComment(_, let id):
                if let seq = id.seq { comments[seq] = nil }
            default:
                break
            }
        }
    }

    private let boards = Mutex<[BoardID: Entry]>([:])
    /// `body`'s result when board `id` is stored, run with the boards' lock held (taken before
    /// `links`' and `revoked`'s, never after); nil when it is not.
    func whileStored<R>(_ id: BoardID, _ body: () -> R) -> R? { boards.withLock { $0[id] == nil ? nil : body() } }
    private let revoked = Mutex<[String: Revocation]>([:])
    /// Share links by id (MemoryStore+Links.swift).
    let links = Mutex<[String: ShareLink]>([:])
    /// The search index (MemorySearchIndex.swift), written under `boards`' lock with the boards.
    let searchIndex = Mutex(MemorySearchIndex())
    /// Grants by board and member (MemoryStore+Grants.swift).
    let grants = Mutex<[BoardID: [MemberID: MemberGrant]]>([:])
    /// Webhooks, oldest first (MemoryStore+Webhooks.swift); a board's go with it.
    let webhookRows = Mutex<[Webhook]>([])
    /// Every member's notices (MemoryStore+Inbox.swift); taken inside `boards`' lock when written.
    let inbox = Mutex(MemoryInbox())

    /// An empty store.
    package init() {}

    /// Memory: nothing to wait for, and nothing that can fail.
    package var writesNeverWait: Bool { true }

    /// Applies the batch; memory is as durable as it gets here.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        try boards.withLock { (boards: inout [BoardID: Entry]) throws(StoreError) in
            try searchIndex.withLock { (index: inout MemorySearchIndex) throws(StoreError) in
                for change in batch {
                    switch change {
                    case .create(let board):
                        guard boards[board.id] == nil else { continue }
                        boards[board.id] = Entry(board: board, log: [], base: board)
                        for doc in SearchDoc.all(of: board, comments: []) { index.putSearchDoc(doc) }
                    case .append(let id, let ops) where !ops.contains(where: { Notice.mayNotify($0.op) }):
                        // Changed where it is (the dictionary's modify): one lookup, no copy.
                        guard boards[id]?.append(ops) != nil else { continue }
                        let changes = SearchChanges(ops)
                        if !changes.isEmpty, let board = boards[id]?.board { try index.index(changes, board: board) }
                    case .append(let id, let ops):
                        // A notice is made from the board before its op: taken out and put back,
                        // one lookup each way, and the entry changed in place.
                        guard var entry = boards.removeValue(forKey: id) else { continue }
                        for op in ops {
                            if Notice.mayNotify(op.op) {
                                let board = entry.board
                                inbox.withLock { $0.put(Notice.made(by: op, on: board, id: id)) }
                            }
                            entry.append(op)
                        }
                        boards[id] = entry
                        let changes = SearchChanges(ops)
                        if !changes.isEmpty { try index.index(changes, board: entry.board) }
                    case .delete(let id):
                        boards[id] = nil
                        index.deleteSearchDocs(of: id)
                        webhookRows.withLock { $0.removeAll { $0.board == id } }
                        revokeLinks(of: id)
                    case .restore(let archive):
                        guard boards[archive.id] == nil else { continue }
                        let entry = Self.entry(archive)
                        boards[archive.id] = entry
                        for doc in SearchDoc.all(of: archive.current, comments: entry.liveComments) {
                            index.putSearchDoc(doc)
                        }
                    }
                }
            }
        }
        for case .delete(let id) in batch { deleteGrants(of: id) }
    }

    /// The board and its newest ops.
    package func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        ReadGuard.check()
        return boards.withLock { boards in
            boards[id].map { StoredBoard(board: $0.board, seq: $0.seq, recent: Array($0.log.suffix(recentLimit))) }
        }
    }

    /// Whether the board is stored.
    package func exists(_ id: BoardID) throws(StoreError) -> Bool {
        ReadGuard.check()
        return boards.withLock { $0[id] != nil }
    }

    /// A page of boards, by id.
    package func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        ReadGuard.check()
        return boards.withLock { boards in
            Array(
                boards.values.filter { board in after.map { $0 < board.board.id } ?? true }
                    .map {
                        BoardSummary(id: $0.board.id, title: $0.board.title, seq: $0.seq, template: $0.board.template)
                    }
                    .sorted { $0.id < $1.id }
                    .prefix(max(limit, 0)))
        }
    }

    /// The whole log is kept, so a page is never gone.
    package func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        ReadGuard.check()
        return boards.withLock { boards in
            guard let entry = boards[id] else { return .unknownBoard }
            let since = max(since, 0)
            guard since >= entry.baseSeq else { return .gone }
            let start = min(since - entry.baseSeq, entry.log.count)
            return .ops(Array(entry.log[start...].prefix(max(limit, 0))), current: entry.seq)
        }
    }

    /// The board as of `seq`: the whole log is kept, so the base replayed up to it.
    package func board(_ id: BoardID, at seq: Seq) throws(StoreError) -> BoardAsOf {
        ReadGuard.check()
        guard let entry = boards.withLock({ $0[id] }) else { return .unknownBoard }
        guard seq <= entry.seq else { return .ahead(current: entry.seq) }
        guard seq >= entry.baseSeq else { return .compacted(oldest: entry.baseSeq) }
        var board = entry.base
        var time: UnixTime?
        for op in entry.log.prefix(seq - entry.baseSeq) {
            board.apply(op.op)
            time = op.time
        }
        return .board(board, time: time)
    }

    /// Up to `limit` ops before `before`, newest first.
    package func history(of id: BoardID, before: Seq, limit: Int) throws(StoreError) -> HistoryPage {
        ReadGuard.check()
        return boards.withLock { boards in
            guard let entry = boards[id] else { return .unknownBoard }
            let end = min(max(before - 1 - entry.baseSeq, 0), entry.log.count)
            let page = entry.log[..<end].suffix(max(limit, 0)).reversed()
            return .ops(Array(page), current: entry.seq, oldest: entry.baseSeq)
        }
    }

    /// The board as created (or imported) and its whole log.
    package func archive(of id: BoardID) throws(StoreError) -> BoardArchive? {
        guard let entry = boards.withLock({ $0[id] }) else { return nil }
        return try BoardArchive(board: entry.base, baseSeq: entry.baseSeq, ops: entry.log, comments: entry.baseComments)
    }

    /// A page of a card's comments, newest first.
    package func comments(of id: BoardID, item: ItemID, before: Seq?, limit: Int) throws(StoreError) -> CommentsPage {
        ReadGuard.check()
        return boards.withLock { boards in
            guard let entry = boards[id] else { return .unknownBoard }
            let asked = min(max(limit, 1), maximumCommentsPage)
            let page = entry.comments.filter { $0.value.item == item && $0.key < (before ?? .max) }
                .sorted { $0.key > $1.key }
            return .comments(page.prefix(asked).map(\.value.comment), more: page.count > asked)
        }
    }

    /// Puts the archived board in place, refusing to overwrite unless `replace`.
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        let stored = boards.withLock { boards in
            guard replace || boards[archive.id] == nil else { return false }
            if boards[archive.id] != nil { revokeLinks(of: archive.id) }
            let entry = Self.entry(archive)
            boards[archive.id] = entry
            searchIndex.withLock { index in
                index.deleteSearchDocs(of: archive.id)
                for doc in SearchDoc.all(of: archive.current, comments: entry.liveComments) { index.putSearchDoc(doc) }
            }
            return true
        }
        if !stored { throw StoreError("board \(archive.id) already exists (replace it to overwrite)") }
    }

    private static func entry(_ archive: BoardArchive) -> Entry {
        var entry = Entry(board: archive.current, log: archive.ops, base: archive.board, baseSeq: archive.baseSeq)
        entry.baseComments = archive.comments
        for c in archive.comments { entry.comments[c.comment.id.seq ?? 0] = c }
        for op in archive.ops { entry.note(op) }
        return entry
    }

    /// Search hits, best first, from the index (never a scan of the boards).
    package func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        ReadGuard.check()
        return try searchIndex.withLock { (index: inout MemorySearchIndex) throws(StoreError) in
            try index.search(query, board: board, limit: limit)
        }
    }

    /// Rebuilds the index from the boards (it is never behind them: only `all` does anything).
    package func reindex(all: Bool) throws(StoreError) -> Int {
        guard all else { return 0 }
        return boards.withLock { boards in
            searchIndex.withLock { index in
                index.clearSearchIndex()
                for entry in boards.values {
                    for doc in SearchDoc.all(of: entry.board, comments: entry.liveComments) { index.putSearchDoc(doc) }
                }
                return boards.count
            }
        }
    }

    /// Nothing to release: the boards stay readable, as memory is all there is.
    package func close() {}
}

extension MemoryStore: RevocationStore {
    /// Keeps the revocation (the later `until` of two) and forgets expired ones.
    package func revoke(_ revocation: Revocation, now: Int64) throws(StoreError) {
        revoked.withLock { revoked in
            revoked = revoked.filter { $0.value.until > now }
            var kept = revocation
            if let old = revoked[revocation.id] { kept.until = max(old.until, revocation.until) }
            revoked[revocation.id] = kept
        }
    }

    /// The revocations still in force at `now`, by id.
    package func revocations(now: Int64) throws(StoreError) -> [Revocation] {
        revoked.withLock { $0.values.filter { $0.until > now }.sorted { $0.id < $1.id } }
    }
}
