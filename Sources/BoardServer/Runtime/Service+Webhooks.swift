internal import BoardHub
internal import BoardStore
internal import WebhookDelivery

extension Service {
    /// Tells webhook delivery of a webhook the reader thread just made, removed or enabled (a
    /// store answer on its way to the hub), so its machine starts, stops or starts again; and of
    /// a board this node just loaded (in a cluster: claimed), so that its webhooks, dormant while
    /// another node owned it, go on from their cursors now (a failover) without waiting for an
    /// op. Runs on the reader thread; the delivery thread only takes the id or the seq.
    static func tell(_ webhooks: WebhookDelivery?, _ answer: StoreAnswer) {
        guard let webhooks, let note = answer.note else { return }
        switch note {
        case .webhookChanged(let id): webhooks.changed(id)
        case .loaded(let board, let seq): webhooks.committed([board: seq])
        }
    }
}
