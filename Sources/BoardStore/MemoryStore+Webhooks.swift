package import BoardCore

extension MemoryStore: WebhookStore {
    package func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded {
        guard let stored = try load(hook.board, recentLimit: 0) else { return .unknownBoard }
        var hook = hook
        hook.delivered = stored.seq
        return webhookRows.withLock { rows in
            guard rows.count(where: { $0.board == hook.board }) < maximum else { return .full }
            rows.append(hook)
            return .added
        }
    }

    package func webhooks(of board: BoardID) throws(StoreError) -> [Webhook] {
        webhookRows.withLock { rows in rows.filter { $0.board == board } }
    }

    package func activeWebhooks() throws(StoreError) -> [Webhook] {
        webhookRows.withLock { rows in rows.filter { !$0.status.disabled } }
    }

    package func webhook(_ id: String) throws(StoreError) -> Webhook? {
        webhookRows.withLock { rows in rows.first { $0.id == id } }
    }

    package func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        webhookRows.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.id == id && $0.board == board }) else { return nil }
            return rows.remove(at: index)
        }
    }

    package func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        webhookRows.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.id == id && $0.board == board }) else { return nil }
            rows[index].status.disabled = false
            rows[index].status.failingSince = 0
            return rows[index]
        }
    }

    package func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError) {
        webhookRows.withLock { rows in
            guard let index = rows.firstIndex(where: { $0.id == id }) else { return }
            rows[index].delivered = max(rows[index].delivered, delivered)
            rows[index].status = status
        }
    }
}
