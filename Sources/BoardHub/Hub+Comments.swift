package import BoardCore
package import BoardStore

/// `GET /api/boards/{id}/items/{item}/comments?before=ID&limit=N`: a page of a card's comments,
/// newest first, read from the store's comments table on the reader thread (issue 34). Counted
/// with the history reads (`admitHistoryRead`): a client looping on it queues no more than they.
extension Hub {
    /// The default and the most comments on one page.
    static let commentsPageDefault = 20

    /// Parses `before` (a comment id, `n<seq>`) and `limit` (1–100, default 20) and asks the store.
    func commentsRequest(
        _ id: BoardID, item text: String, query: [String: String], peer: String, exchange: ExchangeID
    ) {
        guard let item = ItemID(text) else {
            return emit(.respond(exchange, .error(404, "not_found", "not an item id")))
        }
        var before: Seq?
        if let text = query["before"] {
            guard let seq = CommentID(text)?.seq, seq <= Int(Int32.max) else {
                return emit(.respond(exchange, .error(400, "bad_request", "before must be a comment id (n<seq>)")))
            }
            before = seq
        }
        var limit = Self.commentsPageDefault
        if let text = query["limit"] {
            guard let n = Int(text), (1...maximumCommentsPage).contains(n) else {
                return emit(
                    .respond(
                        exchange,
                        .error(400, "bad_request", "limit must be an integer from 1 to \(maximumCommentsPage)")))
            }
            limit = n
        }
        if isDeleting(id) {
            return emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
        }
        guard admitHistoryRead(from: peer, exchange: exchange) else { return }
        let request = CommentsPageRequest(
            board: id, item: item, before: before, limit: limit, visible: boards[id]?.room.visibleSeq)
        let reply = Self.answering(exchange) { (hub, page: HTTPResponse?) in
            guard let page else { return hub.commentsNotStored(id, exchange: exchange) }
            hub.emit(.respond(exchange, page))
        }
        reads.ask(.commentsPage(request, reply), for: exchange, historyOf: peer)
    }

    /// The comments of a board the store does not have: none, when it is in memory.
    func commentsNotStored(_ id: BoardID, exchange: ExchangeID) {
        guard boards[id] != nil else {
            return emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(id)")))
        }
        emit(.respond(exchange, CommentsPageRequest.response(.comments([], more: false))!))
    }
}

/// A page of a card's comments, read and encoded off the service thread.
package struct CommentsPageRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The card.
    package var item: ItemID
    /// The comments made before this seq (nil: from the newest).
    package var before: Seq?
    /// At most this many.
    package var limit: Int
    /// The board's published seq when it is in memory: a comment not yet published is not shown.
    package var visible: Seq?

    /// Reads the page and encodes it; nil for a board the store does not have.
    package func run(on store: any BoardStore) throws(StoreError) -> HTTPResponse? {
        let newest = visible.map { $0 + 1 } ?? .max
        let page = try store.comments(of: board, item: item, before: min(before ?? .max, newest), limit: limit)
        return Self.response(page)
    }

    /// `{"comments":[…newest first…], "more":BOOL, "next":ID|null}`; nil for `unknownBoard`.
    package static func response(_ page: CommentsPage) -> HTTPResponse? {
        guard case .comments(let comments, let more) = page else { return nil }
        return .json(200) { w in
            w.beginObject()
            w.beginArray("comments")
            for comment in comments { comment.encode(into: &w) }
            w.endArray()
            w.write("more", more)
            w.write("next", more ? comments.last?.id.rawValue : nil)
            w.endObject()
        }
    }
}
