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
        guard let webhooks else { return }
        switch answer {
        case .webhookAdded(.added, let hook): webhooks.changed(hook.id)
        case .webhookChanged(let hook?): webhooks.changed(hook.id)
        case .room(let room?): webhooks.committed([room.id: room.visibleSeq])
        default: break
        }
    }
}
