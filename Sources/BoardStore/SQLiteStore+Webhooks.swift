package import BoardCore

extension SQLiteStore: WebhookStore {
    static let webhookColumns =
        "id, board, url, events, secret, created, delivered, failing_since, last_status, last_error, "
        + "last_attempt, disabled"

    package func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> WebhookAdded in
            try db.transaction(.immediate) { () throws(StoreError) -> WebhookAdded in
                let board = SQLiteValue.text(hook.board.rawValue)
                // It delivers the ops committed after it was made: its cursor starts at the stored seq.
                guard let seq = try db.int("SELECT seq FROM boards WHERE id = ?", [board]) else {
                    return .unknownBoard
                }
                var hook = hook
                hook.delivered = seq
                guard try db.int("SELECT count(*) FROM webhooks WHERE board = ?", [board]) ?? 0 < maximum else {
                    return .full
                }
                try db.query(
                    "INSERT INTO webhooks (\(Self.webhookColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    Self.values(of: hook))
                return .added
            }
        }
    }

    package func webhooks(of board: BoardID) throws(StoreError) -> [Webhook] {
        try onReader { (db: SQLiteConnection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE board = ? ORDER BY created, id", [.text(board.rawValue)])
        }
    }

    package func activeWebhooks() throws(StoreError) -> [Webhook] {
        try onReader { (db: SQLiteConnection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE disabled = 0 ORDER BY board, created, id", [])
        }
    }

    package func webhook(_ id: String) throws(StoreError) -> Webhook? {
        try onReader { (db: SQLiteConnection) throws(StoreError) -> Webhook? in
            try Self.webhooks(db, "WHERE id = ?", [.text(id)]).first
        }
    }

    package func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> Webhook? in
            try db.transaction(.immediate) { () throws(StoreError) -> Webhook? in
                let where_: [SQLiteValue] = [.text(id), .text(board.rawValue)]
                guard let hook = try Self.webhooks(db, "WHERE id = ? AND board = ?", where_).first else { return nil }
                try db.query("DELETE FROM webhooks WHERE id = ? AND board = ?", where_)
                return hook
            }
        }
    }

    package func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> Webhook? in
            try db.transaction(.immediate) { () throws(StoreError) -> Webhook? in
                let where_: [SQLiteValue] = [.text(id), .text(board.rawValue)]
                try db.query("UPDATE webhooks SET disabled = 0, failing_since = 0 WHERE id = ? AND board = ?", where_)
                return try Self.webhooks(db, "WHERE id = ? AND board = ?", where_).first
            }
        }
    }

    package func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError) {
        try onWriter { (db: SQLiteConnection) throws(StoreError) in
            try db.query(
                "UPDATE webhooks SET delivered = max(delivered, ?), failing_since = ?, last_status = ?, "
                    + "last_error = ?, last_attempt = ?, disabled = ? WHERE id = ?",
                [
                    .int(delivered), .int(Int(status.failingSince)), .int(status.lastStatus), .text(status.lastError),
                    .int(Int(status.lastAttempt)), .int(status.disabled ? 1 : 0), .text(id),
                ])
        }
    }

    private static func values(of hook: Webhook) -> [SQLiteValue] {
        [
            .text(hook.id), .text(hook.board.rawValue), .text(hook.url), .text(hook.eventsColumn), .text(hook.secret),
            .int(Int(hook.created)), .int(hook.delivered), .int(Int(hook.status.failingSince)),
            .int(hook.status.lastStatus), .text(hook.status.lastError), .int(Int(hook.status.lastAttempt)),
            .int(hook.status.disabled ? 1 : 0),
        ]
    }

    private static func webhooks(
        _ db: SQLiteConnection, _ clause: String, _ bindings: [SQLiteValue]
    ) throws(StoreError) -> [Webhook] {
        var found: [Webhook] = []
        var bad: StoreError?
        try db.query("SELECT \(webhookColumns) FROM webhooks \(clause)", bindings) { row in
            guard let board = BoardID(row.text(1)) else {
                bad = StoreError("webhook \(row.text(0)) has a damaged board id")
                return
            }
            found.append(
                Webhook(
                    id: row.text(0), board: board, url: row.text(2), events: Webhook.events(fromColumn: row.text(3)),
                    secret: row.text(4), created: Int64(row.int(5)), delivered: row.int(6),
                    status: WebhookStatus(
                        failingSince: Int64(row.int(7)), lastStatus: row.int(8), lastError: row.text(9),
                        lastAttempt: Int64(row.int(10)), disabled: row.int(11) != 0)))
        }
        if let bad { throw bad }
        return found
    }
}
