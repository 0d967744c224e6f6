internal import BoardCore

/// What the hub keeps per client address (`AddressState`): made at an address's first
/// connection or request, forgotten once it is idle. The socket gate (SocketGate.swift) counts
/// pending connections in it, the sessions their WebSockets and rates, the HTTP API its REST ops'
/// bucket (event streams and history reads are counted per address by `EventStreams` and
/// `StoreReads`).
/// Confined to the service thread (with the hub).
final class AddressBook {
    private var table: [String: AddressState] = [:]
    private let config: Hub.Config
    private let turn: Turn

    init(config: Hub.Config, turn: Turn) {
        self.config = config
        self.turn = turn
    }

    /// The address's state, if it has one.
    subscript(peer: String) -> AddressState? { table[peer] }

    /// The address's state, made (with full buckets) when it has none.
    func state(_ peer: String) -> AddressState {
        if let state = table[peer] { return state }
        let state = AddressState(config, now: turn.now)
        table[peer] = state
        return state
    }

    /// The addresses known.
    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }

    /// Forgets the addresses with nothing open, nothing to log and full buckets.
    func forgetIdle() {
        for (peer, address) in table where address.isIdle(config, now: turn.now) { table[peer] = nil }
    }
}
