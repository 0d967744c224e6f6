package import BoardCore
package import BoardStore

/// A question for the store, asked by the hub and answered off the service thread, with where
/// its answer goes: each read carries a `Reply` typed by what that read answers, so the code that
/// takes an answer gets exactly its type (no union of answers, no "cannot happen" arm). The
/// reader (BoardReads' StoreRead+Run.swift) runs the read and hands back the reply bound to its
/// answer (`StoreAnswer`); the hub applies it when `.answered` comes.
package enum StoreRead: Equatable, Sendable {
    /// The board, made into a `Room` on the reader thread (replaying up to `historyLimit` ops
    /// into its history is real work, and none of it should run on the service thread); nil when
    /// the store has none.
    case load(BoardID, Room.Settings, Reply<Room?>)
    /// The board as stored, without its ops (for `GET /api/boards/{id}`); nil when the store has none.
    case snapshot(BoardID, Reply<StoredBoard?>)
    /// Whether the store has the board.
    case exists(BoardID, Reply<Bool>)
    /// A page of boards: up to `limit` with ids after `after`.
    case list(after: BoardID?, limit: Int, Reply<[BoardSummary]>)
    /// A page of a board's op log, encoded as `GET /api/boards/{id}/ops` answers it (a large
    /// page is megabytes of JSON: encoding it is no work for the service thread); nil for a board
    /// the store does not have (the hub may have it in memory, not stored yet).
    case opsPage(OpsPageRequest, Reply<HTTPResponse?>)
    /// No question for the store: the board's snapshot as `GET /api/boards/{id}` answers it,
    /// encoded off the service thread (a large board is megabytes of JSON).
    case encodeSnapshot(Board, seq: Seq, clustered: Bool, owner: String?, Reply<HTTPResponse>)
    /// In a cluster: claim the board's lease (`force`: even from a live owner) and, when this node
    /// holds it, load the board as `load` does.
    case claim(BoardID, Room.Settings, force: Bool, Reply<ClaimAnswer>)
    /// In a cluster: the nodes and how many boards each owns.
    case nodes(Reply<[ClusterNode]>)
    /// In a cluster: the board as stored, as `snapshot` reads it, and the node holding its live lease.
    case snapshotAndOwner(BoardID, Reply<StoredBoardAndOwner>)
    /// Store a revocation, forgetting those expired at `now` (seconds since 1970); a write, made
    /// off the service thread like every store call the hub asks for. Answered once it is durable.
    case revoke(Revocation, now: Int64, Reply<Revocation>)
    /// The revocations in force at `now` (seconds since 1970), made into a set on the reader thread.
    case revocations(now: Int64, Reply<RevocationSet>)
    /// Store a share link unless its board has `maximum` live ones (Hub+Links.swift): a write.
    case addLink(ShareLink, maximum: Int, now: Int64, Reply<LinkAddition>)
    /// A board's live share links; nil when there is no such board.
    case links(BoardID, now: Int64, Reply<[ShareLink]?>)
    /// Remove a board's share link and revoke its token, in one transaction: a write. The link
    /// removed, or nil when there was none.
    case revokeLink(String, of: BoardID, now: Int64, Reply<ShareLink?>)
    /// Store a member's grant on a board (Hub+Grants.swift): a write.
    case grant(MemberGrant, maximum: Int, boardKnown: Bool, Reply<GrantOutcome>)
    /// Remove a member's grant on a board: a write. The grant removed, or nil when there was none.
    case removeGrant(MemberID, on: BoardID, Reply<MemberGrant?>)
    /// Up to `limit` grants on stored boards (a cluster node's reload).
    case allGrants(limit: Int, Reply<[MemberGrant]>)
    /// Store a webhook unless its board has `maximum` or is not stored (Hub+Webhooks.swift): a write.
    case addWebhook(Webhook, maximum: Int, Reply<WebhookAdded>)
    /// A board's webhooks; nil when the store has no such board.
    case webhooks(BoardID, Reply<[Webhook]?>)
    /// Remove a board's webhook: a write. The webhook, or nil when there was none.
    case removeWebhook(String, of: BoardID, Reply<Webhook?>)
    /// Enable a board's webhook again: a write. The webhook, or nil when there was none.
    case enableWebhook(String, of: BoardID, Reply<Webhook?>)
    /// The board as it was right after op `seq`, for a restore, with its size as JSON (0 when
    /// there is none), measured on the reader thread (what the restore costs its sender).
    case boardAt(BoardID, Seq, Reply<(BoardAsOf, bytes: Int)>)
    /// `GET /api/boards/{id}?at=SEQ`: the board as of a seq, read and encoded off the service
    /// thread; nil when the store has no such board.
    case boardAtAnswer(BoardAtRequest, Reply<HTTPResponse?>)
    /// `GET /api/boards/{id}/history`: a page of ops, newest first, encoded off the service
    /// thread; nil when the store has no such board.
    case historyPage(HistoryPageRequest, Reply<HTTPResponse?>)
    /// `GET /api/boards/{id}/items/{item}/comments`: a page of comments, encoded off the service
    /// thread; nil when the store has no such board.
    case commentsPage(CommentsPageRequest, Reply<HTTPResponse?>)
    /// `GET /api/search`: the store's search index asked, the results encoded off the service thread.
    case search(SearchRequest, Reply<HTTPResponse>)
    /// No question for the store: the board as an event stream's opening `event: reset` at
    /// `seq`, encoded off the service thread (EventStreams.swift): the event's bytes.
    case encodeStreamReset(Board, seq: Seq, Reply<[UInt8]>)
    /// No question for the store: a Trello export (`POST /api/boards/import/trello`), parsed and
    /// mapped off the service thread (Hub+Transfer.swift): the board to make, or why not.
    case parseTrello(BoardID, [UInt8], maxBoardBytes: Int, Reply<Result<TrelloImport, TrelloImport.Refusal>>)
    /// `GET /api/boards/{id}/export(.csv)`: the board's archive, read and encoded off the service
    /// thread; nil when the store has no such board.
    case export(ExportRequest, Reply<HTTPResponse?>)
    /// `GET /api/inbox`: the member's newest notices, encoded off the service thread (Hub+Inbox.swift).
    case inbox(MemberID, limit: Int, Reply<HTTPResponse>)
    /// `POST /api/inbox/read`: mark the member's notices up to an id read (a write); the answer encoded.
    case markRead(MemberID, upTo: Int64, Reply<HTTPResponse>)
    /// The notices stored after an id, for connected clients (nil: only the greatest id of the
    /// notices made before `madeBefore`, ms since 1970: where a starting hub begins).
    case notices(after: Int64?, madeBefore: Int64, limit: Int, Reply<NoticeFeed>)
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

    /// Whether the read asks nothing of the store (only encodes): the transport runs it on its
    /// encoder thread, so that no join waits behind megabytes of JSON.
    package var encodesOnly: Bool {
        switch self {
        case .encodeSnapshot, .encodeStreamReset: true
        default: false
        }
    }

    /// A write, which goes on when the client it answers goes away: it was asked for, and it
    /// holds whether or not its client hears of it (`StoreReads.abandon`).
    var writes: Bool {
        switch self {
        case .revoke, .addLink, .revokeLink, .markRead, .grant, .removeGrant, .addWebhook, .removeWebhook,
            .enableWebhook:
            true
        default: false
        }
    }

    /// The answer that the store failed with `error` (a fuzzer's or a test's failing store).
    package func failed(_ error: StoreError) -> StoreAnswer {
        switch self {
        case .load(_, _, let reply): reply(.failure(error))
        case .snapshot(_, let reply): reply(.failure(error))
        case .exists(_, let reply): reply(.failure(error))
        case .list(_, _, let reply): reply(.failure(error))
        case .opsPage(_, let reply): reply(.failure(error))
        case .encodeSnapshot(_, _, _, _, let reply): reply(.failure(error))
        case .claim(_, _, _, let reply): reply(.failure(error))
        case .nodes(let reply): reply(.failure(error))
        case .snapshotAndOwner(_, let reply): reply(.failure(error))
        case .revoke(_, _, let reply): reply(.failure(error))
        case .revocations(_, let reply): reply(.failure(error))
        case .addLink(_, _, _, let reply): reply(.failure(error))
        case .links(_, _, let reply): reply(.failure(error))
        case .revokeLink(_, _, _, let reply): reply(.failure(error))
        case .grant(_, _, _, let reply): reply(.failure(error))
        case .removeGrant(_, _, let reply): reply(.failure(error))
        case .allGrants(_, let reply): reply(.failure(error))
        case .addWebhook(_, _, let reply): reply(.failure(error))
        case .webhooks(_, let reply): reply(.failure(error))
        case .removeWebhook(_, _, let reply): reply(.failure(error))
        case .enableWebhook(_, _, let reply): reply(.failure(error))
        case .boardAt(_, _, let reply): reply(.failure(error))
        case .boardAtAnswer(_, let reply): reply(.failure(error))
        case .historyPage(_, let reply): reply(.failure(error))
        case .commentsPage(_, let reply): reply(.failure(error))
        case .search(_, let reply): reply(.failure(error))
        case .encodeStreamReset(_, _, let reply): reply(.failure(error))
        case .parseTrello(_, _, _, let reply): reply(.failure(error))
        case .export(_, let reply): reply(.failure(error))
        case .inbox(_, _, let reply): reply(.failure(error))
        case .markRead(_, _, let reply): reply(.failure(error))
        case .notices(_, _, _, let reply): reply(.failure(error))
        }
    }
}

