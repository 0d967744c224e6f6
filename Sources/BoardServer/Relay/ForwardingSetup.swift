internal import CLibWebSockets
internal import LWSSupport

/// What forwarding needs for the life of the service: the upstreams' ping policy (lws keeps
/// pointing at it) and whether the log has warned about host names.
final class ForwardingSetup {
    /// The upstreams' `retry_and_idle_policy`: ping after `--forward-timeout` without a pong,
    /// hang up after twice that.
    let retry: UnsafeMutablePointer<lws_retry_bo_t>
    /// Set once the log said that a host name in `advertise` blocks the service thread.
    var warnedHostName = false
    /// Owners (`HOST:PORT`) whose TLS certificate did not verify, so that the log says so once
    /// for each until one of them is reached again. Bounded by the cluster's nodes: the
    /// addresses come from the cluster store, not from clients.
    var untrustedOwners: Set<NodeAddress> = []

    init(timeout: Duration) {
        let ping = UInt16(min(max(1, timeout.wholeSeconds), 30_000))
        retry = .allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        retry.pointee.secs_since_valid_ping = ping
        retry.pointee.secs_since_valid_hangup = 2 * ping
    }

    deinit { retry.deallocate() }
}

/// Another node's advertised address (`--advertise`, as a lease names it): what an upstream, a
/// node link and a relayed REST request connect to, and what their log lines name (`HOST:PORT`).
struct NodeAddress: Hashable, CustomStringConvertible {
    let host: String
    let port: Int

    init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `HOST:PORT` (`[V6]:PORT` too), or nil.
    init?(advertise: String) {
        guard let colon = advertise.lastIndex(of: ":") else { return nil }
        var host = String(advertise[..<colon])
        guard let port = Int(advertise[advertise.index(after: colon)...]), (1...65_535).contains(port) else {
            return nil
        }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty, host.utf8.count <= 253 else { return nil }
        self.init(host: host, port: port)
    }

    /// `HOST:PORT`, an IPv6 address without brackets (as the log lines have always named it).
    var description: String { "\(host):\(port)" }
}

extension ClientConnect {
    /// A connection to another node at its advertised address (an IP address: a name would be
    /// resolved on the service thread), as every way of reaching a board's owner makes it: the
    /// `Host` header (an IPv6 address in brackets), the subprotocol lws binds the wsi to, and TLS
    /// whenever this node serves TLS, so that the cluster key never goes in the clear and the
    /// owner's certificate must verify (`--cluster-ca`) for its address.
    static func toNode(_ owner: NodeAddress, path: String, tls: Bool) -> ClientConnect {
        let (host, port) = (owner.host, owner.port)
        var connect = ClientConnect(
            address: host, port: port, path: path, host: host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)")
        connect.subprotocol = "shuffleboard.v1"
        connect.tls = tls
        return connect
    }
}

/// The buffer an upstream or a node link writes from: each message copied after `headroom`
/// writable bytes (`LWS_PRE`: lws masks the frame in place), kept and grown to the largest
/// message written since it was last released. One per connection; nothing is allocated per
/// message once it holds the largest.
struct WriteBuffer: ~Copyable {
    private var storage: UnsafeMutableRawBufferPointer?
    private let headroom: Int

    init(headroom: Int) { self.headroom = headroom }

    deinit { storage?.deallocate() }

    /// `message`, copied after the headroom; valid until the next call or `release`.
    mutating func place(_ message: [UInt8]) -> UnsafeMutableRawBufferPointer {
        let needed = headroom + message.count
        if (storage?.count ?? 0) < needed {
            release()
            storage = .allocate(byteCount: needed, alignment: 16)
        }
        let bytes = UnsafeMutableRawBufferPointer(rebasing: storage![headroom..<needed])
        message.withUnsafeBytes { bytes.copyMemory(from: $0) }
        return bytes
    }

    /// Gives the memory back (nothing waits to be written).
    mutating func release() {
        storage?.deallocate()
        storage = nil
    }
}
