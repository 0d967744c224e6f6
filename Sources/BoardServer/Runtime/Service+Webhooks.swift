internal import BoardHub
internal import BoardStore
internal import WebhookDelivery

extension Service {
    /// Tells webhook delivery of a webhook the reader thread just made, removed or enabled (a
    /// store answer on its way to the hub), so its machine starts, stops or starts again. Runs
    /// on the reader thread; the delivery thread only takes the id.
    static func tell(_ webhooks: WebhookDelivery?, _ answer: StoreAnswer) {
        guard let webhooks else { return }
        switch answer {
        case .webhookAdded(.added, let hook): webhooks.changed(hook.id)
        case .webhookChanged(let hook?): webhooks.changed(hook.id)
        default: break
        }
    }
}
