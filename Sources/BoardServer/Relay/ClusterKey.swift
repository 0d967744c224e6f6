internal import BoardAuth
internal import BoardCore
internal import BoardHub
internal import BoardStore
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// The owner's side of the relay: the headers a forwarding node sends, the cluster key they are
/// checked against, and which address a forwarded connection counts as (see `Relay`).
extension Relay {
    /// The longest `Origin` a connection keeps for its upstream's handshake.
    static let maximumOriginBytes = 512
    /// The header naming the client a forwarded connection is for (with the colon lws wants).
    static let forwardedForHeader = "x-shuffleboard-forwarded-for:"
    /// The header carrying the cluster secret, in hex.
    static let clusterKeyHeader = "x-shuffleboard-cluster-key:"
    /// The longest value of either header that is read.
    static let maximumHeaderValue = 256

    /// `bytes` in lower-case hex.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The cluster keys in hex, the presented one first: `config.clusterKeys` (`--cluster-key`),
    /// else `config.clusterSecret`'s, else the cluster store's (read here, on the thread that makes
    /// the server, never on the service thread); none when not clustered.
    static func clusterKeys(config: ServerConfig, cluster: (any ClusterStore)?, log: Logger) -> [String] {
        if !config.clusterKeys.isEmpty { return config.clusterKeys }
        if let secret = config.clusterSecret { return [hex(secret)] }
        guard let cluster else { return [] }
        do {
            return [hex(try cluster.clusterSecret())]
        } catch {
            log.error(
                "cannot read the cluster secret (\(error)): connections this node forwards will count as the node's own "
                    + "address at their owners, and it trusts no forwarded address")
            return []
        }
    }

    /// Whether `key` (a header's value) is one of this node's cluster keys. Each is compared in
    /// constant time, and all of them every time: how long it takes says nothing of which matched.
    func acceptsClusterKey(_ key: String) -> Bool {
        var found = false
        for token in acceptedKeys where token.matches(key.utf8) { found = true }
        return found
    }

    // MARK: The owner's side

    /// The client address a trusted node forwarded this connection for, or nil: no such header,
    /// or no valid cluster key with it (then the socket's address counts, and the log says so).
    func forwardedAddress(_ wsi: OpaquePointer, socketPeer: String, id: ConnectionID) -> String? {
        guard let address = Self.customHeader(wsi, Self.forwardedForHeader) else { return nil }
        guard let key = Self.customHeader(wsi, Self.clusterKeyHeader), acceptsClusterKey(key) else {
            clientLog.warning(
                "\(id) from \(socketPeer) names a forwarded-for address without a valid cluster key; "
                    + "using the socket's address")
            return nil
        }
        guard Self.isAddress(address) else {
            clientLog.warning("\(id) from \(socketPeer) names a forwarded-for value that is not an address; ignored")
            return nil
        }
        return address
    }

    /// The header a node link names its node in.
    static let nodeHeader = "x-shuffleboard-node:"

    /// The node a link's upgrade names (`nodeHeader`): letters, digits, `.`, `_`, `-`, at most
    /// 128 bytes; nil when it names none or anything else.
    func linkNodeName(_ wsi: OpaquePointer) -> String? {
        guard let name = Self.customHeader(wsi, Self.nodeHeader), (1...128).contains(name.utf8.count),
            name.utf8.allSatisfy({ c in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: ".")
                    || c == UInt8(ascii: "_") || c == UInt8(ascii: "-")
            })
        else { return nil }
        return name
    }

    /// Whether the upgrade carries this node's cluster key (compared in constant time).
    func presentsClusterKey(_ wsi: OpaquePointer) -> Bool {
        guard let key = Self.customHeader(wsi, Self.clusterKeyHeader) else { return false }
        return acceptsClusterKey(key)
    }

    /// A header lws does not know, by its lower-case name with the colon; "" when it is longer
    /// than `maximumHeaderValue` or holds a control byte, nil when the request has none.
    static func customHeader(_ wsi: OpaquePointer, _ name: String) -> String? {
        name.withCString { cName in
            let nameLength = Int32(strlen(cName))
            let length = lws_hdr_custom_length(wsi, cName, nameLength)
            guard length >= 0 else { return nil }
            guard length <= maximumHeaderValue else { return "" }
            var buffer = [CChar](repeating: 0, count: Int(length) + 1)
            guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), cName, nameLength) >= 0 else { return nil }
            // lws copies with strncpy: a NUL in the value leaves NULs to its end. A value with a
            // control byte is no value a node sends (and must not match a key by its prefix).
            let bytes = buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }
            guard !bytes.contains(where: LWS.isControl) else { return "" }
            return String(decoding: bytes, as: UTF8.self)
        }
    }

    /// An IPv4 or IPv6 address as `lws_get_peer_simple` writes one (what a node forwards).
    static func isAddress(_ text: String) -> Bool {
        (1...45).contains(text.utf8.count)
            && text.utf8.allSatisfy { c in
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
                    UInt8(ascii: "A")...UInt8(ascii: "F"), UInt8(ascii: "."), UInt8(ascii: ":"):
                    return true
                default:
                    return false
                }
            }
    }
}

/// A `--cluster-key` file: one key per line in hex (what the `x-shuffleboard-cluster-key` header
/// carries), at least 32 digits (16 bytes) and at most `Relay.maximumHeaderValue`; blank lines and
/// lines starting with `#` are skipped. The first is presented, every one accepted.
package enum ClusterKeys {
    /// What is wrong with a file.
    package struct Problem: Error {
        package let message: String
    }

    /// The keys of a file, in lower-case hex, in its order.
    package static func parse(_ contents: some Collection<UInt8>) -> Result<[String], Problem> {
        var keys: [String] = []
        for (number, line) in contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let key = text.lowercased()
            guard key.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                return .failure(Problem(message: "line \(number + 1): a key is hex digits only"))
            }
            guard (32...Relay.maximumHeaderValue).contains(key.utf8.count) else {
                return .failure(
                    Problem(message: "line \(number + 1): a key has 32 to \(Relay.maximumHeaderValue) hex digits"))
            }
            keys.append(key)
        }
        guard !keys.isEmpty else { return .failure(Problem(message: "no key in the file")) }
        return .success(keys)
    }
}
