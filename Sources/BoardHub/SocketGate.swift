internal import Basics
internal import BoardCore

/// An accepted connection that is not a WebSocket (yet): a TCP connection, a TLS handshake, an
/// HTTP request or keep-alive connection, an upgrade under way.
struct PendingSocket {
    /// The socket's address (never a proxy's client's: nothing of the request is read yet).
    let peer: String
    /// Counted in its address's `pending` (false for `uncappedAddresses`).
    let capped: Bool
}

/// The limits on connections before they become WebSockets: every accepted connection counts
/// against its address at once, so one address cannot take every file descriptor, header buffer
/// or TLS handshake while others wait.
///
/// - At accept, a connection from an address that already has `maxPendingPerAddress` pending
///   connections, or `maxConnectionsPerAddress` plus that many connections of any kind (see
///   `refusal(for:)`), is refused: the transport closes it before reading a byte.
/// - A pending connection that sends no byte within `firstByteTimeout` is closed (the transport
///   checks the kernel's count of bytes received, which includes bytes lws has not read yet).
/// - A refusal is logged at once, then at most every `cutOffLogEvery` with the count refused since.
///
/// Addresses in `uncappedAddresses` (trusted proxies) are not counted: their connections carry
/// other clients, whose WebSockets count against the address the proxy names. Nor are the
/// cluster's other nodes, once one of their connections carried the cluster's secret: the first
/// burst of forwards from a node may meet the pending cap, and a forward that never got through
/// is tried again (Hub+Cluster.swift).
///
/// The gate owns the pending sockets, their silence checks, the cluster's peers and the addresses
/// cut off; the hub routes `accepted`, `upgraded`, `socketClosed`, `clusterPeer` and its tick here,
/// each with the hub's address book as a lookup (`address`: an address's `AddressState`, where its
/// pending count and refusals are kept with its connections). It holds no other part.
/// Its actions: `refuseSocket`, `closeIfSilent`, and log lines.
final class SocketGate {
    /// Accepted sockets that are not WebSockets (yet), by the transport's id.
    private(set) var sockets: [SocketID: PendingSocket] = [:]
    /// Sockets to check for silence, with when, in accept order (so in order of time).
    private(set) var silenceChecks = FIFO<(id: SocketID, due: Instant)>()
    /// Addresses of the cluster's other nodes, as their forwarded connections showed them.
    private var clusterPeers: Set<String> = []
    /// Addresses refused at accept whose refusals are not all logged yet.
    private(set) var cutOff: Set<String> = []

    private let config: Hub.Config
    private let timers: Hub.Timers
    private let meters: HubMeters
    private let turn: Turn
    private var now: Instant { turn.now }

    init(config: Hub.Config, timers: Hub.Timers, meters: HubMeters, turn: Turn) {
        self.config = config
        self.timers = timers
        self.meters = meters
        self.turn = turn
    }

    /// The transport accepted a socket from `peer`. `address`: the address's state, made when it
    /// has none (`AddressBook.state`); asked only for a capped address.
    func accepted(_ id: SocketID, peer: String, address state: (String) -> AddressState) {
        let capped = !config.uncappedAddresses.contains(peer) && !clusterPeers.contains(peer)
        if capped {
            let address = state(peer)
            if let refusal = refusal(for: address) {
                meters.connectionsRefused.add(refusal)
                noteRefusal(by: refusal, of: peer, address)
                turn.emit(.refuseSocket(id))
                return
            }
            address.pending += 1
        }
        sockets[id] = PendingSocket(peer: peer, capped: capped)
        if timers.firstByteTimeout > .zero { silenceChecks.append((id, now + timers.firstByteTimeout)) }
    }

