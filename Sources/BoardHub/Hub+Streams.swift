internal import BoardAuth
internal import BoardCore

/// `GET /api/boards/{id}/events`: the streams' rules are `EventStreams`'s (EventStreams.swift);
/// the hub finds the stream's board (in memory, being deleted, or to load) and hands it over.
extension Hub {
    func streamRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard streams.admit(id, request, claims: claims, exchange: exchange) else { return }
        if let host = boards[id] {
            streams.open(exchange, on: host)
        } else if isDeleting(id) {
            streams.refuse(exchange, Self.unknownBoard(id))
        } else if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            streams.refuse(exchange, .error(503, "unavailable", "the server is full; try again later"))
        } else {
            defer_(.stream(exchange), on: id)
        }
    }
}
