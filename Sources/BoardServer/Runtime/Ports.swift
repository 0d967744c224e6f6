internal import BoardHub

/// What every transport part may ask of the runtime (`Service`), and all that the relay and the
/// REST forwards may: hand the hub an event, and number what they make. A part holds it as an
/// unowned reference of this type, given at its init; it reaches no other part through it.
protocol HubPort: AnyObject {
    /// Hands one event to the hub with the current time, and carries out its actions (after the
    /// actions under way, when called while they are carried out).
    func handle(_ event: Hub.Event)
    /// A new id for a connection, an exchange, an upstream, a node link or a forward: counted
    /// from 1 by the runtime, never with a tag bit of `WSIID` set.
    func makeID() -> UInt64
}

/// What the WebSocket part asks of the runtime besides the hub: the relay for the clients it
/// forwards (the relay knows the WebSocket part, so this way round goes through the runtime), and
/// the loop's end once the last echo connection has closed.
protocol WebSocketsPort: HubPort {
    /// A complete message from a forwarded client, to its upstream or node link (`Relay.relay`).
    func relay(_ message: [UInt8], from connection: Connection)
    /// A forwarded client's connection is gone: its upstream closes (`Relay.clientWent`).
    func forwardedClientWent(_ connection: Connection)
    /// An echo connection closed: the loop ends if the hub has stopped and it was the last.
    func echoClosed()
}

/// What the HTTP part asks of the runtime besides the hub: the whole process's state, which only
/// the runtime sees all of, for `/readyz` and `/metrics` (HTTP/Operations.swift).
protocol HTTPPort: HubPort {
    /// Why the server is not ready (empty when it is): shutting down, the store failing, or (in
    /// a cluster) no lease renewal for a lease.
    var unreadiness: [String] { get }
    /// Every metric, collected now, in the Prometheus text format.
    func metricsText() -> String
}

extension Service: WebSocketsPort, HTTPPort {
    func relay(_ message: [UInt8], from connection: Connection) { relay.relay(message, from: connection) }

    func forwardedClientWent(_ connection: Connection) { relay.clientWent(connection) }

    func echoClosed() { finishIfStopped(now: Clock.now()) }

    var unreadiness: [String] {
        var reasons: [String] = []
        if hub.isStopping { reasons.append("shutting_down") }
        if persister.stats().failing { reasons.append("store_failing") }
        if leaseKeeper?.lapsed == true { reasons.append("leases_lapsed") }
        return reasons
    }

    func metricsText() -> String {
        hub.collectMetrics()
        let nodeLinks = webSockets.nodeLinks
        meters.collect(
            connections: webSockets.connections.values, upstreams: relay.upstreams.count + relay.links.count,
            store: persister.stats(), ready: unreadiness.isEmpty, saturation: webSockets.saturation,
            nodeLinks: (nodeLinks.peers.count, nodeLinks.linkOf.count, nodeLinks.linksByNode))
        return hub.metrics.render()
    }
}
