internal import BoardCore
package import BoardHub
package import BoardStore

// What the reader thread does with each `StoreRead`: the hub describes a read (BoardHub's
// StoreRead.swift, History.swift) and how its answer is encoded; the reader (BoardServer's
// Reader.swift) asks the store here. Nothing in this module runs on the service thread.
//
// The hub's tests and its fuzz target (Tests/fuzz/run.sh compiles this module, no transport)
// answer reads with these same functions against a `MemoryStore`.

extension StoreRead {
    /// Asks `store` (a test's: what it can do is asked of its type here).
    package func run(on store: any BoardStore) -> StoreAnswer { run(on: StoreCapabilities(store)) }

    /// Asks the store, with what it can do besides reads (its cluster's leases, its revocations)
    /// as the server found it at start, and binds the answer to the read's reply. Runs on the
    /// reader thread, never on the service thread.
    package func run(on capabilities: StoreCapabilities) -> StoreAnswer {
        let store = capabilities.store
        switch self {
        case .load(let id, let settings, let reply):
            let room = Result { () throws(StoreError) in try loadRoom(id, settings, from: store) }
            return reply(room).noting(loaded(try? room.get()))
        case .snapshot(let id, let reply):
            return reply(Result { () throws(StoreError) in try store.load(id, recentLimit: 0) })
        case .exists(let id, let reply): return reply(Result { () throws(StoreError) in try store.exists(id) })
        case .list(let after, let limit, let reply):
            return reply(Result { () throws(StoreError) in try store.list(after: after, limit: limit) })
        case .opsPage(let request, let reply):
            return reply(Result { () throws(StoreError) in try request.run(on: store) })
        case .encodeSnapshot(let board, let seq, let clustered, let owner, let reply):
            return reply(.success(Hub.snapshot(board, seq: seq, clustered: clustered, owner: owner)))
        case .claim(let id, let settings, let force, let reply):
            let claimed = Result { () throws(StoreError) -> ClaimAnswer in
                guard let cluster = capabilities.cluster else { throw StoreError("claim needs a cluster store") }
                switch try cluster.claim(id, force: force) {
                case .owned(let node, let advertise): return .elsewhere(node: node, advertise: advertise)
                case .mine: return .mine(try loadRoom(id, settings, from: store))
                }
            }
            var room: Room?
            if case .success(.mine(let mine)) = claimed { room = mine }
            return reply(claimed).noting(loaded(room))
        case .nodes(let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let cluster = capabilities.cluster else { throw StoreError("nodes needs a cluster store") }
                    return try cluster.nodes()
                })
        case .snapshotAndOwner(let id, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let cluster = capabilities.cluster else {
                        throw StoreError("the owner needs a cluster store")
                    }
                    let owner = try cluster.owner(of: id)
                    return StoredBoardAndOwner(board: try store.load(id, recentLimit: 0), owner: owner)
                })
        case .revoke(let revocation, let now, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let revocations = capabilities.revocations else {
                        throw StoreError("this store keeps no revocations")
                    }
                    try revocations.revoke(revocation, now: now)
                    return revocation
                })
        case .revocations(let now, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let revocations = capabilities.revocations else { return RevocationSet() }
                    return RevocationSet(try revocations.revocations(now: now))
                })
        case .addLink(let link, let maximum, let now, let reply):
            return reply(
                Result { () throws(StoreError) in
                    try linkStore(capabilities).addLink(link, maximum: maximum, now: now)
                })
        case .links(let board, let now, let reply):
            return reply(Result { () throws(StoreError) in try linkStore(capabilities).links(of: board, now: now) })
        case .revokeLink(let id, let board, let now, let reply):
            return reply(
                Result { () throws(StoreError) in try linkStore(capabilities).revokeLink(id, of: board, now: now) })
        case .grant(let grant, let maximum, let known, let reply):
            return reply(
                Result { () throws(StoreError) in
                    try grantStore(capabilities).grant(grant, maximum: maximum, boardKnown: known)
                })
        case .removeGrant(let member, let board, let reply):
            return reply(
                Result { () throws(StoreError) in try grantStore(capabilities).removeGrant(of: member, on: board) })
        case .allGrants(let limit, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let grants = capabilities.grants else { return [] }
                    return try grants.allGrants(limit: limit)
                })
        case .addWebhook(let hook, let maximum, let reply):
            let added = Result { () throws(StoreError) in
                try webhookStore(capabilities).addWebhook(hook, maximum: maximum)
            }
            guard case .success(.added) = added else { return reply(added) }
            return reply(added).noting(.webhookChanged(hook.id))
        case .webhooks(let board, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard try store.exists(board) else { return nil }
                    return try webhookStore(capabilities).webhooks(of: board)
                })
        case .removeWebhook(let id, let board, let reply):
            let removed = Result { () throws(StoreError) in try webhookStore(capabilities).removeWebhook(id, of: board)
            }
            return reply(removed).noting(changed(removed))
        case .enableWebhook(let id, let board, let reply):
            let enabled = Result { () throws(StoreError) in try webhookStore(capabilities).enableWebhook(id, of: board)
            }
            return reply(enabled).noting(changed(enabled))
        case .boardAt(let id, let seq, let reply):
            return reply(
                Result { () throws(StoreError) in
                    let answer = try store.board(id, at: seq)
                    // Its size is what the restore costs the sender (`Hub.restoreRead`), measured here.
                    if case .board(let board, _) = answer { return (answer, bytes: board.encoded().count) }
                    return (answer, bytes: 0)
                })
        case .boardAtAnswer(let request, let reply):
            return reply(Result { () throws(StoreError) in try request.run(on: store) })
        case .historyPage(let request, let reply):
            return reply(Result { () throws(StoreError) in try request.run(on: store) })
        case .commentsPage(let request, let reply):
            return reply(Result { () throws(StoreError) in try request.run(on: store) })
        case .inbox(let member, let limit, let reply):
            return reply(
                Result { () throws(StoreError) in try inboxStore(capabilities).inbox(of: member, limit: limit).response
                })
        case .markRead(let member, let upTo, let reply):
            return reply(
                Result { () throws(StoreError) in
                    let unread = try inboxStore(capabilities).markRead(member, upTo: upTo)
                    return .json(200) { w in
                        w.beginObject()
                        w.write("unread", unread)
                        w.endObject()
                    }
                })
        case .notices(let after, let madeBefore, let limit, let reply):
            return reply(
                Result { () throws(StoreError) in
                    guard let inbox = capabilities.inbox else { return NoticeFeed(notices: [], latest: 0) }
                    return try inbox.notices(after: after, madeBefore: madeBefore, limit: limit)
                })
        case .search(let request, let reply):
            return reply(Result { () throws(StoreError) in try request.run(on: store) })
        case .encodeStreamReset(let board, let seq, let reply):
            return reply(.success(StreamEvent.reset(board, seq: seq).encoded()))
        case .parseTrello(let id, let bytes, let maxBoardBytes, let reply):
            return reply(
                .success(
                    Result { () throws(TrelloImport.Refusal) in
                        try TrelloImport(json: bytes, id: id, maxBoardBytes: maxBoardBytes)
                    }))
        case .export(let request, let reply):
            return reply(Result { () throws(StoreError) in request.response(try store.archive(of: request.board)) })
        }
    }
}

