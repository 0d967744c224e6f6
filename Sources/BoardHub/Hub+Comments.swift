package import BoardCore
package import BoardStore

/// `GET /api/boards/{id}/items/{item}/comments?before=ID&limit=N`: a page of a card's comments,
/// newest first, read from the store's comments table on the reader thread (issue 34). Counted
/// with the history reads (`admitHistoryRead`): a client looping on it queues no more than they.
extension Hub {
    /// The default and the most comments on one page.
    static let commentsPageDefault = 20

    /// Parses `before` (a comment id, `n<seq>`) and `limit` (1–100, default 20) and asks the store.
    func commentsRequest(_ id: BoardID, item: ItemID, query: [String: String], peer: String, exchange: ExchangeID) {
        let before: Seq?
        let limit: Int
        do throws(BadParameter) {
            before = try query.parameter("before", must: "be a comment id (n<seq>)") { text in
                CommentID(text)?.seq.flatMap { $0 <= Int(Int32.max) ? $0 : nil }
            }
            limit = try query.limit(default: Self.commentsPageDefault, most: maximumCommentsPage)
        } catch { return emit(.respond(exchange, error.response)) }
        if isDeleting(id) { return emit(.respond(exchange, Self.unknownBoard(id))) }
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
        guard boards[id] != nil else { return emit(.respond(exchange, Self.unknownBoard(id))) }
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
