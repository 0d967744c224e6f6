import BoardCore
import Testing

@testable import BoardStore

/// Webhooks (Webhook.swift) on every store: made only for a stored board with the cursor at its
/// seq, bounded per board, kept across a reopen, the cursor only ever growing, removed, enabled
/// again, and gone with their board.
@Suite struct WebhookStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func hook(_ n: Int, board: BoardID = boardA) -> Webhook {
        Webhook(
            id: "hook\(n)", board: board, url: "https://example.com/\(n)",
            events: n % 2 == 0 ? ["*"] : ["move", "toggle"],
            secret: "secret-\(n)-0123456789", created: 1_000 + Int64(n), delivered: 0)
    }

    @Test(arguments: stores) func webhooksAreKeptBoundedAndTheirCursorOnlyGrows(_ backend: Backend) throws {
        try withSpace(backend) { space in
            do {
                let store = try #require(try space.open() as? any WebhookStore)
                #expect(try store.addWebhook(Self.hook(1), maximum: 2) == .unknownBoard)
                var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 37)
                try store.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(5))])
                try store.write([.create(.defaultTemplate(id: boardB))])
                #expect(try store.addWebhook(Self.hook(1), maximum: 2) == .added)
                #expect(try store.addWebhook(Self.hook(2), maximum: 2) == .added)
                #expect(try store.addWebhook(Self.hook(3), maximum: 2) == .full)
                #expect(try store.addWebhook(Self.hook(4, board: boardB), maximum: 2) == .added)
                var first = Self.hook(1)
                first.delivered = 5
                #expect(try store.webhook("hook1") == first, "the cursor starts at the board's stored seq")
                let failing = WebhookStatus(failingSince: 7, lastStatus: 500, lastError: "answered 500", lastAttempt: 9)
                try store.recordDelivery("hook1", delivered: 8, status: failing)
                try store.recordDelivery("hook1", delivered: 6, status: failing)
                store.close()
            }
            let store = try #require(try space.open() as? any WebhookStore)
            let kept = try #require(try store.webhook("hook1"))
            #expect(kept.delivered == 8, "never goes back")
            #expect(kept.status.lastError == "answered 500" && kept.status.failingSince == 7)
            #expect(try store.webhooks(of: boardA).map(\.id) == ["hook1", "hook2"])
            #expect(try store.webhooks(of: boardA).first?.events == ["move", "toggle"])
            try store.recordDelivery("hook2", delivered: 5, status: WebhookStatus(disabled: true))
            #expect(try store.activeWebhooks().map(\.id).sorted() == ["hook1", "hook4"])
            #expect(try store.enableWebhook("hook2", of: boardB) == nil, "another board's")
            let enabled = try #require(try store.enableWebhook("hook2", of: boardA))
            #expect(!enabled.status.disabled && enabled.status.failingSince == 0)
            #expect(try store.removeWebhook("hook1", of: boardB) == nil)
            #expect(try store.removeWebhook("hook1", of: boardA)?.id == "hook1")
            #expect(try store.webhook("hook1") == nil)
            // A board's webhooks go with it.
            try store.write([.delete(boardA)])
            #expect(try store.webhooks(of: boardA).isEmpty)
            #expect(try store.webhook("hook2") == nil)
            #expect(try store.webhooks(of: boardB).map(\.id) == ["hook4"])
        }
    }
}

extension ClaimingStore: WebhookStore {
    func addWebhook(_ hook: Webhook, maximum: Int) throws(StoreError) -> WebhookAdded {
        try inner.addWebhook(hook, maximum: maximum)
    }
    func webhooks(of board: BoardID) throws(StoreError) -> [Webhook] { try inner.webhooks(of: board) }
    func activeWebhooks() throws(StoreError) -> [Webhook] { try inner.activeWebhooks() }
    func webhook(_ id: String) throws(StoreError) -> Webhook? { try inner.webhook(id) }
    func removeWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try inner.removeWebhook(id, of: board)
    }
    func enableWebhook(_ id: String, of board: BoardID) throws(StoreError) -> Webhook? {
        try inner.enableWebhook(id, of: board)
    }
    func recordDelivery(_ id: String, delivered: Seq, status: WebhookStatus) throws(StoreError) {
        try inner.recordDelivery(id, delivered: delivered, status: status)
    }
}