/// The board as stored, made into a room with up to `historyLimit` ops of history; nil when the
/// store has none.
private func loadRoom(_ id: BoardID, _ settings: Room.Settings, from store: any BoardStore) throws(StoreError) -> Room?
{
    let stored = try store.load(id, recentLimit: settings.historyLimit)
    return stored.map { Room(board: $0.board, seq: $0.seq, recent: $0.recent, settings: settings) }
}

/// What the transport learns of a board this node loaded: its webhooks go on from there.
private func loaded(_ room: Room?) -> StoreNote? {
    room.map { .loaded($0.id, $0.visibleSeq) }
}

/// What the transport learns of a webhook removed or enabled.
private func changed(_ hook: Result<Webhook?, StoreError>) -> StoreNote? {
    guard case .success(let hook?) = hook else { return nil }
    return .webhookChanged(hook.id)
}

/// The store's inboxes, or a failure saying it keeps none.
private func inboxStore(_ capabilities: StoreCapabilities) throws(StoreError) -> any InboxStore {
    guard let inbox = capabilities.inbox else { throw StoreError("this store keeps no inboxes") }
    return inbox
}

/// The store's webhooks, or a failure saying it keeps none.
private func webhookStore(_ capabilities: StoreCapabilities) throws(StoreError) -> any WebhookStore {
    guard let hooks = capabilities.webhooks else { throw StoreError("this store keeps no webhooks") }
    return hooks
}