    /// Another node's address: from now on its connections are not capped at accept (a burst of
    /// forwarded joins opens many upstreams at once). Only a holder of the cluster's secret gets
    /// here, and the set is bounded all the same.
    func clusterPeer(_ address: String) {
        guard !clusterPeers.contains(address), clusterPeers.count < Self.maximumClusterPeers else { return }
        clusterPeers.insert(address)
        turn.log(.info, "\(address) is a node of the cluster: its connections are not capped per address at accept")
    }

    /// The most cluster peers remembered.
    static let maximumClusterPeers = 1024

    /// The socket became a WebSocket or closed: it no longer counts as pending. `address`: the
    /// address's state, if it has one.
    func leftPending(_ id: SocketID, address state: (String) -> AddressState?) {
        guard let socket = sockets.removeValue(forKey: id) else { return }
        if socket.capped, let address = state(socket.peer) { address.pending -= 1 }
        if sockets.isEmpty { sockets = [:] }  // Drops the storage a burst of connections grew.
    }

    /// Asks the transport to close sockets silent past their timeout; logs what refusals at
    /// accept have not been logged. `address`: an address's state, if it has one (an address
    /// forgotten meanwhile is cut off no more).
    func tick(address state: (String) -> AddressState?) {
        while let check = silenceChecks.first, check.due <= now {
            _ = silenceChecks.popFirst()
            if sockets[check.id] != nil { turn.emit(.closeIfSilent(check.id)) }
        }
        if silenceChecks.isEmpty {
            silenceChecks = FIFO()
        } else if silenceChecks.count > 2 * sockets.count + 64 {
            // Most sockets in it closed before their check: keep it as small as the open ones.
            silenceChecks = FIFO(silenceChecks.filter { sockets[$0.id] != nil })
        }
        for peer in cutOff {
            guard let address = state(peer) else {
                cutOff.remove(peer)
                continue
            }
            guard now >= (address.refusalLogged ?? now) + timers.cutOffLogEvery else { continue }
            if address.refused > 0 {
                logRefusals(of: peer, address)
            } else {
                // None refused for a while: the next refusal is a new episode.
                address.refusalLogged = nil
                cutOff.remove(peer)
            }
        }
    }

    /// Pending connections are capped by `maxPendingPerAddress`; all connections together by
    /// `maxConnectionsPerAddress` plus that, so that a WebSocket over `maxConnectionsPerAddress`
    /// is still accepted and hears why it is refused (4429). Without a pending cap, the total is
    /// `maxConnectionsPerAddress`, counted at accept.
    private func refusal(for address: AddressState) -> SocketRefusal? {
        let pending = config.maxPendingPerAddress
        if pending > 0 && address.pending >= pending { return .pendingPerAddress }
        let total = config.maxConnectionsPerAddress
        if total > 0 && address.pending + address.connections >= total + pending { return .connectionsPerAddress }
        return nil
    }

    private func noteRefusal(by refusal: SocketRefusal, of peer: String, _ address: AddressState) {
        address.refused += 1
        address.refusedBy = refusal
        guard let logged = address.refusalLogged, now < logged + timers.cutOffLogEvery else {
            return logRefusals(of: peer, address)
        }
    }

    /// One line for the refusals of `peer` since the last.
    private func logRefusals(of peer: String, _ address: AddressState) {
        let cap =
            address.refusedBy == .connectionsPerAddress
            ? "\(address.pending + address.connections) connections open, --max-connections-per-address "
                + "\(config.maxConnectionsPerAddress) + --max-pending-per-address \(config.maxPendingPerAddress)"
            : "\(address.pending) connections not upgraded, --max-pending-per-address \(config.maxPendingPerAddress)"
        let line =
            address.refusalLogged == nil
            ? "address \(peer) cut off: \(cap); refusing its new connections at accept"
            : "address \(peer) still cut off: \(address.refused) connection(s) refused at accept in the last "
                + "\((now - (address.refusalLogged ?? now)) / 1000) s (\(cap))"
        turn.log(.warning, line)
        address.refused = 0
        address.refusalLogged = now
        cutOff.insert(peer)
    }
}
