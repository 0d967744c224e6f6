internal import BoardCore

/// The search index's rows in a database store (SQLite: FTS5; PostgreSQL: a `tsvector` with a
/// GIN index). Every call runs inside a transaction its caller holds.
protocol SearchRows {
    /// Inserts or replaces a document.
    func putSearchDoc(_ doc: SearchDoc) throws(StoreError)
    /// Inserts or replaces documents (distinct keys); a store may write them in fewer statements.
    func putSearchDocs(_ docs: [SearchDoc]) throws(StoreError)
    /// Deletes the document of a card (`seq` 0) or of a comment.
    func deleteSearchDoc(of id: BoardID, item: String, seq: Seq) throws(StoreError)
    /// Deletes every document of the board.
    func deleteSearchDocs(of id: BoardID) throws(StoreError)
    /// Deletes the board's title and card documents (seq 0), keeping its comments'.
    func deleteCardSearchDocs(of id: BoardID) throws(StoreError)
    /// Records that the board's documents are those of its seq `seq` (`appendOps` does too, in the
    /// statement that sets its seq).
    func markIndexed(_ id: BoardID, seq: Seq) throws(StoreError)
    /// The boards whose documents are not those of their seq (never indexed, or indexed before
    /// later ops were stored without it), up to `limit`.
    func boardsBehindIndex(limit: Int) throws(StoreError) -> [BoardID]
    /// Whether the board's documents are still behind its seq, its row locked against appends
    /// to the end of the transaction where the database has other writers (PostgreSQL).
    func lockBehindIndex(_ id: BoardID) throws(StoreError) -> Bool
    /// Deletes every document and marks every board not indexed (`shuffleboard reindex`).
    func clearSearchIndex() throws(StoreError)
    /// Up to `limit` documents matching the query, best first: only `board`'s when given; a
    /// comment only while its card is on the board.
    func searchRows(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> [SearchRow]
}

/// What a batch of ops changed in a board's documents, gathered while they are applied.
struct SearchChanges {
    /// Cards whose document is written again from the board after the batch.
    var cards: Set<ItemID> = []
    /// The title document is written again.
    var title = false
    /// Every card document is written again (a restore).
    var everyCard = false
    /// Comment documents put (text) or deleted (nil), in op order.
    var comments: [(item: ItemID, seq: Seq, text: String?)] = []

    /// Notes what `op` changes (before or after it is applied: it reads nothing of the board).
    mutating func note(_ op: CommittedOp) {
        switch op.op {
        case .add(_, _, let item): cards.insert(item.id)
        case .edit(let item, _), .remove(let item), .addCheck(let item, _, _), .editCheck(let item, _, _),
            .removeCheck(let item, _):
            cards.insert(item)
        case .archive(let items), .unarchive(let items, _, _): cards.formUnion(items)
        case .retitle: title = true
        case .restore:
            everyCard = true
            title = true
        case .comment(let item, let comment): comments.append((item, comment.id.seq ?? op.seq, comment.text))
        case .editComment(let item, let comment, let text, _, _):
            if let seq = comment.seq { comments.append((item, seq, text)) }
        case .removeComment(let item, let comment):
            if let seq = comment.seq { comments.append((item, seq, nil)) }
        case .swap, .move, .toggle, .addZone, .editZone, .removeZone, .tag, .assign, .addTag, .editTag, .removeTag,
            .moveMany:
            break
        }
    }

    /// Nothing to write (moves, swaps, toggles, tags: no text changed).
    var isEmpty: Bool { cards.isEmpty && !title && !everyCard && comments.isEmpty }

    /// The changes of `ops`.
    init(_ ops: [CommittedOp]) {
        for op in ops { note(op) }
    }
}

extension SearchRows {
    /// One statement per document.
    func putSearchDocs(_ docs: [SearchDoc]) throws(StoreError) {
        for doc in docs { try putSearchDoc(doc) }
    }

    /// Writes what a batch of ops changed, reading the board as it is after them (`appendOps`
    /// marked the board indexed at their last seq, in the same transaction).
    func index(_ changes: SearchChanges, board: Board) throws(StoreError) {
        if changes.everyCard {
            try deleteCardSearchDocs(of: board.id)
            try putSearchDocs([.title(of: board)] + board.items.map { .card($0, of: board) })
        } else if changes.title {
            try putSearchDoc(.title(of: board))
        }
        var cards: [SearchDoc] = []
        for id in changes.cards {
            if let item = board.item(id) {
                cards.append(.card(item, of: board))
            } else {
                try deleteSearchDoc(of: board.id, item: id.rawValue, seq: 0)
            }
        }
        if !cards.isEmpty { try putSearchDocs(cards) }
        for c in changes.comments { try indexComment(c, of: board.id) }
    }

    private func indexComment(_ c: (item: ItemID, seq: Seq, text: String?), of id: BoardID) throws(StoreError) {
        if let text = c.text {
            try putSearchDoc(.comment(text, seq: c.seq, on: c.item, of: id))
        } else {
            try deleteSearchDoc(of: id, item: c.item.rawValue, seq: c.seq)
        }
    }

    /// Writes every document of the board again (its title, cards and comments) and marks it
    /// indexed at `seq`.
    func reindex(_ board: Board, comments: [ItemComment], seq: Seq) throws(StoreError) {
        try deleteSearchDocs(of: board.id)
        try putSearchDocs(SearchDoc.all(of: board, comments: comments))
        try markIndexed(board.id, seq: seq)
    }

    /// The hits of a search: `limit` + 1 rows read to know whether there are more.
    func search(_ query: SearchQuery, board: BoardID?, limit: Int) throws(StoreError) -> SearchResults {
        let asked = min(max(limit, 1), maximumSearchResults)
        let rows = try searchRows(query, board: board, limit: asked + 1)
        return SearchResults(hits: rows.prefix(asked).compactMap { $0.hit(for: query) }, more: rows.count > asked)
    }
}
