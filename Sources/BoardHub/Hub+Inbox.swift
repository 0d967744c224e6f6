internal import BoardAuth
internal import BoardCore
package import BoardStore

// The inbox (issue 34): `GET /api/inbox?limit=N`, `POST /api/inbox/read {"upTo": ID}`, and a
// `notice` message to every connected client of a member as soon as a notice for them is durable,
// on whatever board the client is (InboxFeed.swift says how new notices are found).
//
// Whose inbox: with access control, the token's member (`sub`, `shuffleboard token --user`); a
// token that names none has no inbox (403). Without access control, `?member=ID` names it: an
// open server cannot keep inboxes private, as it keeps nothing else private.
extension Hub {
    /// The default and the most notices on one page.
    static let inboxPageDefault = 50

    /// `GET /api/inbox`, and `POST /api/inbox/read` (`reading`).
    func inboxRequest(_ request: HTTPRequest, reading: Bool, exchange: ExchangeID) {
        guard let member = inboxMember(request, exchange: exchange) else { return }
        if reading {
            guard let upTo = Self.readUpTo(request.body) else {
                return emit(
                    .respond(
                        exchange,
                        .error(
                            400, "bad_request", #"send a JSON object {"upTo": ID}, ID a notice id from 0 to 2^53 - 1"#))
                )
            }
            // Counted as the reads are: a client looping on it queues no more work for the reader.
            guard admitHistoryRead(from: request.peer, exchange: exchange) else { return }
            let marked = StoreRead.markRead(member, upTo: upTo, Self.answering(exchange) { $0 })
            reads.ask(marked, for: exchange, historyOf: request.peer)
            return
        }
        let limit: Int
        do throws(BadParameter) {
            limit = try request.query.limit(default: Self.inboxPageDefault, most: maximumInboxPage)
        } catch { return emit(.respond(exchange, error.response)) }
        guard admitHistoryRead(from: request.peer, exchange: exchange) else { return }
        reads.ask(.inbox(member, limit: limit, Self.answering(exchange) { $0 }), for: exchange, historyOf: request.peer)
    }

    /// The member whose inbox the request is for, or nil after answering.
    private func inboxMember(_ request: HTTPRequest, exchange: ExchangeID) -> MemberID? {
        if let text = request.query["member"], MemberID(text) == nil {
            emit(.respond(exchange, .error(400, "bad_request", "member must be a member id (1–64 of A–Z a–z 0–9 _ -)")))
            return nil
        }
        if config.auth != nil {
            guard let claims = authorize(request, exchange: exchange) else { return nil }  // a proxy user too
            guard let member = claims.member else {
                emit(
                    .respond(
                        exchange,
                        .error(
                            403, "forbidden",
                            "the token names no member (mint it with --user), so it has no inbox")))
                return nil
            }
            return member
        }
        // No member named: nobody whose inbox it could be (403, as for a token that names none).
        guard let text = request.query["member"] else {
            emit(
                .respond(
                    exchange, .error(403, "forbidden", "without access control, name the inbox's member: ?member=ID")))
            return nil
        }
        return MemberID(text)
    }

    /// `{"upTo": ID}` strictly: one member, a whole number from 0 to 2^53 − 1 (the numbers a
    /// double holds exactly: a larger one may have been rounded on its way here).
    static func readUpTo(_ body: [UInt8]) -> Int64? {
        guard case .object(let fields)? = try? JSON.parse(body), fields.count == 1,
            case .number(let n)? = fields["upTo"], n >= 0, n <= 9_007_199_254_740_991, n == n.rounded()
        else { return nil }
        return Int64(n)
    }

    // MARK: Telling connected clients

    /// A committed op is on its way to the store: if it may make a notice, read the new notices
    /// once it is durable.
    func inboxPersisting(_ op: CommittedOp, on board: BoardID) {
        if config.inbox { inbox.persisting(op, on: board) }
    }

    /// The store made boards durable: read the notices their ops made.
    func inboxDurable(_ seqs: [BoardID: Seq]) {
        readNotices(due: inbox.durable(seqs))
    }

    /// At each tick: the first read (the greatest id stored), and in a cluster the poll for the
    /// notices other nodes made.
    func inboxTick() { readNotices(due: false) }

    private func readNotices(due: Bool) {
        guard config.inbox, !stopping,
            let after = inbox.shouldRead(due: due, clustered: config.cluster != nil, now: now, wall: wall)
        else { return }
        read(
            .notices(
                after: after, madeBefore: inbox.started ?? wall.milliseconds, limit: InboxFeed.readLimit,
                Reply { $0.noticesAnswered($1) }))
    }

    /// New notices came back: each goes to every connected client of its member.
    func noticesAnswered(_ answer: Result<NoticeFeed, StoreError>) {
        let feed: NoticeFeed
        switch answer {
        case .success(let read): feed = read
        case .failure(let error):
            log(.warning, "cannot read new notices: \(error.message)")
            inbox.failed()
            return
        }
        let (tell, again) = inbox.answered(feed)
        if !tell.isEmpty {
            var clients: [MemberID: [ConnectionID]] = [:]
            let wanted = Set(tell.map(\.member))
            for host in boards.hosts {
                for user in host.room.users where wanted.contains(user.member) {
                    if let connection = host.connection(of: user.id) {
                        clients[user.member, default: []].append(connection)
                    }
                }
            }
            for notice in tell {
                for connection in clients[notice.member] ?? [] { send(.notice(notice), to: connection) }
            }
        }
        if again { readNotices(due: true) }
    }
}

/// A member's inbox, read and encoded off the service thread.
extension InboxPage {
    /// `{"notices":[…newest first…], "unread":N}`.
    package var response: HTTPResponse {
        .json(200) { w in
            w.beginObject()
            w.beginArray("notices")
            for notice in notices { notice.encode(into: &w) }
            w.endArray()
            w.write("unread", unread)
            w.endObject()
        }
    }
}
