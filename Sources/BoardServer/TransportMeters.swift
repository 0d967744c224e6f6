internal import BoardCore
internal import BoardHub
internal import BoardMetrics
internal import BoardStore
import Foundation

/// The transport's metric families, registered in the hub's registry after the hub's own, and
/// moved on the service thread: connections, messages and bytes, closes, send queues, HTTP, and
/// the writer thread's statistics (copied from behind the `Persister`'s lock at scrape time).
final class TransportMeters {
    let accepted: Counter<EndpointLabel>
    let open: Gauge<EndpointLabel>
    let received: Counter<ClientMessageType>
    let receivedBytes: Counter<ClientMessageType>
    let sent: Counter<ServerMessageType>
    let sentBytes: Counter<ServerMessageType>
    let closes: Counter<CloseLabel>
    let queuedBytes: Gauge<NoLabels>
    let queuedBytesMax: Gauge<NoLabels>
    let httpResponses: Counter<StatusLabel>
    let upgradesRefused: Counter<UpgradeRefusalLabel>
    let storeBatchWrites: Histogram<NoLabels>
    let storeWriteSeconds: Histogram<NoLabels>
    let storeWriteFailures: Counter<StoreFailureLabel>
    let storeFailing: Gauge<NoLabels>
    let ready: Gauge<NoLabels>
    let serviceBusy: Gauge<NoLabels>
    let hoverPacing: Gauge<NoLabels>
    let startTime: Gauge<NoLabels>
    let forwards: Counter<NoLabels>
    let forwardsOpen: Gauge<NoLabels>
    let nodeLinksOpen: Gauge<NoLabels>
    let nodeLinksByNode: Gauge<NodeLabel>
    let nodeLinkClients: Gauge<NoLabels>
    let forwardEnds: Counter<ForwardEndLabel>
    let relayed: Counter<RelayDirection>
    let relayedBytes: Counter<RelayDirection>

