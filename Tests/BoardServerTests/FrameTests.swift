import BoardCore
import TestSupport
import Testing

/// How the server treats WebSocket frames that break RFC 6455 or the protocol's framing rules,
/// sent byte for byte over a raw socket.
@Suite struct FrameTests {
    static let hello = Array(#"{"type":"hello","board":"demo","name":"Raw"}"#.utf8)

    @Test func unmaskedClientFrameClosesWith1002() async throws {
        try await withTestServer { server in
            let (other, _) = try await server.join(as: "Other")
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 1, Self.hello, masked: false)
            var before: [RawWebSocket.Frame] = []
            let close = try raw.readUntilClose(&before)
            #expect(close?.closeCode == 1002)
            #expect(before.isEmpty, "nothing is answered to an unmasked frame: \(before)")
            // The hello was never handled: nobody joined.
            try await other.expectNothingPending()
        }
    }

    @Test func unmaskedFrameInsideAMaskedMessageClosesWith1002() async throws {
        try await withTestServer { server in
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 1, Array(Self.hello[..<10]), fin: false)
            raw.send(opcode: 0, Array(Self.hello[10...]), masked: false)
            #expect(try raw.readUntilClose()?.closeCode == 1002)
        }
    }

    @Test func unmaskedCloseFrameIsAnsweredWith1002() async throws {
        try await withTestServer { server in
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 8, [0x03, 0xE8], masked: false)
            #expect(try raw.readUntilClose()?.closeCode == 1002)
        }
    }

    @Test func maskedFramesAreAccepted() async throws {
        try await withTestServer { server in
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 1, Self.hello)
            let welcome = try #require(try raw.next())
            #expect(welcome.opcode == 1 && welcome.text.contains(#""type":"welcome""#))
            raw.send(opcode: 8, [0x03, 0xE8])
            #expect(try raw.readUntilClose()?.closeCode == 1000)
        }
    }

    @Test func closeFrameWithAOneBytePayloadIsAnsweredWith1002() async throws {
        try await withTestServer { server in
            let raw = try RawWebSocket(port: server.port, timeout: 3)
            raw.send(opcode: 8, [0x03])
            let close = try raw.readUntilClose()
            #expect(close?.closeCode == 1002, "got \(close.map(\.description) ?? "no close frame")")
            // The client's close came first: the server closes TCP at once (Autobahn 7.3.2).
            #expect(try raw.readsEnd())
        }
    }

    /// After failing a connection with 1002, the server closes TCP at once instead of waiting
    /// (lws waits 5 s) for a close frame that a client which broke the protocol may never send
    /// (RFC 6455 7.1.7). A read timeout of 3 s shows it did not wait. So it does after its own
    /// 1002, for an unmasked frame.
    @Test func protocolErrorsCloseTCPWithoutWaitingForTheClientsClose() async throws {
        try await withTestServer { server in
            let reserved = try RawWebSocket(port: server.port, timeout: 3)
            reserved.send(opcode: 7, [1, 2, 3])
            #expect(try reserved.readUntilClose()?.closeCode == 1002)
            #expect(try reserved.readsEnd())
            let unmasked = try RawWebSocket(port: server.port, timeout: 3)
            unmasked.send(opcode: 1, Self.hello, masked: false)
            #expect(try unmasked.readUntilClose()?.closeCode == 1002)
            #expect(try unmasked.readsEnd())
        }
    }

    /// A message and, in the same TCP write, a frame lws fails the connection for: whatever the
    /// server sends, nothing follows its close frame (RFC 6455 5.5.1). lws 4.1.6 still calls
    /// WRITEABLE after its close frame, and the welcome queued for the hello went out after it.
    @Test func nothingFollowsTheCloseFrameAfterAProtocolError() async throws {
        try await withTestServer { server in
            for _ in 0..<8 {
                let raw = try RawWebSocket(port: server.port, timeout: 3)
                raw.sendRaw(raw.frame(opcode: 1, Self.hello) + raw.frame(opcode: 1, [0x20], rsv: 4))
                #expect(try raw.readUntilClose()?.closeCode == 1002)
                #expect(try raw.readsEnd())
            }
        }
    }

    @Test func closeCodesOutsideTheRegistryAreAnsweredWith1002() async throws {
        try await withTestServer { server in
            for code in [0, 999, 1005, 1006, 1016, 2999, 5000, 65535] {
                let raw = try RawWebSocket(port: server.port)
                raw.send(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)])
                #expect(try raw.readUntilClose()?.closeCode == 1002, "close code \(code)")
            }
            for code in [1000, 1001, 1003, 1011, 3000, 4999] {
                let raw = try RawWebSocket(port: server.port)
                raw.send(opcode: 8, [UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye".utf8))
                let close = try raw.readUntilClose()
                #expect(close?.closeCode == code && close?.text.hasSuffix("bye") == true, "close code \(code)")
            }
        }
    }

    @Test func messageInTheSameBurstAfterAnOversizeOneIsNotHandled() async throws {
        try await withTestServer({ $0.maxMessageBytes = 1024 }) { server in
            let (other, _) = try await server.join(as: "Other")
            let raw = try RawWebSocket(port: server.port)
            let oversize =
                Array(#"{"type":"ping","pad":""#.utf8) + [UInt8](repeating: 0x78, count: 2000) + [0x22, 0x7D]
            raw.sendRaw(raw.frame(opcode: 1, oversize) + raw.frame(opcode: 1, Self.hello))
            #expect(try raw.readUntilClose()?.closeCode == 1009)
            // Had the hello after it been handled, `Other` would hear a join before its pong.
            try await other.expectNothingPending()
        }
    }

    @Test func oversizeMessageClosesBeforeItsLastFragment() async throws {
        try await withTestServer({ $0.maxMessageBytes = 1024 }) { server in
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 1, [UInt8](repeating: 0x20, count: 800), fin: false)
            raw.send(opcode: 0, [UInt8](repeating: 0x20, count: 800), fin: false)
            // No final fragment is ever sent: the bound alone closes the connection.
            #expect(try raw.readUntilClose()?.closeCode == 1009)
        }
    }

    @Test func binaryFrameClosesWith1003() async throws {
        try await withTestServer { server in
            let (other, _) = try await server.join(as: "Other")
            let c = try await server.connect()
            c.connection.sendBinary(Self.hello)
            let close = try await c.connection.waitForClose()
            #expect(close.code == 1003)
            #expect(close.reason == "binary frames are not supported")
            try await other.expectNothingPending()
        }
    }

    @Test func fragmentedBinaryMessageClosesWith1003AtItsFirstFragment() async throws {
        try await withTestServer { server in
            let raw = try RawWebSocket(port: server.port)
            raw.send(opcode: 2, [1, 2, 3], fin: false)
            #expect(try raw.readUntilClose()?.closeCode == 1003)
        }
    }
}
