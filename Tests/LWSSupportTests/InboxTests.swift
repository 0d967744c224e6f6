import Testing

@testable import LWSSupport

@Suite struct InboxTests {
    @Test func postsAreRefusedUntilAContextIsAttached() {
        let inbox = Inbox<Int>()
        #expect(inbox.post(1) == false)
        #expect(inbox.drain().isEmpty)
    }

    @Test func closeReasonsAreCutTo123BytesBetweenScalars() {
        #expect(LWS.closeReasonBytes("board deleted") == Array("board deleted".utf8))
        let ascii = String(repeating: "x", count: 200)
        #expect(LWS.closeReasonBytes(ascii).count == 123)
        // 41 three-byte scalars are 123 bytes; 42 would be 126: the 42nd is left out whole.
        let wide = String(repeating: "€", count: 42)
        let cut = LWS.closeReasonBytes(wide)
        #expect(cut.count == 123 && String(validating: cut, as: UTF8.self) != nil)
        let emoji = String(repeating: "😀", count: 40)
        #expect(LWS.closeReasonBytes(emoji).count == 120, "30 four-byte scalars fit, a 31st would not")
    }
}
