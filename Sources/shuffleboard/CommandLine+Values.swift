import Glibc

/// The values options take: names, addresses, integers in range and booleans, each refused with
/// a usage error that names the option (the settings table, `Setting`, adds its units).
extension CommandLineParser {
    static func isNodeName(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c | 0x20 >= 0x61 && c | 0x20 <= 0x7A) || c == 0x2E || c == 0x5F
                    || c == 0x2D
            }
    }

    /// Whether `text` is an IP address and a port: `10.0.0.5:8080` or `[fd00::5]:8080`. Not a host
    /// name: the nodes connect to one another from the service thread, where a name lookup would
    /// block every client (lws 4.1.6 has no asynchronous resolver).
    static func isAddressAndPort(_ text: String) -> Bool {
        guard text.utf8.count <= 300, let colon = text.lastIndex(of: ":"),
            let port = Int(text[text.index(after: colon)...]), (1...65535).contains(port)
        else { return false }
        let host = text[..<colon]
        var address = in6_addr()
        if host.hasPrefix("[") && host.hasSuffix("]") {
            return inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &address) == 1
        }
        return inet_pton(AF_INET, String(host), &address) == 1
    }

    static func integer(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(
                message: "\(option) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    static func boolean(_ text: String, _ option: String) throws(UsageError) -> Bool {
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw UsageError(message: "\(option) must be true or false, not '\(text)'")
        }
    }
}
