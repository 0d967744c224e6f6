package import BoardCore
package import BoardStore

/// A question for the store, asked by the hub and answered off the service thread.
package enum StoreRead: Equatable, Sendable {
    /// The board, made into a `Room` on the reader thread (replaying up to `historyLimit` ops
    /// into its history is real work, and none of it should run on the service thread).
    case load(BoardID, Room.Settings)
    /// The board as stored, without its ops (for `GET /api/boards/{id}`).
    case snapshot(BoardID)
    /// Whether the store has the board.
    case exists(BoardID)
    /// A page of boards: up to `limit` with ids after `after`.
    case list(after: BoardID?, limit: Int)
    /// A page of a board's op log, encoded as `GET /api/boards/{id}/ops` answers it (a large
    /// page is megabytes of JSON: encoding it is no work for the service thread).
    case opsPage(OpsPageRequest)
    /// No question for the store: the board's snapshot as `GET /api/boards/{id}` answers it,
    /// encoded off the service thread (a large board is megabytes of JSON).
    case encodeSnapshot(Board, seq: Seq, clustered: Bool, owner: String?)
    /// In a cluster: claim the board's lease (`force`: even from a live owner) and, when this node
    /// holds it, load the board as `load` does.
    case claim(BoardID, Room.Settings, force: Bool)
    /// In a cluster: the nodes and how many boards each owns.
    case nodes
    /// In a cluster: the board as stored, as `snapshot` reads it, and the node holding its live lease.
    case snapshotAndOwner(BoardID)
    /// Store a revocation, forgetting those expired at `now` (seconds since 1970); a write, made
    /// off the service thread like every store call the hub asks for.
    case revoke(Revocation, now: Int64)
    /// The revocations in force at `now` (seconds since 1970).
    case revocations(now: Int64)
    /// Store a share link unless its board has `maximum` live ones (Hub+Links.swift): a write.
    case addLink(ShareLink, maximum: Int, now: Int64)
    /// A board's live share links.
    case links(BoardID, now: Int64)
    /// Remove a board's share link and revoke its token, in one transaction: a write.
    case revokeLink(String, of: BoardID, now: Int64)
    /// Store a member's grant on a board (Hub+Grants.swift): a write.
    case grant(MemberGrant, maximum: Int, boardKnown: Bool)
    /// Remove a member's grant on a board: a write.
    case removeGrant(MemberID, on: BoardID)
    /// Up to `limit` grants on stored boards (a cluster node's reload).
    case allGrants(limit: Int)
    /// Store a webhook unless its board has `maximum` or is not stored (Hub+Webhooks.swift): a write.
    case addWebhook(Webhook, maximum: Int)
    /// A board's webhooks.
    case webhooks(BoardID)
    /// Remove a board's webhook: a write.
    case removeWebhook(String, of: BoardID)
    /// Enable a board's webhook again: a write.
    case enableWebhook(String, of: BoardID)
    /// The board as it was right after op `seq`, for a restore.
    case boardAt(BoardID, Seq)
    /// `GET /api/boards/{id}?at=SEQ`: the board as of a seq, read and encoded off the service thread.
    case boardAtAnswer(BoardAtRequest)
    /// `GET /api/boards/{id}/history`: a page of ops, newest first, encoded off the service thread.
    case historyPage(HistoryPageRequest)
    /// `GET /api/boards/{id}/items/{item}/comments`: a page of comments, encoded off the service thread.
    case commentsPage(CommentsPageRequest)
    /// `GET /api/search`: the store's search index asked, the results encoded off the service thread.
    case search(SearchRequest)
    /// No question for the store: the board as an event stream's opening `event: reset` at
    /// `seq`, encoded off the service thread (EventStreams.swift).
    case encodeStreamReset(Board, seq: Seq)
    /// No question for the store: a Trello export (`POST /api/boards/import/trello`), parsed and
    /// mapped off the service thread (Hub+Transfer.swift).
    case parseTrello(BoardID, [UInt8], maxBoardBytes: Int)
    /// `GET /api/boards/{id}/export(.csv)`: the board's archive, read and encoded off the service thread.
    case export(ExportRequest)
    /// `GET /api/inbox`: the member's newest notices, encoded off the service thread (Hub+Inbox.swift).
    case inbox(MemberID, limit: Int)
    /// `POST /api/inbox/read`: mark the member's notices up to an id read (a write).
    case markRead(MemberID, upTo: Int64)
    /// The notices stored after an id, for connected clients (nil: only the greatest id of the
    /// notices made before `madeBefore`, ms since 1970: where a starting hub begins).
    case notices(after: Int64?, madeBefore: Int64, limit: Int)
}

