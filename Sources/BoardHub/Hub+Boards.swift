internal import Basics
internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// The board directory: which boards are in memory, loading them, creating and deleting them.
///
/// Whether a board exists is the store's to say, and the store is read off the service thread.
/// Work that depends on the answer (a `hello`, a create, a delete) waits in `waiting`, in arrival
/// order, behind one read per board; when the answer comes, the work runs in that order as if
/// it had run at once, so two requests for one board never race each other through the store.
///
/// In a cluster the read is a claim of the board's lease (which loads the board when this node
/// gets it), and the answer may be that another node owns the board (Hub+Cluster.swift).
extension Hub {
    /// Runs `work` on `board` once the store has said whether the board exists.
    func defer_(_ work: Deferred, on board: BoardID) {
        guard boards.wait(work, on: board) else { return }
        if config.cluster != nil {
            // A board whose release is still queued is claimed once it is done (`released`).
            if !cluster.isReleasing(board) { claim(board, force: false) }
            return
        }
        // A join (an op, a stream) needs the whole board; create and delete only need to know it is there.
        if work.needsBoard {
            read(loadRequest(board))
        } else {
            read(.exists(board, Reply { $0.decided(board, $1.map { $0 ? .presentNotLoaded : .absent }) }))
        }
    }

    private func loadRequest(_ board: BoardID) -> StoreRead {
        .load(board, config.room, Reply { $0.decided(board, $1.map(BoardFound.init)) })
    }

    /// The store answered for `board`: run the work that waited, in order, as `BoardLoading`
    /// decides. `claim` is set when the read was a claim: when it was sent, and whether it was
    /// forced.
    func decided(_ board: BoardID, _ answer: Result<BoardFound, StoreError>, claim: (sent: Instant, force: Bool)? = nil)
    {
        guard var queue = boards.takeWaiting(board) else { return }
        var view: BoardLoading.View
        switch answer {
        case .success(.elsewhere(let node, let advertise)):
            return ownedElsewhere(board, by: node, advertise: advertise, queue: queue, forced: claim?.force ?? false)
        case .success(.loaded(let room)):
            boards.insert(BoardHost(room: room))
            view = .present
        case .success(.absent):
            view = .absent
        case .success(.presentNotLoaded):
            view = .presentNotLoaded
        case .failure(let error):
            log(.error, "reading board \(board) failed: \(error.message)")
            view = .failed
        }
        while let work = queue.first {
            let decision = BoardLoading.decide(work, view: view, board: loadingView(of: board), joiner: joiner(work))
            if case .loadFirst = decision {
                boards.waitAgain(queue, on: board)
                read(loadRequest(board))
                return
            }
            _ = queue.popFirst()
            view = view.after(decision, made: carryOut(decision, on: board))
        }
        if let claim, config.cluster != nil {
            if boards[board] != nil {
                // Held from the claim's sending for one lease at least; renewals extend it.
                cluster.claimed(board, sent: claim.sent, now: now)
            } else {
                // Claimed (or maybe claimed: a failed load) for nothing in memory.
                releaseLease(board)
            }
        }
        // The board may have been loaded for connections that are gone (or closing) by now.
        if let host = boards[board] { evictIfIdle(host) }
    }

    /// What a load, an existence check or a claim found of a board (each read's answer, as
    /// `decided` takes it).
    enum BoardFound {
        /// Loaded: the board's room.
        case loaded(Room)
        /// Stored, not loaded (an existence check).
        case presentNotLoaded
        /// Not stored.
        case absent
        /// In a cluster: another node owns the board.
        case elsewhere(node: String, advertise: String)

        /// A load's answer.
        init(_ room: Room?) { self = room.map(Self.loaded) ?? .absent }

        /// A claim's answer.
        init(_ claim: ClaimAnswer) {
            switch claim {
            case .mine(let room): self.init(room)
            case .elsewhere(let node, let advertise): self = .elsewhere(node: node, advertise: advertise)
            }
        }
    }

