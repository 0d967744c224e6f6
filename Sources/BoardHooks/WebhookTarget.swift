import Glibc

/// Where a webhook may post: an `http` or `https` URL whose host is a public address. Checked
/// twice: when the webhook is made (`parse`: the URL, and a host that is an address or a name
/// that can only be this machine), and at every connection, on the address the name resolved to
/// (`AddressPolicy.allows`, from the delivery thread's socket callback), so a name that resolves
/// (or is rebound) to a private address is refused too.
package struct WebhookTarget: Equatable, Sendable {
    /// `http` or `https`.
    package var scheme: String
    /// The host as written (an IPv6 address without its brackets).
    package var host: String
    /// The port, or nil for the scheme's.
    package var port: Int?

    /// The longest URL a webhook may have, in bytes.
    package static let maxURLBytes = 2048

    /// The URL's target, or why it cannot be one. With `allowPrivate` (`--webhook-allow-private`),
    /// loopback and private hosts are allowed.
    package static func parse(_ url: String, allowPrivate: Bool) -> Result<WebhookTarget, WebhookProblem> {
        guard url.utf8.count <= maxURLBytes else {
            return .failure(WebhookProblem("url is longer than \(maxURLBytes) bytes"))
        }
        guard url.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(WebhookProblem("url must be printable ASCII without spaces (percent-encode the rest)"))
        }
        let lower = url.lowercased()
        let scheme: String
        if lower.hasPrefix("http://") {
            scheme = "http"
        } else if lower.hasPrefix("https://") {
            scheme = "https"
        } else {
            return .failure(WebhookProblem("url must be an http:// or https:// URL"))
        }
        let rest = url.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.contains("@") else {
            return .failure(WebhookProblem("url must not carry a user name or password"))
        }
        guard !url.contains("#") else { return .failure(WebhookProblem("url must not have a fragment")) }
        var host = Substring(authority)
        var port: Int?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else {
                return .failure(WebhookProblem("url has a bad IPv6 host"))
            }
            let after = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65_535).contains(p) else {
                    return .failure(WebhookProblem("url has a bad port"))
                }
                port = p
            }
            guard AddressPolicy.ipv6(String(host)) != nil else {
                return .failure(WebhookProblem("url has a bad IPv6 host"))
            }
        } else if let colon = host.firstIndex(of: ":") {
            guard let p = Int(host[host.index(after: colon)...]), (1...65_535).contains(p) else {
                return .failure(WebhookProblem("url has a bad port"))
            }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty else { return .failure(WebhookProblem("url has no host")) }
        let target = WebhookTarget(scheme: scheme, host: String(host), port: port)
        if !allowPrivate, let reason = target.refusal {
            return .failure(
                WebhookProblem("url's host \(reason): webhooks go to public addresses (unless --webhook-allow-private)")
            )
        }
        return .success(target)
    }

    /// Why the host, as written, cannot be a public address; nil when it may be (a name is
    /// checked again on the address it resolves to, at each connection).
    var refusal: String? {
        if let bytes = AddressPolicy.ipv4(host) {
            return AddressPolicy.allows(ipv4: bytes) ? nil : "is a loopback, private or reserved address"
        }
        if let bytes = AddressPolicy.ipv6(host) {
            return AddressPolicy.allows(ipv6: bytes) ? nil : "is a loopback, private or reserved address"
        }
        let name = host.lowercased().trimmingSuffix(".")
        if name == "localhost" || name.hasSuffix(".localhost") { return "is this machine" }
        // Only letters, digits, hyphens and dots, and not all digits and dots (which resolvers
        // take for an address in a short form: 127.1, 2130706433).
        let allowed = name.utf8.allSatisfy { c in
            (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x2E
        }
        guard allowed else { return "is not a host name" }
        if name.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }) || name.hasPrefix("0x") {
            return "is an address in a short form"
        }
        return nil
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}

/// Which addresses a webhook may connect to: none of loopback, private, link-local, unique-local,
/// shared (CGNAT), multicast, reserved or unspecified.
package enum AddressPolicy {
    /// The four bytes of a dotted-quad IPv4 address, or nil.
    package static func ipv4(_ text: String) -> [UInt8]? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// The sixteen bytes of an IPv6 address, or nil.
    package static func ipv6(_ text: String) -> [UInt8]? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        return withUnsafeBytes(of: &address) { Array($0) }
    }

    /// Whether a webhook may connect to this IPv4 address (four bytes, network order).
    package static func allows(ipv4 b: [UInt8]) -> Bool {
        guard b.count == 4 else { return false }
        switch (b[0], b[1]) {
        case (0, _), (10, _), (127, _): return false  // this network, private, loopback
        case (100, 64...127): return false  // shared address space (carrier-grade NAT)
        case (169, 254): return false  // link-local (and the cloud metadata address)
        case (172, 16...31): return false  // private
        case (192, 168): return false  // private
        case (192, 0) where b[2] == 0: return false  // IETF protocol assignments
        case (198, 18...19): return false  // benchmarking
        case (224...255, _): return false  // multicast, reserved, broadcast
        default: return true
        }
    }

    /// Whether a webhook may connect to this IPv6 address (sixteen bytes).
    package static func allows(ipv6 b: [UInt8]) -> Bool {
        guard b.count == 16 else { return false }
        if b[0..<10].allSatisfy({ $0 == 0 }) && b[10] == 0xFF && b[11] == 0xFF {
            return allows(ipv4: Array(b[12..<16]))  // IPv4-mapped
        }
        if b[0..<12].allSatisfy({ $0 == 0 }) { return false }  // unspecified, loopback, IPv4-compatible
        // NAT64 (64:ff9b::/96): the IPv4 address it stands for.
        if b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xFF && b[3] == 0x9B { return allows(ipv4: Array(b[12..<16])) }
        if b[0] & 0xFE == 0xFC { return false }  // unique-local fc00::/7
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return false }  // link-local fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return false }  // site-local fec0::/10 (deprecated)
        if b[0] == 0xFF { return false }  // multicast
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return false }  // documentation
        return true
    }
}

/// Why a webhook request is refused (400), for people.
package struct WebhookProblem: Error, Equatable, Sendable {
    /// What is wrong.
    package var message: String
    /// A problem.
    package init(_ message: String) { self.message = message }
}