extension StoreRead {
    /// Whether the read waits behind those that joins wait for: the reader runs a load, an
    /// existence check or a claim (a `hello`, a create, a delete, a REST op waits for it) before
    /// any history, page, list or snapshot read queued ahead of it, so that many of those (a
    /// client looping on `?at=`) never delay a join by more than the one read in progress.
    package var waitsBehindJoins: Bool {
        switch self {
        case .load, .exists, .claim, .revoke, .revocations, .encodeSnapshot, .encodeStreamReset: false
        case .addLink, .links, .revokeLink, .markRead, .notices, .grant, .removeGrant, .allGrants: false
        case .addWebhook, .webhooks, .removeWebhook, .enableWebhook: false
        case .snapshot, .list, .opsPage, .boardAt, .boardAtAnswer, .historyPage, .commentsPage, .nodes,
            .snapshotAndOwner, .parseTrello, .export, .inbox, .search:
            true
        }
    }
}

/// The store's answer to a `StoreRead`.
package enum StoreAnswer: Sendable {
    /// The answer to `load`: the board's room, or nil when the store has none.
    case room(Room?)
    /// The answer to `snapshot`: the board, or nil when the store has none.
    case board(StoredBoard?)
    /// The answer to `exists`.
    case exists(Bool)
    /// The answer to `list`.
    case list([BoardSummary])
    /// The answer to `opsPage`, `encodeSnapshot`, `boardAtAnswer` and `historyPage`: the HTTP
    /// answer, or nil when the store has no such board (the hub may have it in memory, not stored yet).
    case encoded(HTTPResponse?)
    /// The answer to `claim` when another node owns the board.
    case elsewhere(node: String, advertise: String)
    /// The answer to `nodes`.
    case nodes([ClusterNode])
    /// The answer to `snapshotAndOwner`.
    case boardAndOwner(StoredBoard?, owner: String?)
    /// The answer to `revoke`: it is durable.
    case revoked(Revocation)
    /// The answer to `revocations`, made into a set on the reader thread.
    case revocations(RevocationSet)
    /// The answer to `addLink`.
    case linkAdded(LinkAddition)
    /// The answer to `links`: nil when there is no such board.
    case links([ShareLink]?)
    /// The answer to `revokeLink`: the link removed and revoked, or nil when there was none.
    case linkRevoked(ShareLink?)
    /// The answer to `grant`.
    case granted(GrantOutcome)
    /// The answer to `removeGrant`: the grant removed, or nil when there was none.
    case grantRemoved(MemberGrant?)
    /// The answer to `allGrants`.
    case grants([MemberGrant])
    /// The answer to `addWebhook`: what the store did, and the webhook.
    case webhookAdded(WebhookAdded, Webhook)
    /// The answer to `webhooks`: nil when the store has no such board.
    case webhooks([Webhook]?)
    /// The answer to `removeWebhook` and `enableWebhook`: the webhook, or nil when there was none.
    case webhookChanged(Webhook?)
    /// The answer to `boardAt`, and the board's size as JSON (0 when there is none).
    case boardAsOf(BoardAsOf, bytes: Int)
    /// The answer to `encodeStreamReset`: the event's bytes.
    case streamReset(seq: Seq, bytes: [UInt8])
    /// The answer to `parseTrello`: the board to make, or why not.
    case trello(Result<TrelloImport, TrelloImport.Refusal>)
    /// The answer to `notices`.
    case notices(NoticeFeed)
    /// The store failed.
    case failed(StoreError)
}

