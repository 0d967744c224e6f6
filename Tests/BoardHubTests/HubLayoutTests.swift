import BoardCore
import Testing

@testable import BoardHub

/// Every message a client sends becomes an `Event`, and every op a broadcast `ServerMessage` in an
/// `Action`: the rare cases with large payloads (a store's answer, an HTTP request, a welcome) are
/// boxed (`indirect`) so that the common ones copy only their own size.
@Suite struct HubLayoutTests {
    @Test func anEventIsNoLargerThanAReceivedMessage() {
        let received = MemoryLayout<(ConnectionID, Result<ClientMessage, ProtocolError>)>.size
        #expect(MemoryLayout<Hub.Event>.size <= received + 1, "Event \(MemoryLayout<Hub.Event>.size) B")
    }

    @Test func aServerMessageIsNoLargerThanACommittedOp() {
        let committed = MemoryLayout<CommittedOp>.size
        let size = MemoryLayout<ServerMessage>.size
        #expect(size <= committed + 1, "ServerMessage \(size) B")
    }
}
