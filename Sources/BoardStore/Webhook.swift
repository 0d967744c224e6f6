package import BoardCore

/// A webhook of a board (`POST /api/boards/{id}/webhooks`), as the store keeps it: where its
/// ops go, which ops, the secret they are signed with, and how far delivery has come (its
/// durable cursor, `delivered`, which only ever grows). The secret is kept as it was given:
/// the server signs every delivery with it, so a hash would not do.
package struct Webhook: Equatable, Sendable {
    /// Its id (random, base64url).
    package var id: String
    /// The board whose ops it delivers.
    package var board: BoardID
    /// The `http` or `https` URL deliveries are posted to.
    package var url: String
    /// The op types it delivers (`Op.kind`), or `["*"]` for every op.
    package var events: [String]
    /// The HMAC-SHA256 key of its signatures.
    package var secret: String
    /// Seconds since 1970 when it was made.
    package var created: Int64
    /// The seq of the last op delivered (or skipped, not matching `events`): the cursor.
    package var delivered: Seq
    /// How its deliveries have gone lately.
    package var status: WebhookStatus

    /// A webhook.
    package init(
        id: String, board: BoardID, url: String, events: [String], secret: String, created: Int64,
        delivered: Seq, status: WebhookStatus = WebhookStatus()
    ) {
        self.id = id
        self.board = board
        self.url = url
        self.events = events
        self.secret = secret
        self.created = created
        self.delivered = delivered
        self.status = status
    }

    /// Whether the webhook delivers ops of type `kind`.
    package func wants(_ kind: String) -> Bool { events.contains("*") || events.contains(kind) }
}

/// How a webhook's deliveries have gone: what `GET …/webhooks` shows besides the cursor.
package struct WebhookStatus: Equatable, Sendable {
    /// Seconds since 1970 of the first failed attempt since the last success (0: not failing).
    package var failingSince: Int64
    /// The HTTP status of the last attempt (0: none, or no answer).
    package var lastStatus: Int
    /// Why the last attempt failed ("" when it did not).
    package var lastError: String
    /// Seconds since 1970 of the last attempt (0: never).
    package var lastAttempt: Int64
    /// Failing for 72 hours: no more deliveries until `POST …/enable`.
    package var disabled: Bool

    /// A status.
    package init(
        failingSince: Int64 = 0, lastStatus: Int = 0, lastError: String = "", lastAttempt: Int64 = 0,
        disabled: Bool = false
    ) {
        self.failingSince = failingSince
        self.lastStatus = lastStatus
        self.lastError = lastError
        self.lastAttempt = lastAttempt
        self.disabled = disabled
    }
}

/// What `addWebhook` did.
package enum WebhookAdded: Equatable, Sendable {
    /// Stored.
    case added
    /// The board has its most webhooks already.
    case full
    /// The store has no such board.
    case unknownBoard
}

/// A store that keeps webhooks (SQLite, PostgreSQL, memory). A board's webhooks go with it when
/// it is deleted. Every call may come from the reader thread or the webhook thread; writes are
/// durable when they return.
package protocol WebhookStore: BoardStore {
    /// Stores `hook` unless its board has `maximum` webhooks already or is not stored, with its
    /// cursor at the board's stored seq: it delivers the ops committed after it was made.
    func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded
    /// The board's webhooks, oldest first.
    func webhooks(of board: BoardID) throws(StoreError) -> [Webhook]
    /// Every webhook not disabled, of every board (the webhook thread's start).
    func activeWebhooks() throws(StoreError) -> [Webhook]
    /// The webhook `id`, or nil when there is none (any more).
    func webhook(_ id: String) throws(StoreError) -> Webhook?
    /// Removes the board's webhook `id`; it, or nil when the board has none such.
    func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook?
    /// Enables the board's webhook `id` again (not failing, not disabled); it, or nil.
    func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook?
    /// Records a delivery attempt: the cursor becomes `delivered` unless it is further already
    /// (it never goes back), and the status `status`. Nothing when the webhook is gone.
    func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError)
}

extension Webhook {
    /// `events` as one column: the types joined by commas (a type never has one).
    package var eventsColumn: String { events.joined(separator: ",") }
    /// `events` from its column.
    package static func events(fromColumn text: String) -> [String] {
        text.split(separator: ",").map(String.init)
    }
}