    /// What the hub has of `board` now, for `BoardLoading`.
    private func loadingView(of board: BoardID) -> BoardLoading.Board {
        BoardLoading.Board(
            id: board, inMemory: boards[board] != nil, deleting: isDeleting(board),
            createsOnHello: config.createBoards)
    }

    /// A join's connection's role while it is still joining; nil for other work.
    private func joiner(_ work: Deferred) -> Role? {
        guard case .join(let id) = work else { return nil }
        return sessions.joining(id)?.session.role
    }

    /// Carries out one of `BoardLoading`'s decisions; true when it made the board.
    private func carryOut(_ decision: BoardLoading.Decision, on board: BoardID) -> Bool {
        switch decision {
        case .loadFirst, .none: break
        case .join(let id):
            if let session = sessions[id], let host = boards[board] { join(session, host) }
        case .createAndJoin(let id):
            guard let session = sessions[id], mayCreate(for: session) else { return false }
            join(session, createFromTemplate(board))
            return true
        case .viewerMayNotCreate(let id):
            if let session = sessions[id] {
                log(.warning, "\(id) from \(session.peer) may only view; board \(board) does not exist")
            }
            failJoin(id, .unknownForViewer)
        case .failJoin(let id, let why): failJoin(id, why)
        case .respond(let exchange, let response): emit(.respond(exchange, response))
        case .create(let exchange, let made): create(made, answering: exchange)
        case .importBoard(let exchange, let made): importBoard(made, answering: exchange)
        case .delete(let exchange): delete(board, answering: exchange)
        case .submit(let exchange, let pending):
            if let host = boards[board] { submitREST(pending, on: host, exchange: exchange, evict: false) }
        case .members(let exchange):
            if let host = boards[board] { answerMembers(host, exchange: exchange) }
        case .openStream(let exchange):
            if let host = boards[board] { openStream(exchange, on: host) }
        case .refuseStream(let exchange, let response): streams.refuse(exchange, response)
        }
        return false
    }

    /// 404 `unknown_board`.
    static func unknownBoard(_ id: BoardID) -> HTTPResponse {
        .error(404, "unknown_board", "there is no board \(id)")
    }

    var storeFailed: HTTPResponse { BoardLoading.storeFailed }

    /// A new board from the default template, for a `hello` that named an unknown board. It is
    /// stored with its first op (see `BoardHost.unsaved`).
    private func createFromTemplate(_ id: BoardID) -> BoardHost {
        let host = BoardHost(room: makeRoom(board: config.defaultTemplate.board(id: id)), unsaved: true)
        boards.insert(host)
        log(.info, "created board \(id) from the \(config.defaultTemplate.rawValue) template")
        return host
    }

    /// A board from `POST /api/boards`; the 201 goes out once the creation is durable.
    func create(_ board: Board, answering exchange: ExchangeID) {
        boards.insert(BoardHost(room: makeRoom(board: board)))
        let ticket = makeTicket()
        emit(.persist(.create(board), ticket: ticket))
        let created = HTTPResponse.json(201) { w in
            w.beginObject()
            w.write("seq", 0)
            board.encode(into: &w, key: "board")
            w.endObject()
        }
        boards.pending.create(board.id, ticket: ticket, answer: (exchange, created))
        log(.info, "created board \(board.id) (\(board.items.count) items) over HTTP")
    }

    /// Deletes a board: everyone on it is closed with 4410; the 200 goes out once it is durable.
    func delete(_ id: BoardID, answering exchange: ExchangeID) {
        if let host = boards.remove(id) {
            streams.end(of: host, deleted: true)
            restOps.fail(on: host, .error(404, "unknown_board", "board \(id) was deleted"))
            for connection in host.members {
                closeSession(connection, code: 4410, reason: "board deleted", flush: true)
            }
        }
        access.removeGrants(of: id)  // The store deletes them with the board.
        let ticket = makeTicket()
        emit(.persist(.delete(id), ticket: ticket))
        let deleted = HTTPResponse.json(200) { w in
            w.beginObject()
            w.write("deleted", id.rawValue)
            w.endObject()
        }
        boards.pending.delete(id, ticket: ticket, answer: (exchange, deleted))
        log(.info, "deleting board \(id)")
    }
}