    /// Writes per store transaction (an op, a creation or a deletion each).
    static let batchBounds: [Double] = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
    /// Seconds per `store.write` (the transaction and its fsync).
    static let writeSecondsBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
    ]

    init(_ registry: Metrics) {
        accepted = registry.counter(
            "shuffleboard_connections_accepted_total", "WebSocket connections accepted, by endpoint.",
            labels: EndpointLabel.self)
        open = registry.gauge(
            "shuffleboard_connections_open", "WebSocket connections open, by endpoint.", labels: EndpointLabel.self)
        received = registry.counter(
            "shuffleboard_messages_received_total",
            "Complete client messages on /ws, by type (invalid: did not parse).", labels: ClientMessageType.self)
        receivedBytes = registry.counter(
            "shuffleboard_received_bytes_total", "Payload bytes of complete client messages on /ws, by type.",
            labels: ClientMessageType.self)
        sent = registry.counter(
            "shuffleboard_messages_sent_total", "Server messages queued for a connection, by type (one per recipient).",
            labels: ServerMessageType.self)
        sentBytes = registry.counter(
            "shuffleboard_sent_bytes_total", "WebSocket frame bytes queued for connections, by message type.",
            labels: ServerMessageType.self)
        closes = registry.counter(
            "shuffleboard_closes_total",
            "WebSocket connections closed, by close code and who closed (network: no close frame, 1006).",
            labels: CloseLabel.self)
        queuedBytes = registry.gauge(
            "shuffleboard_send_queue_bytes", "Output bytes held for every connection (queued frames and lws's buffer).")
        queuedBytesMax = registry.gauge(
            "shuffleboard_send_queue_max_bytes", "Output bytes held for the connection that holds the most.")
        httpResponses = registry.counter(
            "shuffleboard_http_responses_total", "HTTP responses written, by status code.", labels: StatusLabel.self)
        upgradesRefused = registry.counter(
            "shuffleboard_upgrades_refused_total",
            "WebSocket upgrades refused before the handshake, by reason (origin: not in --allow-origin; "
                + "no_origin: none, without --allow-no-origin; control_byte: a header held one).",
            labels: UpgradeRefusalLabel.self)
        storeBatchWrites = registry.histogram(
            "shuffleboard_store_batch_writes",
            "Writes (ops, creations, deletions) per committed store transaction (group commit).",
            buckets: Self.batchBounds)
        storeWriteSeconds = registry.histogram(
            "shuffleboard_store_write_seconds",
            "Time of each store write on the writer thread (one transaction and its fsync), failed ones included.",
            buckets: Self.writeSecondsBounds)
        storeWriteFailures = registry.counter(
            "shuffleboard_store_write_failures_total",
            "Store writes that failed, by kind (transient: retried; permanent: that board's batch failed).",
            labels: StoreFailureLabel.self)
        storeFailing = registry.gauge(
            "shuffleboard_store_failing", "1 while the writer's last attempt failed and it is retrying, else 0.")
        ready = registry.gauge(
            "shuffleboard_ready",
            "1 when /readyz answers 200 (store writable, leases renewed, not shutting down), else 0.")
        serviceBusy = registry.gauge(
            "shuffleboard_service_busy_ratio",
            "The service thread's share of a core over the last quarter second (1: it never waited for input).")
        hoverPacing = registry.gauge(
            "shuffleboard_hover_pacing",
            "1 while hovers are paced (the service thread is saturated; --hover-pacing), else 0.")
        startTime = registry.gauge(
            "shuffleboard_start_time_seconds", "When the server started, in seconds since 1970 (UTC).")
        startTime.set(Double(Clock.wall().milliseconds / 1000))
        forwards = registry.counter(
            "shuffleboard_forwards_total",
            "Clients of this node forwarded to a board's owner, over a node link or an upstream (retries included).")
        forwardsOpen = registry.gauge(
            "shuffleboard_forwards_open",
            "Node links (one per owner and board) and upstreams to boards' owners open or connecting.")
        nodeLinksOpen = registry.gauge(
            "shuffleboard_node_links_open",
            "Node links other nodes hold to this one (one per node and board they forward clients of).")
        nodeLinksByNode = registry.gauge(
            "shuffleboard_node_links",
            "Node links other nodes hold to this one, by the node (one per board it forwards clients of).",
            labels: NodeLabel.self)
        nodeLinkClients = registry.gauge(
            "shuffleboard_node_link_clients", "Sessions of other nodes' clients that came over node links.")
        forwardEnds = registry.counter(
            "shuffleboard_forward_ends_total",
            "Forwards that ended, by how (closed: the owner closed the client or its link or upstream; failed: "
                + "no connection or no handshake; timeout: the connect timeout; client: the client went first).",
            labels: ForwardEndLabel.self)
        relayed = registry.counter(
            "shuffleboard_relayed_messages_total",
            "Messages relayed between forwarded clients and boards' owners, by direction.", labels: RelayDirection.self)
        relayedBytes = registry.counter(
            "shuffleboard_relayed_bytes_total",
            "Payload bytes relayed between forwarded clients and boards' owners, by direction.",
            labels: RelayDirection.self)
    }

    /// Counts one server message queued for `recipients` connections as `bytes` each.
    func sent(_ message: ServerMessage, bytes: Int, recipients: Int) {
        guard recipients > 0 else { return }
        let type = ServerMessageType(message)
        sent.add(type, UInt64(recipients))
        sentBytes.add(type, UInt64(bytes * recipients))
    }

    /// Sets the gauges of the connections and the writer, for a scrape.
    func collect(
        connections: Dictionary<ConnectionID, Connection>.Values, upstreams: Int, store: StoreStats, ready: Bool,
        saturation: Saturation, nodeLinks: (links: Int, clients: Int, byNode: [String: Int]) = (0, 0, [:])
    ) {
        nodeLinksOpen.set(nodeLinks.links)
        nodeLinksByNode.removeAll()
        for (node, count) in nodeLinks.byNode { nodeLinksByNode.set(NodeLabel(node: node), Double(count)) }
        nodeLinkClients.set(nodeLinks.clients)
        serviceBusy.set(saturation.busy)
        hoverPacing.set(saturation.saturated ? 1 : 0)
        forwardsOpen.set(upstreams)
        var open: [EndpointLabel: Int] = [:]
        var total = 0
        var largest = 0
        for connection in connections {
            open[EndpointLabel(connection.endpoint), default: 0] += 1
            total += connection.heldBytes
            largest = max(largest, connection.heldBytes)
        }
        for endpoint in EndpointLabel.allCases { self.open.set(endpoint, Double(open[endpoint] ?? 0)) }
        queuedBytes.set(total)
        queuedBytesMax.set(largest)
        storeBatchWrites.replace(NoLabels(), with: store.batchWrites)
        storeWriteSeconds.replace(NoLabels(), with: store.writeSeconds)
        storeWriteFailures.set(.transient, store.transientFailures)
        storeWriteFailures.set(.permanent, store.permanentFailures)
        storeFailing.set(store.failing ? 1 : 0)
        self.ready.set(ready ? 1 : 0)
    }
}

