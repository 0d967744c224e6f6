internal import BoardAuth
internal import BoardCore

/// `GET /api/boards/{id}/events`: the streams' rules are `EventStreams`'s (EventStreams.swift);
/// the hub finds the stream's board (in memory, being deleted, or to load) and hands it over,
/// asks the store for the `reset` it says to encode, and evicts a board it stops keeping.
extension Hub {
    func streamRequest(_ id: BoardID, _ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard streams.admit(id, request, claims: claims, exchange: exchange) else { return }
        switch wantBoard(id, else: .stream(exchange)) {
        case .here(let host): openStream(exchange, on: host)
        case .refused(let response): streams.refuse(exchange, response)  // Forgets the stream too.
        case .waiting: break
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
