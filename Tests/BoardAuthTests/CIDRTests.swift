import Testing

@testable import BoardAuth

/// `--auth-proxy-from` networks (ProxyAuth.swift): parsed strictly, IPv4 and IPv6, and matched
/// by prefix, an IPv4-mapped IPv6 peer as its IPv4 address.
@Suite struct CIDRTests {
    func network(_ text: String) throws -> CIDR { try CIDR.parse(text).get() }

    @Test func networksMatchTheirAddressesOnly() throws {
        let loopback = try network("127.0.0.0/8")
        #expect(loopback.contains(IPAddress.parse("127.0.0.1")!))
        #expect(loopback.contains(IPAddress.parse("::ffff:127.3.4.5")!), "a dual-stack socket's IPv4 peer")
        #expect(!loopback.contains(IPAddress.parse("128.0.0.1")!))
        #expect(!loopback.contains(IPAddress.parse("::1")!))
        let one = try network("127.0.0.1")
        #expect(one.prefix == 32 && one.contains([127, 0, 0, 1]) && !one.contains([127, 0, 0, 2]))
        let odd = try network("10.1.2.128/25")
        #expect(odd.contains([10, 1, 2, 200]) && !odd.contains([10, 1, 2, 127]))
        let v6 = try network("fd00:1::/32")
        #expect(v6.contains(IPAddress.parse("fd00:1:ffff::9")!) && !v6.contains(IPAddress.parse("fd00:2::1")!))
        #expect(try network("::1").contains(IPAddress.parse("::1")!))
        let everything = try network("0.0.0.0/0")
        #expect(everything.contains([8, 8, 8, 8]) && !everything.contains(IPAddress.parse("::2")!))
        #expect(try network("::/0").contains(IPAddress.parse("2001:db8::1")!))
        #expect(try network("192.168.0.0/16").description == "192.168.0.0/16")
        #expect(try network("FD00:0:0::/16").description == "fd00::/16")
    }

    @Test(arguments: [
        "", "/8", "127.0.0.1/", "127.0.0.1/33", "127.0.0.1/08", "127.0.0.1/-1", "127.0.0.1/+8", "10.0.0.1/8",
        "127.1", "127.0.0.01", "0x7f.0.0.1", "256.0.0.1", "1.2.3.4.5", "127.0.0.1 ", " 127.0.0.1", "::1/129",
        "fe80::1%eth0", ":::1", "2001:db8::/16", "127.0.0.1/8/8", "localhost", "１２７.0.0.1", "127.0.0.1/3２",
    ])
    func badNetworksAreRefused(_ text: String) {
        #expect(throws: ProxyProblem.self) { try CIDR.parse(text).get() }
    }

    @Test func aListTakesCommasAndRefusesAnyBadPart() throws {
        let list = try CIDR.parseList("127.0.0.1/32, 10.0.0.0/8,::1").get()
        #expect(list.map(\.description) == ["127.0.0.1/32", "10.0.0.0/8", "::1/128"])
        #expect(throws: ProxyProblem.self) { try CIDR.parseList("127.0.0.1,").get() }
        #expect(throws: ProxyProblem.self) { try CIDR.parseList("127.0.0.1,nope").get() }
        #expect(throws: ProxyProblem.self) { try CIDR.parseList("").get() }
    }
}