/// Where a read's answer goes, typed by the read: what the hub does with an `Answer` (or the
/// store's failure), on the service thread, once the answer is back (`Hub.Event.answered`).
package struct Reply<Answer: Sendable>: Sendable, Equatable {
    /// Called with the hub, the read's id and the answer. Captures only values (ids, routes).
    private let deliver: @Sendable (Hub, ReadID, Result<Answer, StoreError>) -> Void

    /// A reply that does `deliver` with the hub and the answer.
    package init(_ deliver: @escaping @Sendable (Hub, Result<Answer, StoreError>) -> Void) {
        self.deliver = { hub, _, result in deliver(hub, result) }
    }

    /// A reply that needs the read's id too (to tell its answer from a later read's).
    init(naming deliver: @escaping @Sendable (Hub, ReadID, Result<Answer, StoreError>) -> Void) {
        self.deliver = deliver
    }

    /// The answer (or the store's failure), bound to where it goes: what the reader hands back.
    package func callAsFunction(_ result: Result<Answer, StoreError>) -> StoreAnswer {
        StoreAnswer { hub, id in deliver(hub, id, result) }
    }

    /// Replies are not compared: two reads are equal when they ask the same (where an answer
    /// goes is a closure, and says nothing of what is asked).
    package static func == (lhs: Self, rhs: Self) -> Bool { true }
}

