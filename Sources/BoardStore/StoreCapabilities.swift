/// What a store can do besides `BoardStore`'s reads and writes, each as the typed store that does
/// it (nil: it cannot). The store's own type says it (`BoardStore.asClusterStore` and the others,
/// answered by the protocols' extensions, no cast): the server makes this once when it starts and
/// hands each capability to the part that needs it — the cluster's leases to the writer and the
/// renewal thread, revocations and claims to the reader, pipelining to the writer.
package struct StoreCapabilities: Sendable {
    /// The store.
    package let store: any BoardStore
    /// Leases and fenced writes, when the store is a cluster's.
    package let cluster: (any ClusterStore)?
    /// Revoked tokens, when the store keeps them.
    package let revocations: (any RevocationStore)?
    /// Batches on their way at once, when the store can send them so.
    package let pipeline: (any PipelinedWrites)?
    /// Share links made in the app, when the store keeps them.
    package let links: (any LinkStore)?
    /// Members' roles on boards (for people a trusted proxy signs in), when the store keeps them.
    package let grants: (any GrantStore)?
    /// Webhooks and their cursors, when the store keeps them.
    package let webhooks: (any WebhookStore)?
    /// Members' inboxes, when the store keeps them.
    package let inbox: (any InboxStore)?

    /// What `store` can do.
    package init(_ store: any BoardStore) {
        self.store = store
        cluster = store.asClusterStore
        revocations = store.asRevocationStore
        pipeline = store.asPipelinedWrites
        links = store.asLinkStore
        grants = store.asGrantStore
        webhooks = store.asWebhookStore
        inbox = store.asInboxStore
    }
}

extension BoardStore {
    /// Not a cluster's store.
    package var asClusterStore: (any ClusterStore)? { nil }
    /// Keeps no revocations.
    package var asRevocationStore: (any RevocationStore)? { nil }
    /// Writes one batch at a time.
    package var asPipelinedWrites: (any PipelinedWrites)? { nil }
    /// Keeps no share links.
    package var asLinkStore: (any LinkStore)? { nil }
    /// Keeps no grants.
    package var asGrantStore: (any GrantStore)? { nil }
    /// Keeps no webhooks.
    package var asWebhookStore: (any WebhookStore)? { nil }
}

extension ClusterStore {
    /// This store: it is a cluster's.
    package var asClusterStore: (any ClusterStore)? { self }
}

extension RevocationStore {
    /// This store: it keeps revocations.
    package var asRevocationStore: (any RevocationStore)? { self }
}

extension PipelinedWrites {
    /// This store: it can keep batches on their way.
    package var asPipelinedWrites: (any PipelinedWrites)? { self }
}

extension LinkStore {
    /// This store: it keeps share links.
    package var asLinkStore: (any LinkStore)? { self }
}

extension GrantStore {
    /// This store: it keeps grants.
    package var asGrantStore: (any GrantStore)? { self }
}

extension WebhookStore {
    /// This store: it keeps webhooks.
    package var asWebhookStore: (any WebhookStore)? { self }
}
