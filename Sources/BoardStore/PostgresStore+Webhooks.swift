package import BoardCore

/// Webhooks in the database every node of a cluster shares: any node lists and changes them; the
/// board's owner delivers and moves the cursor.
extension PostgresStore: WebhookStore {
    private static let webhookColumns =
        "id, board, url, events, secret, created, delivered, failing_since, last_status, last_error, "
        + "last_attempt, disabled"

    package func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> WebhookAdded in
            try db.transaction { () throws(StoreError) -> WebhookAdded in
                let board = PostgresValue.text(hook.board.rawValue)
                // Two nodes adding to one board at once must not both pass the count.
                try db.query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("webhooks:" + hook.board.rawValue)])
                // It delivers the ops committed after it was made: its cursor starts at the stored seq.
                guard let seq = try db.int("SELECT seq FROM boards WHERE id = $1", [board]) else {
                    return .unknownBoard
                }
                var hook = hook
                hook.delivered = seq
                guard try db.int("SELECT count(*) FROM webhooks WHERE board = $1", [board]) ?? 0 < maximum else {
                    return .full
                }
                try db.query(
                    "INSERT INTO webhooks (\(Self.webhookColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
                    Self.values(of: hook))
                return .added
            }
        }
    }

    package func webhooks(of board: BoardID) throws(StoreError) -> [Webhook] {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE board = $1 ORDER BY created, id", [.text(board.rawValue)])
        }
    }

    package func activeWebhooks() throws(StoreError) -> [Webhook] {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> [Webhook] in
            try Self.webhooks(db, "WHERE disabled = 0 ORDER BY board, created, id", [])
        }
    }

    package func webhook(_ id: String) throws(StoreError) -> Webhook? {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> Webhook? in
            try Self.webhooks(db, "WHERE id = $1", [.text(id)]).first
        }
    }

    package func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> Webhook? in
            try db.transaction { () throws(StoreError) -> Webhook? in
                let where_: [PostgresValue] = [.text(id), .text(board.rawValue)]
                guard let hook = try Self.webhooks(db, "WHERE id = $1 AND board = $2", where_).first else { return nil }
                try db.query("DELETE FROM webhooks WHERE id = $1 AND board = $2", where_)
                return hook
            }
        }
    }

    package func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> Webhook? in
            try db.transaction { () throws(StoreError) -> Webhook? in
                let where_: [PostgresValue] = [.text(id), .text(board.rawValue)]
                try db.query("UPDATE webhooks SET disabled = 0, failing_since = 0 WHERE id = $1 AND board = $2", where_)
                return try Self.webhooks(db, "WHERE id = $1 AND board = $2", where_).first
            }
        }
    }

    package func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError) {
        _ = try onWriter { (db: PostgresConnection) throws(StoreError) -> Int in
            try db.query(
                "UPDATE webhooks SET delivered = greatest(delivered, $1), failing_since = $2, last_status = $3, "
                    + "last_error = $4, last_attempt = $5, disabled = $6 WHERE id = $7",
                [
                    .int(delivered), .int(Int(status.failingSince)), .int(status.lastStatus), .text(status.lastError),
                    .int(Int(status.lastAttempt)), .int(status.disabled ? 1 : 0), .text(id),
                ])
        }
    }

    private static func values(of hook: Webhook) -> [PostgresValue] {
        [
            .text(hook.id), .text(hook.board.rawValue), .text(hook.url), .text(hook.eventsColumn), .text(hook.secret),
            .int(Int(hook.created)), .int(hook.delivered), .int(Int(hook.status.failingSince)),
            .int(hook.status.lastStatus), .text(hook.status.lastError), .int(Int(hook.status.lastAttempt)),
            .int(hook.status.disabled ? 1 : 0),
        ]
    }

    private static func webhooks(
        _ db: PostgresConnection, _ clause: String, _ bindings: [PostgresValue]
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
