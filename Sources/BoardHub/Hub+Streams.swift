internal import BoardAuth
internal import BoardCore

/// `GET /api/boards/{id}/events`: the streams' rules are `EventStreams`'s (EventStreams.swift);
/// the hub finds the stream's board (in memory, being deleted, or to load) and hands it over,
/// asks the store for the `reset` it says to encode, and evicts a board it stops keeping.
extension Hub {
    func streamRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard streams.admit(id, request, claims: claims, exchange: exchange) else { return }
        if let host = boards[id] {
            openStream(exchange, on: host)
        } else if isDeleting(id) {
            streams.refuse(exchange, Self.unknownBoard(id))
        } else if boards.isFull(maximum: config.maxBoardsInMemory) {
            meters.limitHits.add(.boardsInMemory)
            streams.refuse(exchange, .error(503, "unavailable", "the server is full; try again later"))
        } else {
            defer_(.stream(exchange), on: id)
        }
    }

    /// Opens the stream on its board in memory; when `EventStreams.open` says the board is to be
    /// encoded as a `reset` (at a seq), asks the store's encoder, whose answer goes back to
    /// `resetEncoded` with the board then in memory.
    func openStream(_ exchange: ExchangeID, on host: BoardHost) {
        guard let seq = streams.open(exchange, on: host) else { return }
        let board = host.id
        let reply = Reply<[UInt8]>(naming: { hub, read, bytes in
            hub.streams.resetEncoded(bytes.map { (seq, $0) }, read: read, on: hub.boards[board])
        })
        streams.encoding(reads.ask(.encodeStreamReset(host.room.published, seq: seq, reply)), on: host)
    }
}
