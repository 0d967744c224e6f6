import BoardCore
import Testing

@testable import BoardAuth

/// The decision behind sign-in through a trusted proxy (ProxySignIn.swift): the header is believed
/// from the trusted networks only, a trusted request without it stands on its token, and bytes a
/// member id or a display name cannot be are refused, never cut or repaired.
@Suite struct ProxySignInTests {
    let proxy = ProxyAuth(
        header: "X-Forwarded-User", nameHeader: "X-Forwarded-Name",
        trusted: [try! CIDR.parse("10.0.0.0/24").get(), try! CIDR.parse("fd00::5").get()], role: .view)

    func decide(_ peer: String, _ user: String?, _ name: [UInt8]? = nil) -> ProxyAuth.Decision {
        proxy.decide(peer: peer, user: user.map { Array($0.utf8) }, name: name)
    }

    @Test func theHeaderIsBelievedFromTheTrustedNetworksOnly() {
        let alice = ProxyAuth.Decision.user(ProxyUser(member: MemberID("alice")!, name: "alice"))
        #expect(decide("10.0.0.7", "alice") == alice)
        #expect(decide("::ffff:10.0.0.9", "alice") == alice, "a dual-stack socket's IPv4 peer")
        #expect(decide("fd00::5", "alice") == alice)
        #expect(decide("10.0.1.7", "alice") == .ignored, "another network: anyone can send the header")
        #expect(decide("fd00::6", "alice") == .ignored)
        #expect(decide("127.0.0.1", "alice") == .ignored)
        #expect(decide("?", "alice") == .ignored, "an address lws could not tell is no trusted one")
        #expect(decide("10.0.1.7", nil) == .ignored)
        #expect(decide("10.0.0.7", nil) == .missing, "trusted, no header: the request's token decides")
    }

    @Test(arguments: [
        "", " ", "alice smith", "al/ice", "alice,bob", "ålice", "alice\u{0}", "alice\r\nx-evil: 1",
        String(repeating: "a", count: 65), String(repeating: "a", count: 257),
    ])
    func badUserBytesAreRefused(_ value: String) {
        guard case .invalid(let why) = decide("10.0.0.7", value) else {
            Issue.record("\(value.debugDescription) was taken")
            return
        }
        #expect(why.hasPrefix("the x-forwarded-user header"))
        #expect(!why.contains(value) || value.isEmpty || value == " ", "the reason never quotes the bytes")
    }

    @Test func invalidUTF8AndOverlongValuesAreRefused() {
        #expect(proxy.decide(peer: "10.0.0.7", user: [0x61, 0xFF], name: nil) != decide("10.0.0.7", "a"))
        guard case .invalid = proxy.decide(peer: "10.0.0.7", user: [0x61, 0xC3], name: nil) else {
            Issue.record("a cut UTF-8 sequence was taken")
            return
        }
        for name: [UInt8] in [[0xC3, 0x28], [0x41, 0x07], Array(repeating: 0x41, count: 257), [], [0x20]] {
            guard case .invalid(let why) = decide("10.0.0.7", "alice", name) else {
                Issue.record("name \(name.prefix(8)) was taken")
                continue
            }
            #expect(why.hasPrefix("the x-forwarded-name header"))
        }
    }

    @Test func theNameHeaderNamesThePersonAndSpacesAroundAreDropped() {
        #expect(
            decide("10.0.0.7", " alice\t", Array("  Alice Ådahl ".utf8))
                == .user(ProxyUser(member: MemberID("alice")!, name: "Alice Ådahl")))
        let noNameHeader = ProxyAuth(header: "X-User", trusted: proxy.trusted)
        #expect(
            noNameHeader.decide(peer: "10.0.0.7", user: Array("bo-b_2".utf8), name: Array("Ignored".utf8))
                == .user(ProxyUser(member: MemberID("bo-b_2")!, name: "bo-b_2")), "without one, the id is the name")
    }

    @Test func headerNamesAreCheckedAndTheServersOwnAreRefused() throws {
        #expect(try ProxyAuth.headerName("X-Forwarded-User").get() == "x-forwarded-user")
        #expect(try ProxyAuth.headerName("Remote-User").get() == "remote-user")
        for bad in [
            "", "X Forwarded", "X-User:", "Authorization", "x-forwarded-for", "Host", "Sec-WebSocket-Key",
            "X-Shuffleboard-Cluster-Key", String(repeating: "x", count: 65), "X-Üser",
        ] {
            guard case .failure = ProxyAuth.headerName(bad) else {
                Issue.record("\(bad) was taken as a header name")
                continue
            }
        }
    }
}