/// A read's answer bound to where it goes (`Reply`): the event `.answered` carries it back to
/// the hub, which applies it if the read is still wanted.
package struct StoreAnswer: Sendable {
    private let deliver: @Sendable (Hub, ReadID) -> Void
    /// What the transport learns of the answer on its way (Service+Webhooks.swift).
    package private(set) var note: StoreNote?

    fileprivate init(_ deliver: @escaping @Sendable (Hub, ReadID) -> Void) { self.deliver = deliver }

    /// The same answer, with what the transport learns of it.
    package func noting(_ note: StoreNote?) -> StoreAnswer {
        var answer = self
        answer.note = note
        return answer
    }

    /// Does what the read's reply says with it (the hub, on the service thread).
    func apply(to hub: Hub, read: ReadID) { deliver(hub, read) }
}

/// What the transport learns of a store answer on its way to the hub.
package enum StoreNote: Equatable, Sendable {
    /// A webhook was added, removed or enabled: its delivery machine starts, stops or starts again.
    case webhookChanged(String)
    /// This node loaded (in a cluster: claimed) the board at this seq.
    case loaded(BoardID, Seq)
}

/// The answer to `claim`.
package enum ClaimAnswer: Sendable {
    /// This node holds the lease: the board as `load` answers it (nil: the store has none).
    case mine(Room?)
    /// Another node owns the board.
    case elsewhere(node: String, advertise: String)
}

/// The answer to `snapshotAndOwner`.
package struct StoredBoardAndOwner: Sendable {
    /// The board as stored, or nil.
    package var board: StoredBoard?
    /// The node holding its live lease, or nil.
    package var owner: String?

    /// An answer.
    package init(board: StoredBoard?, owner: String?) {
        self.board = board
        self.owner = owner
    }
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
    private var body: PageBody
    package var count: Int { body.count }
    package var full: Bool { body.full }

    /// An empty page of the board at `current`.
    package init(current: Seq, maxBytes: Int) {
        self.current = current
        body = PageBody(seq: current, array: "ops", maxBytes: maxBytes)
    }

    /// Takes `op` when it fits; returns false once the page is full or `op` is past `current`.
    package mutating func add(_ op: CommittedOp) -> Bool {
        guard !body.full, op.seq <= current else { return false }
        return body.take(ServerMessage.committed(op).encoded(), seq: op.seq)
    }

    /// Ops after `seq` may still be on the page while they are published.
    package func goesOn(after seq: Seq) -> Bool { seq < current }

    /// The answer, with `more` (and `next`) when ops after the last one are published.
    package func response() -> HTTPResponse { body.response(more: body.last.map { $0 < current } ?? false) }
}

/// The JSON body of a page of ops (`OpsPageEncoder`, `HistoryPageEncoder`) as it is written:
/// `{"seq":N[,"oldest":N],"ARRAY":[…],"more":B[,"next":N]}`, its entries cut once the next would
/// take the body past `maxBytes` (the first is always taken).
struct PageBody {
    let maxBytes: Int
    private var w = JSONWriter()
    /// The entries taken.
    private(set) var count = 0
    /// True once an entry did not fit.
    private(set) var full = false
    /// The seq of the last entry taken.
    private(set) var last: Seq?

    /// An empty page of the board at `seq`, its entries in the array `array`.
    init(seq: Seq, oldest: Seq? = nil, array: String, maxBytes: Int) {
        self.maxBytes = maxBytes
        w.beginObject()
        w.write("seq", seq)
        if let oldest { w.write("oldest", oldest) }
        w.beginArray(array)
    }

    /// Takes the entry of the op `seq` when it fits; returns false, and is `full`, when it does not.
    mutating func take(_ entry: [UInt8], seq: Seq) -> Bool {
        // 64 bytes for what follows the entries: `],"more":false,"next":N}`.
        if last != nil && w.bytes.count + 1 + entry.count + 64 > maxBytes {
            full = true
            return false
        }
        w.writeRaw(nil, entry)
        count += 1
        last = seq
        return true
    }

    /// The answer: the body closed with `more`, and with `next` (the last entry's seq) when more.
    func response(more: Bool) -> HTTPResponse {
        var w = w
        w.endArray()
        w.write("more", more)
        if more, let last { w.write("next", last) }
        w.endObject()
        return HTTPResponse(status: 200, contentType: "application/json", body: w.bytes)
    }
}
