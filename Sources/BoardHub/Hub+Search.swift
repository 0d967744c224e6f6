package import BoardCore
package import BoardStore

/// `GET /api/search?q=TEXT&limit=N` (issue 36): cards, comments and board titles over the boards
/// the caller may read, best first, from the store's search index on the reader thread. A token
/// for every board (`*`), or no token on an open server, searches every board; a token for one
/// board (a share link's among them) searches that board only, as `GET /api/boards` lists only
/// it. Counted with the history reads (`admitHistoryRead`): a client looping on it queues no
/// more reads than they.
extension Hub {
    /// The default number of results.
    static let searchDefault = 20

    /// `GET /api/search`, the request's claims read already (a proxy user's too): `only`, the
    /// one board a token for one board may search, or nil for every board.
    func searchRequest(_ request: HTTPRequest, only: BoardID?, exchange: ExchangeID) {
        guard let text = request.query["q"] else {
            return emit(.respond(exchange, .error(400, "bad_request", "q (the words to look for) is missing")))
        }
        guard text.unicodeScalars.count <= SearchQuery.maximumScalars else {
            return emit(
                .respond(
                    exchange,
                    .error(
                        400, "bad_request",
                        "q must be at most \(SearchQuery.maximumScalars) characters (256 bytes)")))
        }
        let limit: Int
        do throws(BadParameter) {
            limit = try request.query.limit(default: Self.searchDefault, most: maximumSearchResults)
        } catch { return emit(.respond(exchange, error.response)) }
        // No word in q (only spaces or punctuation): nothing can match.
        guard let query = SearchQuery(text) else {
            return emit(.respond(exchange, SearchRequest.response(SearchResults(hits: [], more: false))))
        }
        guard admitHistoryRead(from: request.peer, exchange: exchange) else { return }
        let search = SearchRequest(
            query: query, board: only, limit: limit, deleting: Set(boards.pending.deletingBoards))
        reads.ask(.search(search, Self.answering(exchange) { $0 }), for: exchange, historyOf: request.peer)
    }
}

/// A search, read and encoded off the service thread.
package struct SearchRequest: Equatable, Sendable {
    /// The words.
    package var query: SearchQuery
    /// Only this board's results (a token for one board), or every board's.
    package var board: BoardID?
    /// At most this many results.
    package var limit: Int
    /// Boards being deleted: their results are left out.
    package var deleting: Set<BoardID>

    /// A search.
    package init(query: SearchQuery, board: BoardID?, limit: Int, deleting: Set<BoardID> = []) {
        self.query = query
        self.board = board
        self.limit = limit
        self.deleting = deleting
    }

    /// Asks the store's index and encodes the answer.
    package func run(on store: any BoardStore) throws(StoreError) -> HTTPResponse {
        let asked = min(limit + deleting.count, maximumSearchResults)
        var results = try store.search(query, board: board, limit: asked)
        let kept = results.hits.filter { !deleting.contains($0.board) }
        results.more = results.more || kept.count > limit
        results.hits = Array(kept.prefix(limit))
        return Self.response(results)
    }

    /// `{"results":[{board, boardTitle, item, comment, label, snippet, archived}…], "more":BOOL}`.
    package static func response(_ results: SearchResults) -> HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.beginArray("results")
            for hit in results.hits {
                w.beginObject()
                w.write("board", hit.board.rawValue)
                w.write("boardTitle", hit.boardTitle)
                w.write("item", hit.item?.rawValue)
                w.write("comment", hit.comment?.rawValue)
                w.write("label", hit.label)
                w.write("snippet", hit.snippet)
                w.write("archived", hit.archived)
                w.endObject()
            }
            w.endArray()
            w.write("more", results.more)
            w.endObject()
        }
    }
}
