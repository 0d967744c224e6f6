internal import BoardCore
internal import BoardStore

/// History: `GET /api/boards/{id}?at=SEQ`, `GET /api/boards/{id}/history`, and the store read a
/// `restore` waits for. The boards are read, replayed and encoded on the reader thread; the hub
/// only decides what to ask and what to do with the answer.
extension Hub {
    /// A restore costs one op of the sender's `--op-rate` per this many bytes of its board, on
    /// top of the op itself: about what an editing op with long texts takes in the log.
    static let restoreBytesPerOp = 2048

    /// `GET /api/boards/{id}?at=SEQ`: 400 for a seq that is not a non-negative integer or is after
    /// the board's published seq, else the store's answer (200, 410, or 404).
    func atRequest(_ id: BoardID, at text: String, peer: String, exchange: ExchangeID) {
        let seq: Seq
        switch BoardAtRequest.seq(text) {
        case .seq(let parsed): seq = parsed
        case .refused(let refusal): return emit(.respond(exchange, refusal))
        }
        if isDeleting(id) { return emit(.respond(exchange, Self.unknownBoard(id))) }
        guard admitHistoryRead(from: peer, exchange: exchange) else { return }
        let request = BoardAtRequest(board: id, seq: seq, visible: boards[id]?.room.visibleSeq)
        let reply = Self.answering(exchange) { (hub, answer: HTTPResponse?) in
            guard let answer else { return hub.atNotStored(id, at: seq, exchange: exchange) }
            hub.emit(.respond(exchange, answer))
        }
        reads.ask(.boardAtAnswer(request, reply), for: exchange, historyOf: peer)
    }

    /// `GET /api/boards/{id}/history?before=SEQ&limit=N`: `before` from 1 (default: after the
    /// newest), `limit` 1–1000 (default 100).
    func historyRequest(_ id: BoardID, query: [String: String], peer: String, exchange: ExchangeID) {
        let before: Seq?
        let limit: Int
        do throws(BadParameter) {
            before = try query.number("before", in: 1...Int(Int32.max), must: "be a positive integer")
            limit = try query.limit(default: 100, most: 1000)
        } catch { return emit(.respond(exchange, error.response)) }
        if isDeleting(id) { return emit(.respond(exchange, Self.unknownBoard(id))) }
        guard admitHistoryRead(from: peer, exchange: exchange) else { return }
        let request = HistoryPageRequest(
            board: id, before: before, limit: limit, visible: boards[id]?.room.visibleSeq,
            maxBytes: config.maxPageBytes)
        let reply = Self.answering(exchange) { (hub, page: HTTPResponse?) in
            guard let page else { return hub.historyNotStored(id, exchange: exchange) }
            hub.emit(.respond(exchange, page))
        }
        reads.ask(.historyPage(request, reply), for: exchange, historyOf: peer)
    }

    /// Whether a history read (`?at=`, `/history`) from `peer` may start: at most
    /// `maxHistoryReads` wait for the store at once (else 503 `busy`), and `maxHistoryReadsPerAddress`
    /// of one client address (else 429). Each replays and encodes a board on the reader thread,
    /// so an address looping on them must not be able to queue work without bound; and the
    /// reader runs a join's read before any of them (`StoreRead.waitsBehindJoins`). A refusal
    /// closes its connection: a client that asks again at once, ignoring `retry-after`, must
    /// connect again, and the accept-time caps bound that (refusals on a kept-alive connection
    /// cost the service thread as much as the joins they were meant to protect).
    func admitHistoryRead(from peer: String, exchange: ExchangeID) -> Bool {
        if config.maxHistoryReads > 0 && reads.historyCount >= config.maxHistoryReads {
            meters.limitHits.add(.historyReads)
            log(.warning, "\(exchange) from \(peer): \(reads.historyCount) history reads wait for the store, the most")
            var response = HTTPResponse.error(503, "busy", "too many history reads at once; try again shortly")
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
            response.closesConnection = true
            emit(.respond(exchange, response))
            return false
        }
        if config.maxHistoryReadsPerAddress > 0 && reads.historyReads(from: peer) >= config.maxHistoryReadsPerAddress {
            meters.limitHits.add(.historyReadsPerAddress)
            log(.warning, "\(exchange) from \(peer): over \(config.maxHistoryReadsPerAddress) history reads at once")
            var response = HTTPResponse.error(
                429, "rate_limited", "too many history reads at once from your address; wait for their answers")
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
            response.closesConnection = true
            emit(.respond(exchange, response))
            return false
        }
        return true
    }

