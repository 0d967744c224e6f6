import Testing

@testable import BoardHooks

/// Which URLs and addresses a webhook may use.
struct WebhookTargetTests {
    @Test(arguments: [
        "http://127.0.0.1/x", "http://127.1/x", "http://2130706433/", "http://0x7f000001/", "http://10.1.2.3/",
        "http://172.16.0.1/", "http://192.168.1.1:8080/", "http://169.254.169.254/latest", "http://100.64.0.1/",
        "http://0.0.0.0/", "http://[::1]/", "http://[fe80::1]/", "http://[fd00::1]/", "http://[::ffff:127.0.0.1]/",
        "http://localhost/", "http://api.localhost:9/", "http://LOCALHOST./",
    ])
    func privateTargetsAreRefusedUnlessAllowed(url: String) {
        guard case .failure = WebhookTarget.parse(url, allowPrivate: false) else {
            Issue.record("\(url) was allowed"); return
        }
        #expect(
            (try? WebhookTarget.parse(url, allowPrivate: true).get()) != nil || url.contains("0x")
                || url.contains("2130706433") || url.contains("127.1/"))
    }

    @Test(arguments: [
        "ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "http://", "http://user:pw@example.com/",
        "http://example.com:0/", "http://example.com:70000/", "http://exa mple.com/", "http://example.com/#f",
        "javascript:alert(1)", "http://[::1/",
    ])
    func badURLsAreRefusedEvenWithPrivateAllowed(url: String) {
        guard case .failure = WebhookTarget.parse(url, allowPrivate: true) else {
            Issue.record("\(url) was accepted"); return
        }
    }

    @Test func publicTargetsAreAccepted() throws {
        let target = try WebhookTarget.parse("HTTPS://hooks.example.com:8443/in?x=1", allowPrivate: false).get()
        #expect(target == WebhookTarget(scheme: "https", host: "hooks.example.com", port: 8443))
        #expect((try? WebhookTarget.parse("http://93.184.216.34/", allowPrivate: false).get()) != nil)
        #expect((try? WebhookTarget.parse("http://[2606:2800:220:1::1]/", allowPrivate: false).get()) != nil)
    }

    @Test func addressPolicyRefusesEveryInnerRange() {
        let refused = [
            "127.0.0.1", "10.0.0.1", "172.31.255.255", "192.168.0.1", "169.254.1.1", "100.127.0.1", "0.1.2.3",
            "224.0.0.1", "255.255.255.255", "198.18.0.1",
        ]
        for text in refused { #expect(!AddressPolicy.allows(ipv4: AddressPolicy.ipv4(text)!), "\(text)") }
        for text in ["8.8.8.8", "172.32.0.1", "100.128.0.1", "93.184.216.34"] {
            #expect(AddressPolicy.allows(ipv4: AddressPolicy.ipv4(text)!), "\(text)")
        }
        for text in [
            "::", "::1", "fe80::1", "fc00::1", "fdff::1", "ff02::1", "::ffff:10.0.0.1", "fec0::1", "2001:db8::1",
        ] {
            #expect(!AddressPolicy.allows(ipv6: AddressPolicy.ipv6(text)!), "\(text)")
        }
        for text in ["2606:4700::1111", "::ffff:8.8.8.8"] {
            #expect(AddressPolicy.allows(ipv6: AddressPolicy.ipv6(text)!), "\(text)")
        }
    }
}
