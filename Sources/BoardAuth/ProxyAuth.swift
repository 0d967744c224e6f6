import Glibc

/// An IPv4 or IPv6 network, as `--auth-proxy-from` takes it: `ADDRESS/PREFIX`, or an address
/// alone for that one address.
package struct CIDR: Equatable, Sendable, CustomStringConvertible {
    /// The network's address: 4 bytes (IPv4) or 16 (IPv6), host bits zero.
    package let network: [UInt8]
    /// How many leading bits must match.
    package let prefix: Int

    /// Parses `text` strictly: an IPv4 address in dotted decimal (four parts, 0–255, no leading
    /// zeros) or an IPv6 address as `inet_pton` reads it, then optionally `/N` (decimal, no
    /// leading zero, at most 32 or 128). Host bits set past the prefix are refused, not masked:
    /// `10.0.0.1/8` is more likely a typo than a wish for all of 10/8.
    package static func parse(_ text: String) -> Result<CIDR, ProxyProblem> {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count <= 2, let address = IPAddress.parse(String(parts[0])) else {
            return .failure(ProxyProblem("\"\(printable(text))\" is not an IPv4 or IPv6 address or network"))
        }
        let bits = address.count * 8
        var prefix = bits
        if parts.count == 2 {
            let digits = parts[1]
            guard (1...3).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }),
                digits == "0" || digits.first != "0", let n = Int(digits), n <= bits
            else {
                return .failure(ProxyProblem("\"\(printable(text))\": the prefix must be a number from 0 to \(bits)"))
            }
            prefix = n
        }
        for (index, byte) in address.enumerated() {
            let kept = max(0, min(8, prefix - index * 8))
            let mask: UInt8 = kept == 0 ? 0 : UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
            guard byte & ~mask == 0 else {
                return .failure(ProxyProblem("\"\(printable(text))\" has bits set past its /\(prefix) prefix"))
            }
        }
        return .success(CIDR(network: address, prefix: prefix))
    }

    /// A list of networks separated by commas (spaces around each allowed), at least one.
    package static func parseList(_ text: String) -> Result<[CIDR], ProxyProblem> {
        var networks: [CIDR] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let trimmed = part.drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed()
            switch parse(String(trimmed)) {
            case .success(let network): networks.append(network)
            case .failure(let problem): return .failure(problem)
            }
        }
        guard !networks.isEmpty, networks.count <= 64 else {
            return .failure(ProxyProblem("give from 1 to 64 networks"))
        }
        return .success(networks)
    }

    /// Whether `address` (4 or 16 bytes, as `IPAddress.parse` gives it) is in this network.
    package func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        var left = prefix
        for (a, n) in zip(address, network) where left > 0 {
            let kept = min(8, left)
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - kept))
            guard a & mask == n else { return false }
            left -= kept
        }
        return true
    }

    /// The network as given (normalised).
    package var description: String {
        if network.count == 4 { return network.map(String.init).joined(separator: ".") + "/\(prefix)" }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        var bytes = network
        _ = inet_ntop(AF_INET6, &bytes, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "/\(prefix)"
    }

    /// `text` with anything but printable ASCII replaced, at most 64 characters (for messages).
    private static func printable(_ text: String) -> String {
        String(
            text.unicodeScalars.prefix(64).map {
                $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?"
            })
    }
}

/// IP addresses as bytes.
package enum IPAddress {
    /// `text` as 4 bytes (IPv4, and IPv4-mapped IPv6 `::ffff:a.b.c.d`, which a dual-stack socket
    /// reports for an IPv4 peer) or 16 (IPv6); nil for anything else. IPv4 is read strictly (four
    /// decimal parts 0–255 without leading zeros: `inet_aton`'s `0x7f.1` and `010.0.0.1` are not
    /// addresses here); IPv6 by `inet_pton`, without a zone (`%eth0`).
    package static func parse(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 45 else { return nil }
        if let v4 = parseIPv4(text) { return v4 }
        guard text.contains(":"), text.utf8.allSatisfy({ $0.isHexDigitOrSeparator }) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        guard inet_pton(AF_INET6, text, &bytes) == 1 else { return nil }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return Array(bytes[12..<16])
        }
        return bytes
    }

    private static func parseIPv4(_ text: String) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }),
                part == "0" || part.first != "0", let n = UInt8(part)
            else { return nil }
            bytes.append(n)
        }
        return bytes
    }
}

extension UInt8 {
    /// A hex digit, `:` or `.` (what an IPv6 address, maybe with an IPv4 tail, is made of).
    fileprivate var isHexDigitOrSeparator: Bool {
        (self >= 0x30 && self <= 0x39) || (self >= 0x41 && self <= 0x46) || (self >= 0x61 && self <= 0x66)
            || self == 0x3A || self == 0x2E
    }
}

/// Why a proxy setting cannot be used.
package struct ProxyProblem: Error, Equatable, Sendable {
    /// What is wrong.
    package var message: String
    /// A problem.
    package init(_ message: String) { self.message = message }
}
