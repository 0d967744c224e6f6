internal import BoardCore
internal import BoardStore

// What waits for the store: work on a board that waits to learn whether the board exists
// (`Deferred`). What to do with each answer is the read's own `Reply` (StoreRead.swift).

/// Work on a board that waits for the store to say whether the board exists.
enum Deferred {
    /// A connection's `hello`.
    case join(ConnectionID)
    /// `POST /api/boards` with this board.
    case create(ExchangeID, Board)
    /// `DELETE /api/boards/{id}`.
    case delete(ExchangeID)
    /// `POST /api/boards/{id}/ops` (Hub+REST.swift).
    case op(ExchangeID, RESTOp.Pending)
    /// `GET /api/boards/{id}/events` (EventStreams.swift).
    case stream(ExchangeID)
    /// `GET /api/boards/{id}/members` (Hub+Members.swift), the request kept to relay in a cluster.
    case members(ExchangeID, HTTPRequest)
    /// `POST /api/boards/import/trello` with the board it makes (Hub+Transfer.swift).
    case importBoard(ExchangeID, TrelloImport)

    /// Whether the work needs the board loaded (not just known to exist).
    var needsBoard: Bool {
        switch self {
        case .join, .op, .stream, .members: true
        case .create, .delete, .importBoard: false
        }
    }
}
