import Testing

@testable import LWSSupport

@Suite struct InboxTests {
    @Test func postsAreRefusedUntilAContextIsAttached() {
        let inbox = Inbox<Int>()
        #expect(inbox.post(1) == false)
        #expect(inbox.drain().isEmpty)
    }
}