/// What the writer thread measures, kept behind the `Persister`'s lock.
struct StoreStats: Sendable {
    var batchWrites = HistogramValue(bounds: TransportMeters.batchBounds)
    var writeSeconds = HistogramValue(bounds: TransportMeters.writeSecondsBounds)
    var transientFailures: UInt64 = 0
    var permanentFailures: UInt64 = 0
    /// The last attempt failed transiently and the writer is retrying.
    var failing = false
}

/// `endpoint`: `ws` or `echo`.
enum EndpointLabel: String, MetricLabels, CaseIterable {
    case ws, echo
    static let names = ["endpoint"]

    init(_ endpoint: Endpoint) {
        switch endpoint {
        case .board, .node: self = .ws
        case .echo: self = .echo
        }
    }
}

/// `code` and `initiator` of a close. Codes a client chose that the protocol does not name
/// become `other`, so a client cannot make a series per code.
struct CloseLabel: MetricLabels {
    /// Who ended the connection.
    enum Initiator: String {
        case server, client, network
    }

    var code: String
    var initiator: Initiator

    /// The close codes that get a series of their own.
    static let known: Set<UInt16> = [
        1000, 1001, 1002, 1003, 1005, 1006, 1007, 1008, 1009, 1011, 1013, 4401, 4404, 4408, 4409, 4410, 4429,
    ]

    init(code: UInt16, initiator: Initiator) {
        self.code = Self.known.contains(code) ? String(code) : "other"
        self.initiator = initiator
    }

    static let names = ["code", "initiator"]
    static let initial: [CloseLabel] = []
    var values: [String] { [code, initiator.rawValue] }
}

/// `how` a forwarded connection's upstream ended.
enum ForwardEndLabel: String, MetricLabels, CaseIterable {
    case closed, failed, timeout, client
    static let names = ["how"]
}

/// `direction` of a relayed message: from the client to the owner, or back.
enum RelayDirection: String, MetricLabels, CaseIterable {
    case toOwner = "to_owner"
    case toClient = "to_client"
    static let names = ["direction"]
}

/// `reason` a WebSocket upgrade was refused (`Service.admitUpgrade`).
enum UpgradeRefusalLabel: String, MetricLabels, CaseIterable {
    case origin
    case noOrigin = "no_origin"
    case controlByte = "control_byte"
    /// A path other than `/ws` (or the echo path).
    case path
    static let names = ["reason"]
}

/// An HTTP status code (the server chooses every one).
struct StatusLabel: MetricLabels {
    var status: Int
    static let names = ["code"]
    static let initial: [StatusLabel] = []
    var values: [String] { [String(status)] }
}

/// `kind` of a failed store write.
enum StoreFailureLabel: String, MetricLabels, CaseIterable {
    case transient, permanent
    static let names = ["kind"]
}

/// `node`: another node of the cluster, by the name its node links give (`x-shuffleboard-node`).
struct NodeLabel: MetricLabels {
    var node: String
    static let names = ["node"]
    static let initial: [NodeLabel] = []
    var values: [String] { [node] }
}