/// The store's share links, or a failure saying it keeps none.
private func linkStore(_ capabilities: StoreCapabilities) throws(StoreError) -> any LinkStore {
    guard let links = capabilities.links else { throw StoreError("this store keeps no share links") }
    return links
}

extension OpsPageRequest {
    /// Reads the page in chunks of at most `chunk` ops, until it is full (by count or bytes) or
    /// the ops run out, and encodes it; nil for a board the store does not have.
    package func run(on store: any BoardStore, chunk: Int = 256) throws(StoreError) -> HTTPResponse? {
        let read = { (after: Seq, asked: Int) throws(StoreError) -> PageChunk<OpsPageEncoder> in
            let page = try store.ops(of: board, since: after, limit: asked)
            guard case .ops(let ops, let current) = page else {
                // Gone or unknown from the start; later (compacted or deleted meanwhile) the page ends.
                return .end(response(page))
            }
            return .ops(ops) { OpsPageEncoder(current: visible ?? current, maxBytes: maxBytes) }
        }
        return try readPage(limit: limit, chunk: chunk, from: since, read: read)
    }
}

extension HistoryPageRequest {
    /// Reads the page in chunks of at most `chunk` ops, newest first, until it is full (by
    /// count or bytes) or the ops run out, and encodes it; nil for a board the store does not have.
    package func run(on store: any BoardStore, chunk: Int = 256) throws(StoreError) -> HTTPResponse? {
        let before = self.before.map { min($0, (visible ?? .max - 1) + 1) } ?? (visible.map { $0 + 1 } ?? .max)
        let read = { (before: Seq, asked: Int) throws(StoreError) -> PageChunk<HistoryPageEncoder> in
            guard
                case .ops(let ops, let current, let oldest) = try store.history(of: board, before: before, limit: asked)
            else {
                // Unknown from the start; later (deleted meanwhile) the page ends.
                return .end(nil)
            }
            return .ops(ops) { HistoryPageEncoder(current: visible ?? current, oldest: oldest, maxBytes: maxBytes) }
        }
        return try readPage(limit: limit, chunk: chunk, from: before, read: read)
    }
}

extension BoardAtRequest {
    /// Reads the board as of `seq` and encodes the answer; nil for a board the store does not have.
    package func run(on store: any BoardStore) throws(StoreError) -> HTTPResponse? {
        if let visible, seq > visible { return Self.ahead(seq, current: visible) }
        return response(try store.board(board, at: seq))
    }
}

/// One chunk of a page as the store gave it.
private enum PageChunk<Encoder: PageEncoder> {
    /// Ops, and how to begin the page when they are its first.
    case ops([CommittedOp], begin: () -> Encoder)
    /// No ops: the page ends. What to answer when it has none (nil: the store has no such board).
    case end(HTTPResponse?)
}

/// The paging loop of `…/ops` and `…/history`: reads chunks of at most `chunk` ops with `read`
/// (from the cursor `start`, then from each chunk's last seq) until the page has `limit` ops, is
/// full by bytes, or the ops run out; a page whose first read ends is answered as that read says.
private func readPage<Encoder: PageEncoder>(
    limit: Int, chunk: Int, from start: Seq,
    read: (_ cursor: Seq, _ count: Int) throws(StoreError) -> PageChunk<Encoder>
) throws(StoreError) -> HTTPResponse? {
    var encoder: Encoder?
    var cursor = start
    while encoder.map({ !$0.full && $0.count < limit }) ?? true {
        let asked = min(chunk, limit - (encoder?.count ?? 0))
        switch try read(cursor, asked) {
        case .end(let empty):
            return encoder?.response() ?? empty
        case .ops(let ops, let begin):
            if encoder == nil { encoder = begin() }
            for op in ops where encoder!.add(op) {}
            guard ops.count == asked, let last = ops.last, encoder!.goesOn(after: last.seq) else {
                return encoder?.response()
            }
            cursor = last.seq
        }
    }
    return encoder?.response()
}

/// The store's grants, or a failure saying it keeps none.
private func grantStore(_ capabilities: StoreCapabilities) throws(StoreError) -> any GrantStore {
    guard let grants = capabilities.grants else { throw StoreError("this store keeps no grants") }
    return grants
}
