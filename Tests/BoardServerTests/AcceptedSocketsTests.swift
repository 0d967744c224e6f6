import BoardHub
import Testing

@testable import BoardServer

/// The transport's table of accepted sockets by wsi (Service+Sockets.swift): what binds, what is
/// forgotten, and a wsi address lws reused without telling.
@Suite struct AcceptedSocketsTests {
    private let first = OpaquePointer(bitPattern: 0x1000)!
    private let second = OpaquePointer(bitPattern: 0x2000)!

    @Test func aBoundSocketIsFoundByItsWSIAndForgottenOnce() {
        var table = AcceptedSockets()
        #expect(table.bind(SocketID(1), to: first) == nil)
        #expect(table.bind(SocketID(2), to: second) == nil)
        #expect(table.wsi(of: SocketID(1)) == first)
        #expect(table.remove(first) == SocketID(1))
        #expect(table.remove(first) == nil, "forgotten")
        #expect(table.wsi(of: SocketID(1)) == nil)
        #expect(table.remove(second) == SocketID(2))
    }

    @Test func aWSIAddressBoundAgainGivesBackTheStaleSocket() {
        var table = AcceptedSockets()
        _ = table.bind(SocketID(1), to: first)
        #expect(table.bind(SocketID(2), to: first) == SocketID(1), "lws freed the first wsi without WSI_DESTROY")
        #expect(table.wsi(of: SocketID(1)) == nil)
        #expect(table.remove(first) == SocketID(2))
    }

    @Test func aWSIThatWasNeverBoundIsNotASocket() {
        var table = AcceptedSockets()
        #expect(table.remove(first) == nil)
    }
}