    /// `?at=` for a board the store does not have: one made by `hello` and never changed is in
    /// memory at seq 0, as its template.
    func atNotStored(_ id: BoardID, at seq: Seq, exchange: ExchangeID) {
        guard let host = boards[id] else { return emit(.respond(exchange, Self.unknownBoard(id))) }
        let request = BoardAtRequest(board: id, seq: seq, visible: host.room.visibleSeq)
        guard seq == host.room.visibleSeq else {
            return emit(.respond(exchange, BoardAtRequest.ahead(seq, current: host.room.visibleSeq)))
        }
        emit(.respond(exchange, request.response(.board(host.room.published, time: nil))!))
    }

    /// The history of a board the store does not have: empty, when it is in memory.
    func historyNotStored(_ id: BoardID, exchange: ExchangeID) {
        guard let host = boards[id] else { return emit(.respond(exchange, Self.unknownBoard(id))) }
        emit(.respond(exchange, HistoryPageRequest.empty(current: host.room.visibleSeq)))
    }

    /// What the board as of a restore's `to` means for the restore: submitted again with that
    /// board, charged `ops` of its sender's op rate by its size; refused for `reason`; or not
    /// read (the store failed).
    enum RestoreRead {
        case submit(OpRequest, ops: Double)
        case refuse(RejectReason)
        case failed(StoreError)

        init(_ answer: Result<(BoardAsOf, bytes: Int), StoreError>, _ request: OpRequest, to: Seq) {
            switch answer {
            case .success((.board(let board, _), let bytes)):
                // A restore writes its whole board into the log and to every client: it is charged
                // against the sender's op rate by that size, as ops of up to 2 KiB each, so one editor
                // cannot grow the store (or everyone's traffic) faster by restoring than by editing.
                var request = request
                request.op = .restore(to: to, board: board)
                self = .submit(request, ops: Double(bytes) / Double(Hub.restoreBytesPerOp))
            case .success((.compacted, _)): self = .refuse(.compacted)
            case .success((.ahead, _)), .success((.unknownBoard, _)): self = .refuse(.invalid)
            case .failure(let error): self = .failed(error)
            }
        }
    }

    /// The board as of a restore's `to` came back: the restore is submitted again with it (and
    /// checked again: the board may have changed meanwhile), or refused. Nothing happens when
    /// its sender has left the board: an op nobody waits for is not committed.
    func restoreRead(
        _ answer: Result<(BoardAsOf, bytes: Int), StoreError>, board id: BoardID, user: UserID, request: OpRequest
    ) {
        if restOps[user] != nil { return restRestoreRead(answer, board: id, user: user, request: request) }
        guard let host = boards[id], let connection = host.connection(of: user),
            let session = sessions[connection], case .restore(let to, _) = request.op
        else { return }
        switch RestoreRead(answer, request, to: to) {
        case .submit(let restore, let ops):
            sessions.charge(session, ops: ops, now: now, stalled: stalled)
            let message = ClientMessage.op(restore)
            // Its token may have changed to a view token while the store was read.
            guard permits(session, message, on: host) else { return }
            perform(host.room.handle(message, from: user, now: now, wall: wall), on: host)
        case .refuse(let reason):
            perform(host.room.refuseRestore(request, reason: reason, from: user), on: host)
        case .failed(let error):
            log(.error, "reading board \(id) as of seq \(to) for a restore failed: \(error.message)")
            send(
                .error(
                    ProtocolError(
                        .unavailable, "the board as of seq \(to) could not be read; try again",
                        opID: request.opID.rawValue)), to: connection)
        }
    }

    /// The same for a restore sent over REST (`POST /api/boards/{id}/ops`): charged to its client
    /// address's bucket of REST ops, refused or committed as the room says, answered on its exchange.
    private func restRestoreRead(
        _ answer: Result<(BoardAsOf, bytes: Int), StoreError>, board id: BoardID, user: UserID, request: OpRequest
    ) {
        guard let waiting = restOps[user], case .restore(let to, _) = request.op else { return }
        guard let host = boards[id] else {
            restOps.finish(user, on: nil)
            return emit(.respond(waiting.exchange, Self.unknownBoard(id)))
        }
        switch RestoreRead(answer, request, to: to) {
        case .submit(let restore, let ops):
            addressState(waiting.peer).restOps.charge(ops, config.opRate, now: now, stalled: stalled)
            perform(host.room.submitDetached(restore, as: user, name: waiting.name, now: now, wall: wall), on: host)
        case .refuse(let reason):
            perform(host.room.refuseRestore(request, reason: reason, from: user), on: host)
        case .failed(let error):
            log(.error, "reading board \(id) as of seq \(to) for a restore over HTTP failed: \(error.message)")
            restOps.finish(user, on: host)
            emit(
                .respond(
                    waiting.exchange,
                    .error(503, "unavailable", "the board as of seq \(to) could not be read; try again")))
        }
        evictIfIdle(host)
    }
}
