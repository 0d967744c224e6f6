internal import BoardAuth
package import BoardCore
package import BoardStore

/// Boards in and out over HTTP (issue 37): `POST /api/boards/import/trello?id=BOARD` and
/// `GET /api/boards/{id}/export` (the archive JSON) and `…/export.csv`.
///
/// An import's body (up to `TrelloImport.maxBytes`, the transport's limit on that route alone)
/// is parsed and mapped on the reader thread (`StoreRead.parseTrello`); the board it makes then
/// waits, as a create does, for the store to say whether its id is free, and is stored with its
/// comments in one write (`StoreWrite.restore`) before the 201 goes out. Exports are read and
/// encoded on the reader thread too.
extension Hub {
    /// The path of the import route, which the transport lets bring a body of up to 32 MiB.
    package static let trelloImportPath = "/api/boards/import/trello"
    /// The most bytes of a Trello export the import route reads: 32 MiB.
    package static let trelloImportMaxBytes = TrelloImport.maxBytes

    /// `POST /api/boards/import/trello?id=BOARD`: an admin of every board (or an open server).
    func trelloImportRequest(_ request: HTTPRequest, claims: Claims, exchange: ExchangeID) {
        guard let text = request.query["id"], let id = BoardID(text) else {
            return emit(
                .respond(
                    exchange, .error(400, "bad_request", "?id= must name the new board (1–64 of A-Z a-z 0-9 _ -)")))
        }
        guard claims.board == nil && claims.role == .admin else {
            return emit(.respond(exchange, Self.forbidden("importing boards (an admin token for every board)")))
        }
        guard config.auth != nil || mayCreate(from: request.peer) else {
            log(.warning, "\(exchange) from \(request.peer) makes new boards too fast; answering 429")
            return emit(
                .respond(exchange, .error(429, "rate_limited", "too many new boards from your address; slow down")))
        }
        if boards[id] != nil || isDeleting(id) {
            return emit(.respond(exchange, .error(409, "exists", "board \(id) already exists")))
        }
        log(
            .info, "\(exchange) from \(request.peer): importing a Trello export of \(request.body.count) bytes as \(id)"
        )
        let reply = Self.answering(exchange) { $0.trelloParsed(id, $1, exchange: exchange) }
        read(.parseTrello(id, request.body, maxBoardBytes: config.room.maxBoardBytes, reply), for: exchange)
    }

    /// The export was parsed: refuse it, or make the board once its id is known to be free.
    func trelloParsed(_ id: BoardID, _ result: Result<TrelloImport, TrelloImport.Refusal>, exchange: ExchangeID) {
        switch result {
        case .failure(.notTrello(let message)):
            emit(.respond(exchange, .error(400, "bad_request", TrelloImport.Refusal.notTrello(message).message)))
        case .failure(.tooLarge(let message)):
            emit(.respond(exchange, .error(413, "too_large", TrelloImport.Refusal.tooLarge(message).message)))
        case .success(let made):
            if boards[id] != nil || isDeleting(id) {
                return emit(.respond(exchange, .error(409, "exists", "board \(id) already exists")))
            }
            defer_(.importBoard(exchange, made), on: id)
        }
    }

    /// Makes the imported board: in memory at the archive's seq, stored with its comments in one
    /// write; the 201 goes out once that is durable.
    func importBoard(_ made: TrelloImport, answering exchange: ExchangeID) {
        let archive = made.archive
        boards.insert(BoardHost(room: Room(board: archive.current, seq: archive.seq, settings: config.room)))
        let ticket = makeTicket()
        emit(.persist(.restore(archive), ticket: ticket))
        let created = HTTPResponse.json(201) { w in
            w.beginObject()
            w.write("seq", archive.seq)
            archive.current.encode(into: &w, key: "board")
            made.report.encode(into: &w, key: "report")
            w.endObject()
        }
        boards.pending.create(archive.id, ticket: ticket, answer: (exchange, created))
        log(.info, "imported board \(archive.id) from Trello (\(archive.current.items.count) items) over HTTP")
    }

    /// `GET /api/boards/{id}/export` and `…/export.csv`, a view token's claims already checked.
    func exportRequest(_ id: BoardID, csv: Bool, exchange: ExchangeID) {
        if isDeleting(id) { return emit(.respond(exchange, Self.unknownBoard(id))) }
        // A board made by a `hello` is stored with its first op: until then it is only in memory.
        let unsaved = boards[id].flatMap { $0.unsaved ? $0.room.published : nil }
        let reply = Self.answering(exchange) { (hub, answer: HTTPResponse?) in
            hub.emit(.respond(exchange, answer ?? Self.unknownBoard(id)))
        }
        read(.export(ExportRequest(board: id, csv: csv, unsaved: unsaved), reply), for: exchange)
    }
}

/// `GET /api/boards/{id}/export(.csv)`: what the reader thread reads and encodes.
package struct ExportRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// CSV (`BoardCSV`) rather than the archive JSON.
    package var csv: Bool
    /// The board as it is in memory when it was never stored (made by a `hello`, unchanged).
    package var unsaved: Board?

    /// The answer for `archive`, or for `unsaved` when the store has none; nil when neither exists.
    package func response(_ archive: BoardArchive?) -> HTTPResponse? {
        var archive = archive
        if archive == nil, let unsaved { archive = try? BoardArchive(board: unsaved, baseSeq: 0, ops: []) }
        guard let archive else { return nil }
        let name = "content-disposition:"
        if csv {
            return HTTPResponse(
                status: 200, contentType: "text/csv; charset=utf-8", body: BoardCSV.encode(archive.current),
                headers: [HTTPResponse.Header(name, "attachment; filename=\"\(board).csv\"")])
        }
        return HTTPResponse(
            status: 200, contentType: "application/json", body: archive.encoded(),
            headers: [HTTPResponse.Header(name, "attachment; filename=\"\(board).json\"")])
    }
}
