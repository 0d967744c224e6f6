/// What every part of the transport (WebSockets, HTTP, Relay, HTTPForwards) is made with besides
/// its port to the runtime (Runtime/Ports.swift) and its own dependencies: the configuration, the
/// logs, the transport's meters and the cluster keys. The runtime makes one `Shared` and hands it
/// to each part it makes. Confined to the service thread, like the parts.
class TransportPart {
    /// The same for every part.
    struct Shared {
        var config: ServerConfig
        var log: Logger
        var clientLog: ClientLog
        var meters: TransportMeters
        var keys: ClusterKeyRing
    }

    let config: ServerConfig
    let log: Logger
    /// The budget of log lines clients cause, shared by the parts.
    let clientLog: ClientLog
    /// The transport's metric families, in the hub's registry.
    let meters: TransportMeters
    /// The cluster keys this node presents and accepts (Relay/ClusterKey.swift).
    let keys: ClusterKeyRing

    init(_ shared: Shared) {
        config = shared.config
        log = shared.log
        clientLog = shared.clientLog
        meters = shared.meters
        keys = shared.keys
    }
}
