internal import BoardCore

/// Webhooks, the same in SQLite and PostgreSQL. In PostgreSQL every node of a cluster lists and
/// changes them; the board's owner delivers and moves the cursor.
extension SQLStore {
    package func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded {
        try onWriter { (db: Connection) throws(StoreError) -> WebhookAdded in
            try db.writing { () throws(StoreError) -> WebhookAdded in
                // Two transactions adding to one board at once must not both pass the count.
                try db.lockCount("webhooks", of: hook.board)
                // It delivers the ops committed after it was made: its cursor starts at the stored seq.
                guard let seq = try db.boardSeq(of: hook.board) else { return .unknownBoard }
                var hook = hook
                hook.delivered = seq
                let count = try db.intValue(
                    "SELECT count(*) FROM webhooks WHERE board = $1", [.text(hook.board.rawValue)])
                guard count ?? 0 < maximum else { return .full }
                try db.write(
                    "INSERT INTO webhooks (\(webhookColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    Self.values(of: hook))
                return .added
            }
        }
    }

    package func webhooks(of board: BoardID) throws(StoreError) -> [Webhook] {
        try onReadOnly { (db: Connection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE board = $1 ORDER BY created, id", [.text(board.rawValue)])
        }
    }

    package func activeWebhooks() throws(StoreError) -> [Webhook] {
        try onReadOnly { (db: Connection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE disabled = 0 ORDER BY board, created, id", [])
        }
    }

    package func webhook(_ id: String) throws(StoreError) -> Webhook? {
        try onReadOnly { (db: Connection) throws(StoreError) -> Webhook? in
            try Self.webhooks(db, "WHERE id = $1", [.text(id)]).first
        }
    }

    package func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: Connection) throws(StoreError) -> Webhook? in
            try db.writing { () throws(StoreError) -> Webhook? in
                let key: [SQLValue] = [.text(id), .text(board.rawValue)]
                guard let hook = try Self.webhooks(db, "WHERE id = $1 AND board = $2", key).first else { return nil }
                try db.write("DELETE FROM webhooks WHERE id = $1 AND board = $2", key)
                return hook
            }
        }
    }

    package func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: Connection) throws(StoreError) -> Webhook? in
            try db.writing { () throws(StoreError) -> Webhook? in
                let key: [SQLValue] = [.text(id), .text(board.rawValue)]
                try db.write("UPDATE webhooks SET disabled = 0, failing_since = 0 WHERE id = $1 AND board = $2", key)
                return try Self.webhooks(db, "WHERE id = $1 AND board = $2", key).first
            }
        }
    }

    package func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError) {
        try onWriter { (db: Connection) throws(StoreError) in
            try db.write(
                "UPDATE webhooks SET delivered = CASE WHEN delivered > $1 THEN delivered ELSE $1 END, failing_since = $2, "
                    + "last_status = $3, last_error = $4, last_attempt = $5, disabled = $6 WHERE id = $7",
                [
                    .int(delivered), .int(Int(status.failingSince)), .int(status.lastStatus), .text(status.lastError),
                    .int(Int(status.lastAttempt)), .int(status.disabled ? 1 : 0), .text(id),
                ])
        }
    }

    private static func values(of hook: Webhook) -> [SQLValue] {
        [
            .text(hook.id), .text(hook.board.rawValue), .text(hook.url), .text(hook.eventsColumn), .text(hook.secret),
            .int(Int(hook.created)), .int(hook.delivered), .int(Int(hook.status.failingSince)),
            .int(hook.status.lastStatus), .text(hook.status.lastError), .int(Int(hook.status.lastAttempt)),
            .int(hook.status.disabled ? 1 : 0),
        ]
    }

    /// The webhooks chosen by `clause` (this module's own SQL), every value bound.
    private static func webhooks(
        _ db: Connection, _ clause: String, _ values: [SQLValue]
    ) throws(StoreError) -> [Webhook] {
        var found: [Webhook] = []
        try db.rows("SELECT \(webhookColumns) FROM webhooks \(clause)", values) { row throws(StoreError) in
            guard let board = BoardID(row.text(1)) else {
                throw StoreError("webhook \(row.text(0)) has a damaged board id")
            }
            found.append(
                Webhook(
                    id: row.text(0), board: board, url: row.text(2), events: Webhook.events(fromColumn: row.text(3)),
                    secret: row.text(4), created: Int64(row.int(5)), delivered: row.int(6),
                    status: WebhookStatus(
                        failingSince: Int64(row.int(7)), lastStatus: row.int(8), lastError: row.text(9),
                        lastAttempt: Int64(row.int(10)), disabled: row.int(11) != 0)))
        }
        return found
    }
}

private let webhookColumns =
    "id, board, url, events, secret, created, delivered, failing_since, last_status, last_error, last_attempt, disabled"

extension SQLiteStore: WebhookStore {}

extension PostgresStore: WebhookStore {}