/// What `GET /api/boards/{id}/ops` asks of the store, and how its page is cut.
package struct OpsPageRequest: Equatable, Sendable {
    /// The board.
    package var board: BoardID
    /// The ops after this seq.
    package var since: Seq
    /// At most this many ops.
    package var limit: Int
    /// The board's published seq when it is in memory (ops after it are not visible yet, though
    /// they may be stored); nil: the store's seq is the board's.
    package var visible: Seq?
    /// The page stops before the op that would take its body past this many bytes (one op is
    /// always on it), and says where to go on (`--max-page-bytes`).
    package var maxBytes: Int

    /// A request.
    package init(board: BoardID, since: Seq, limit: Int, visible: Seq?, maxBytes: Int) {
        self.board = board
        self.since = since
        self.limit = limit
        self.visible = visible
        self.maxBytes = maxBytes
    }

    /// The answer to `page` (all of it read): `{"seq", "ops", "more"}` and, with more to come,
    /// `"next"` (the `since` of the next page); 410 when ops were compacted away; nil for a board
    /// the store does not have.
    package func response(_ page: OpsPage) -> HTTPResponse? {
        switch page {
        case .gone:
            return .error(410, "gone", "ops after \(since) were compacted away; load the board snapshot instead")
        case .unknownBoard:
            return nil
        case .ops(let stored, let storedSeq):
            var encoder = OpsPageEncoder(current: visible ?? storedSeq, maxBytes: maxBytes)
            for op in stored.prefix(limit) where encoder.add(op) {}
            return encoder.response()
        }
    }
}

/// A page of ops (`GET /api/boards/{id}/ops`, `…/history`) written as its ops are read, in the
/// chunks the reader's one paging loop (BoardReads' `StoreRead+Run.swift`) fetches.
package protocol PageEncoder {
    /// The ops on the page so far.
    var count: Int { get }
    /// True once an op did not fit: the page is done.
    var full: Bool { get }
    /// Takes `op` when it fits; returns false when it did not (then the page may be `full`).
    mutating func add(_ op: CommittedOp) -> Bool
    /// Whether ops read after the op `seq` may still go on the page.
    func goesOn(after seq: Seq) -> Bool
    /// The page as its HTTP answer.
    func response() -> HTTPResponse
}

extension PageEncoder {
    /// Every op the store has may go on the page (until it is full).
    package func goesOn(after seq: Seq) -> Bool { true }
}

/// Writes a page of ops as it is read: stops taking ops once the next would take the body past
/// `maxBytes` (the first is always taken), or once they pass the board's current seq.
package struct OpsPageEncoder: PageEncoder {
    /// The board's seq the page is of: later ops are not on it.
    let current: Seq
    let maxBytes: Int
    private var w = JSONWriter()
    package private(set) var count = 0
    package private(set) var full = false
    private var last: Seq?

    /// An empty page of the board at `current`.
    package init(current: Seq, maxBytes: Int) {
        self.current = current
        self.maxBytes = maxBytes
        w.beginObject()
        w.write("seq", current)
        w.beginArray("ops")
    }

    /// Takes `op` when it fits; returns false once the page is full or `op` is past `current`.
    package mutating func add(_ op: CommittedOp) -> Bool {
        guard !full, op.seq <= current else { return false }
        let encoded = ServerMessage.committed(op).encoded()
        // 64 bytes for what follows the ops: `],"more":false,"next":N}`.
        if last != nil && w.bytes.count + 1 + encoded.count + 64 > maxBytes {
            full = true
            return false
        }
        w.writeRaw(nil, encoded)
        count += 1
        last = op.seq
        return true
    }

    /// Ops after `seq` may still be on the page while they are published.
    package func goesOn(after seq: Seq) -> Bool { seq < current }

    /// The answer, with `more` (and `next`) when ops after the last one are published.
    package func response() -> HTTPResponse {
        var w = w
        w.endArray()
        let more = last.map { $0 < current } ?? false
        w.write("more", more)
        if more, let last { w.write("next", last) }
        w.endObject()
        return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
    }
}
