/// The WebSocket endpoints.
enum Endpoint {
    /// `/ws`: the board protocol, through the hub.
    case board
    /// `--echo-path`: every message is sent back as it came; the hub never hears of it.
    case echo
    /// `/node.v1`: another node's link for its clients of one board (`NodeLinkFrame`); only with
    /// the cluster key.
    case node
}
