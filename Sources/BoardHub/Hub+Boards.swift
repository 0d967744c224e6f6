internal import Basics
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

    /// The store answered for `board`: run the work that waited, in order. `claim` is set when
    /// the read was a claim: when it was sent, and whether it was forced.
    func decided(_ board: BoardID, _ answer: Result<BoardFound, StoreError>, claim: (sent: Instant, force: Bool)? = nil)
    {
        guard var queue = boards.takeWaiting(board) else { return }
        var view: StoreView
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
            if work.needsBoard, view == .presentNotLoaded {
                // Only its existence was read; a join needs the board itself.
                boards.waitAgain(queue, on: board)
                read(loadRequest(board))
                return
            }
            _ = queue.popFirst()
            run(work, on: board, view: &view)
        }
        if let claim, config.cluster != nil {
            if let host = boards[board] {
                // Held from the claim's sending for one lease at least; renewals extend it.
                host.lease = LeaseView(until: claim.sent + timers.lease, claimAnswered: now)
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

    /// What the store said of a board whose work is being run.
    enum StoreView {
        case present, presentNotLoaded, absent, failed
    }

    private func run(_ work: Deferred, on board: BoardID, view: inout StoreView) {
        switch work {
        case .join(let id):
            guard let session = sessions.joining(id)?.session else { return }
            if isDeleting(board) { return failJoin(id, .deleted) }
            if let host = boards[board] { return join(session, host) }
            switch view {
            case .absent where config.createBoards && session.role >= .edit:
                guard mayCreate(for: session) else { return }
                let host = createFromTemplate(board)
                view = .present
                join(session, host)
            case .absent where config.createBoards:
                // Viewing never creates: a `view` token's hello would otherwise make the board (and
                // squat its id, so that an admin's create of it gets 409).
                log(.warning, "\(id) from \(session.peer) may only view; board \(board) does not exist")
                failJoin(id, .unknownForViewer)
            case .absent: failJoin(id, .unknown)
            case .failed: failJoin(id, .unavailable)
            case .present, .presentNotLoaded: failJoin(id, .unavailable)  // Not reached: loaded above.
            }
        case .create(let exchange, let definition):
            if isDeleting(board) {
                return emit(
                    .respond(
                        exchange,
                        .error(409, "deleting", "board \(board) is being deleted; make it again in a moment")))
            }
            if boards[board] != nil || view == .present || view == .presentNotLoaded {
                return emit(.respond(exchange, .error(409, "exists", "board \(board) already exists")))
            }
            if view == .failed { return emit(.respond(exchange, storeFailed)) }
            create(definition, answering: exchange)
            view = .present
        case .importBoard(let exchange, let made):
            if boards[board] != nil || isDeleting(board) || view == .present || view == .presentNotLoaded {
                return emit(.respond(exchange, .error(409, "exists", "board \(board) already exists")))
            }
            if view == .failed { return emit(.respond(exchange, storeFailed)) }
            importBoard(made, answering: exchange)
            view = .present
        case .delete(let exchange):
            if isDeleting(board) {
                return emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(board)")))
            }
            if boards[board] == nil {
                switch view {
                case .absent:
                    return emit(.respond(exchange, .error(404, "unknown_board", "there is no board \(board)")))
                case .failed: return emit(.respond(exchange, storeFailed))
                case .present, .presentNotLoaded: break
                }
            }
            delete(board, answering: exchange)
            view = .absent
        case .op(let exchange, let pending):
            guard let host = boards[board], !isDeleting(board) else {
                return emit(.respond(exchange, view == .failed ? storeFailed : Self.unknownBoard(board)))
            }
            submitREST(pending, on: host, exchange: exchange, evict: false)
        case .members(let exchange, _):
            guard let host = boards[board], !isDeleting(board) else {
                return emit(.respond(exchange, view == .failed ? storeFailed : Self.unknownBoard(board)))
            }
            answerMembers(host, exchange: exchange)
        case .stream(let exchange):
            guard let host = boards[board], !isDeleting(board) else {
                return streams.refuse(exchange, view == .failed ? storeFailed : Self.unknownBoard(board))
            }
            streams.open(exchange, on: host)
        }
    }

    /// 404 `unknown_board`.
    static func unknownBoard(_ id: BoardID) -> HTTPResponse {
        .error(404, "unknown_board", "there is no board \(id)")
    }

    var storeFailed: HTTPResponse { .error(503, "unavailable", "the store failed; try again") }

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
            restOps.fail(on: id, .error(404, "unknown_board", "board \(id) was deleted"))
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
