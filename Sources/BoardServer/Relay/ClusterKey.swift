internal import BoardAuth
internal import BoardHub
internal import BoardStore
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// The owner's side of the relay: the headers a forwarding node sends, the cluster key they are
/// checked against, and which address a forwarded connection counts as (see `Relay`).
extension Relay {
    /// The header a node link names its node in.
    static let nodeHeader = "x-shuffleboard-node:"
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

/// The cluster keys of this node: the one it presents (to the owners it forwards to) and every
/// one it accepts (from the nodes that forward to it, and on their node links), and which address
/// a forwarded connection or REST request counts as. Shared by the parts that read or send them
/// (WebSockets, HTTP, Relay, HTTPForwards); confined to the service thread but for `inbox`.
final class ClusterKeyRing {
    /// The cluster key this node presents, as the `x-shuffleboard-cluster-key` header carries it
    /// (hex), and as a token to compare a received one with in constant time; nil when not
    /// clustered.
    private(set) var presented: (hex: String, token: StaticToken)?
    /// Every key a node may present to this one: `presented`'s, and during a rotation the other
    /// keys of `--cluster-key` (`ClusterKeys`).
    private var accepted: [StaticToken]
    /// New keys from another thread (`Server.useClusterKeys`, on SIGHUP), taken when the service
    /// thread drains its inbox.
    let inbox = Inbox<[String]>()
    private let log: Logger
    private let clientLog: ClientLog

    init(_ keys: [String], log: Logger, clientLog: ClientLog) {
        presented = keys.first.map { ($0, StaticToken(Array($0.utf8))) }
        accepted = keys.map { StaticToken(Array($0.utf8)) }
        self.log = log
        self.clientLog = clientLog
    }

    /// From now on presents the first of `keys` and accepts every one (`--cluster-key` re-read):
    /// connections made before keep going; new ones, and their owners, see the new keys.
    func use(_ keys: [String]) {
        guard let first = keys.first, presented != nil else { return }
        presented = (first, StaticToken(Array(first.utf8)))
        accepted = keys.map { StaticToken(Array($0.utf8)) }
        log.info("cluster keys: \(keys.count) in use, the first presented")
    }

    /// Whether this node may forward (it has the cluster key), and so keeps clients' origins.
    var forwards: Bool { presented != nil }

    /// Whether `key` (a header's value) is one of this node's cluster keys. Each is compared in
    /// constant time, and all of them every time: how long it takes says nothing of which matched.
    func acceptsClusterKey(_ key: String) -> Bool {
        var found = false
        for token in accepted where token.matches(key.utf8) { found = true }
        return found
    }

    /// The client address a trusted node forwarded this connection for, or nil: no such header,
    /// or no valid cluster key with it (then the socket's address counts, and the log says so).
    func forwardedAddress(_ wsi: OpaquePointer, socketPeer: String, id: ConnectionID) -> String? {
        guard let address = Relay.customHeader(wsi, Relay.forwardedForHeader) else { return nil }
        guard let key = Relay.customHeader(wsi, Relay.clusterKeyHeader), acceptsClusterKey(key) else {
            clientLog.warning(
                "\(id) from \(socketPeer) names a forwarded-for address without a valid cluster key; "
                    + "using the socket's address")
            return nil
        }
        guard Relay.isAddress(address) else {
            clientLog.warning("\(id) from \(socketPeer) names a forwarded-for value that is not an address; ignored")
            return nil
        }
        return address
    }

    /// The node a link's upgrade names (`nodeHeader`): letters, digits, `.`, `_`, `-`, at most
    /// 128 bytes; nil when it names none or anything else.
    func linkNodeName(_ wsi: OpaquePointer) -> String? {
        guard let name = Relay.customHeader(wsi, Relay.nodeHeader), (1...128).contains(name.utf8.count),
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
        guard let key = Relay.customHeader(wsi, Relay.clusterKeyHeader) else { return false }
        return acceptsClusterKey(key)
    }

    /// The client address a node of the cluster relayed this HTTP request for (`HTTPForwards`),
    /// or nil: no such header, or no valid cluster key with it (then the socket's address counts).
    func forwardedHTTPAddress(_ wsi: OpaquePointer, socketPeer: String) -> String? {
        guard let address = Relay.customHeader(wsi, Relay.forwardedForHeader) else { return nil }
        guard let key = Relay.customHeader(wsi, Relay.clusterKeyHeader), acceptsClusterKey(key),
            Relay.isAddress(address)
        else {
            clientLog.warning(
                "an HTTP request from \(socketPeer) names a forwarded-for address without a valid cluster key; "
                    + "using the socket's address")
            return nil
        }
        return address
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
