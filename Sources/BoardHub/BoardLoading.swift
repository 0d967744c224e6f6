internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// The rules for work that waited for the store's word on a board: what each piece of work
/// (`Deferred`: a `hello`, a create, an import, a delete, a REST op, a members list, an event
/// stream) comes to, given what the store said and what the hub has of the board now. The
/// decisions come back as values (`Decision`) that the hub carries out in order
/// (Hub+Boards.swift); tested alone in `BoardLoadingTests`.
///
/// The work runs in arrival order, each piece as if it had run at once, so it also sees what the
/// pieces before it did: a create makes the board present for a delete behind it, a delete makes
/// it absent for a create behind it (`View.after`).
///
/// It keeps no state of its own: what it needs is passed in.
enum BoardLoading {
    /// What the store said of the board, as the work behind the read sees it.
    enum View: Equatable {
        /// Stored, and loaded into memory (or made by work before this one).
        case present
        /// Stored, not loaded: only its existence was read.
        case presentNotLoaded
        /// Not stored.
        case absent
        /// The store failed to say.
        case failed

        /// The view for the work after `decision` was carried out (`made`: a board was made
        /// for it).
        func after(_ decision: Decision, made: Bool) -> View {
            switch decision {
            case .create, .importBoard: .present
            case .createAndJoin: made ? .present : self
            case .delete: .absent
            default: self
            }
        }
    }

    /// What the hub has of the board while the work runs.
    struct Board: Equatable {
        /// The board's id.
        var id: BoardID
        /// The board is in memory.
        var inMemory: Bool
        /// Its deletion is not durable yet.
        var deleting: Bool
        /// `hello` on an unknown board makes it from the default template (`Config.createBoards`).
        var createsOnHello: Bool
    }

    /// What the hub does for one piece of work.
    enum Decision {
        /// Only the board's existence was read, and this work needs the board: it waits again
        /// (with everything behind it) for a load.
        case loadFirst
        /// Nothing: the joining connection is gone, or is no longer joining.
        case none
        /// The board is in memory: the connection joins it.
        case join(ConnectionID)
        /// No such board, and the connection may edit: make it from the default template (if its
        /// address may make boards now), then join it.
        case createAndJoin(ConnectionID)
        /// No such board for a connection that may only view: viewing never makes a board (a view
        /// token's hello would otherwise squat the id, so that an admin's create of it gets 409).
        case viewerMayNotCreate(ConnectionID)
        /// The connection does not get the board.
        case failJoin(ConnectionID, BoardAbsence)
        /// Answer the request now.
        case respond(ExchangeID, HTTPResponse)
        /// Make the board (`POST /api/boards`).
        case create(ExchangeID, BoardCore.Board)
        /// Make the board a Trello import built.
        case importBoard(ExchangeID, TrelloImport)
        /// Delete the board.
        case delete(ExchangeID)
        /// Submit the REST op to the board in memory.
        case submit(ExchangeID, RESTOp.Pending)
        /// Answer the members list from the board in memory.
        case members(ExchangeID)
        /// Open the event stream on the board in memory.
        case openStream(ExchangeID)
        /// Refuse the event stream with this answer.
        case refuseStream(ExchangeID, HTTPResponse)
    }

    /// What `work` comes to. `view`: what the store said, after the work before it; `board`: what
    /// the hub has of it now; `joiner`: for a join, the role of its connection while it is still
    /// joining (nil once it is gone or no longer joining).
    static func decide(_ work: Deferred, view: View, board: Board, joiner: Role?) -> Decision {
        if work.needsBoard, view == .presentNotLoaded { return .loadFirst }
        switch work {
        case .join(let id):
            guard let role = joiner else { return .none }
            if board.deleting { return .failJoin(id, .deleted) }
            if board.inMemory { return .join(id) }
            switch view {
            case .absent where board.createsOnHello: return role >= .edit ? .createAndJoin(id) : .viewerMayNotCreate(id)
            case .absent: return .failJoin(id, .unknown)
            // `.present` and `.presentNotLoaded` without the board in memory: a failed load.
            case .failed, .present, .presentNotLoaded: return .failJoin(id, .unavailable)
            }
        case .create(let exchange, let made):
            if board.deleting {
                return .respond(
                    exchange, .error(409, "deleting", "board \(board.id) is being deleted; make it again in a moment"))
            }
            if board.inMemory || view == .present || view == .presentNotLoaded {
                return .respond(exchange, .error(409, "exists", "board \(board.id) already exists"))
            }
            return view == .failed ? .respond(exchange, storeFailed) : .create(exchange, made)
        case .importBoard(let exchange, let made):
            if board.inMemory || board.deleting || view == .present || view == .presentNotLoaded {
                return .respond(exchange, .error(409, "exists", "board \(board.id) already exists"))
            }
            return view == .failed ? .respond(exchange, storeFailed) : .importBoard(exchange, made)
        case .delete(let exchange):
            if board.deleting { return .respond(exchange, Hub.unknownBoard(board.id)) }
            if !board.inMemory {
                switch view {
                case .absent: return .respond(exchange, Hub.unknownBoard(board.id))
                case .failed: return .respond(exchange, storeFailed)
                case .present, .presentNotLoaded: break
                }
            }
            return .delete(exchange)
        case .op(let exchange, let pending):
            guard board.inMemory, !board.deleting else { return .respond(exchange, absent(board.id, view)) }
            return .submit(exchange, pending)
        case .members(let exchange, _):
            guard board.inMemory, !board.deleting else { return .respond(exchange, absent(board.id, view)) }
            return .members(exchange)
        case .stream(let exchange):
            guard board.inMemory, !board.deleting else { return .refuseStream(exchange, absent(board.id, view)) }
            return .openStream(exchange)
        }
    }

    /// 503 `unavailable`: the store failed.
    static let storeFailed = HTTPResponse.error(503, "unavailable", "the store failed; try again")

    /// 503 when the store failed, 404 `unknown_board` otherwise.
    private static func absent(_ id: BoardID, _ view: View) -> HTTPResponse {
        view == .failed ? storeFailed : Hub.unknownBoard(id)
    }
}
