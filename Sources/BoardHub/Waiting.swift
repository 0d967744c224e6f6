internal import BoardCore
internal import BoardStore

// What waits for the store: work on a board that waits to learn whether the board exists
// (`Deferred`), and what to do with each answer (`Continuation`, `HTTPRead`).

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

/// What to do with a store answer.
enum Continuation {
    /// The answer decides the waiting work on this board.
    case decide(BoardID)
    /// In a cluster: the answer to a claim sent at `sent` decides the waiting work on this board.
    case claimed(BoardID, sent: Instant, force: Bool)
    /// The answer completes an HTTP read.
    case http(ExchangeID, HTTPRead)
    /// The answer is the store's revocations (Access.swift).
    case revocations
    /// The answer is the store's grants (a cluster node's reload, Hub+Grants.swift).
    case grants
    /// The answer is the board as of a restore's `to`, for this user's restore (Hub+History.swift).
    case restore(BoardID, UserID, OpRequest)
    /// The answer is the board encoded as an event stream's `reset` (EventStreams.swift).
    case streamReset(BoardID)
    /// The answer is the notices stored since the last read (Hub+Inbox.swift).
    case notices
}

/// An HTTP request waiting for a read.
enum HTTPRead {
    case list(after: BoardID?, limit: Int)
    /// The list for a token of one board: that board, if it exists.
    case listOne(BoardID)
    case snapshot(BoardID)
    /// `GET /api/boards/{id}/ops`: the page comes encoded (or nil: the store has no such board).
    case ops(BoardID)
    /// `GET /api/boards/{id}?at=SEQ`: the answer comes encoded (or nil: the store has no such board).
    case at(BoardID, Seq)
    /// `GET /api/boards/{id}/history`: the page comes encoded (or nil: the store has no such board).
    case history(BoardID)
    /// `GET /api/boards/{id}/items/{item}/comments`: the page comes encoded (or nil: no such board stored).
    case comments(BoardID)
    /// The answer comes encoded (a snapshot).
    case encoded
    /// `GET /api/cluster`.
    case cluster
    /// `POST /api/revocations`: the revocation is stored once the answer comes.
    case revoke
    /// `/api/boards/{id}/links…` (Hub+Links.swift).
    case link(LinkRead)
    /// `/api/boards/{id}/members/{member}` (Hub+Grants.swift).
    case grant(GrantRead)
    /// `/api/boards/{id}/webhooks…` (Hub+Webhooks.swift).
    case webhook(WebhookRead)
    /// `POST /api/boards/import/trello?id=`: the export, parsed (Hub+Transfer.swift).
    case trello(BoardID)
    /// `GET /api/boards/{id}/export(.csv)`: the answer comes encoded (or nil: no such board).
    case export(BoardID)
    /// `GET /api/inbox`: the page comes encoded.
    case inbox
    /// `POST /api/inbox/read`: the read marks are stored once the answer comes.
    case inboxRead

    /// A write, which goes on when its client goes away: it was asked for.
    var writes: Bool {
        switch self {
        case .revoke, .link(.add), .link(.revoke), .inboxRead, .grant: true
        case .webhook(.add), .webhook(.remove), .webhook(.enable): true
        default: false
        }
    }
}
