internal import BoardCore

/// The hub's reads out to the store, and the numbers of its reads and write tickets.
///
/// Each read is asked once (`.read`) and waits here with what to do with its answer (its
/// `Continuation`) until the answer comes (`answered`) or nobody wants it any more (`abandon`:
/// `.cancelRead`). A history read (`?at=`, `/history`) also counts against its client's address
/// until then (`AddressState.historyReads`; the caps are Hub+History.swift's).
/// Confined to the service thread (with the hub).
final class StoreReads {
    /// The last number given to a read or a ticket: both count up from one counter.
    private var lastNumber: UInt64 = 0
    private var waiting: [ReadID: Continuation] = [:]
    /// History reads waiting for the store, with their client's address.
    private var history: [ReadID: String] = [:]
    private let addresses: AddressBook
    private let turn: Turn

    init(addresses: AddressBook, turn: Turn) {
        self.addresses = addresses
        self.turn = turn
    }

    /// The number for a store write whose durability the hub waits for.
    func makeTicket() -> Ticket {
        lastNumber += 1
        return Ticket(lastNumber)
    }

    /// Asks the store (`.read`); the continuation says what to do with the answer. A read made for
    /// a history request of `historyOf` counts against that address until it ends.
    @discardableResult
    func ask(_ request: StoreRead, then continuation: Continuation, historyOf peer: String? = nil) -> ReadID {
        lastNumber += 1
        let id = ReadID(lastNumber)
        waiting[id] = continuation
        if let peer {
            history[id] = peer
            addresses.state(peer).historyReads += 1
        }
        turn.emit(.read(id, request))
        return id
    }

    /// The history reads waiting for the store.
    var historyCount: Int { history.count }

    /// The read's answer came: what to do with it (nil: nobody waits for it).
    func answered(_ id: ReadID) -> Continuation? {
        guard let continuation = waiting.removeValue(forKey: id) else { return nil }
        ended(id)
        return continuation
    }

    /// Cancels the reads made only to answer `exchange` (`.cancelRead`, in the order they were
    /// asked); returns how many. A write (`POST /api/revocations`) goes on: it was asked for, and
    /// it holds whether or not its client hears of it.
    func abandon(_ exchange: ExchangeID) -> Int {
        let unwanted = waiting.compactMap { id, continuation -> ReadID? in
            guard case .http(exchange, let route) = continuation else { return nil }
            if case .revoke = route { return nil }
            return id
        }
        for id in unwanted.sorted(by: { $0.rawValue < $1.rawValue }) {
            waiting[id] = nil
            ended(id)
            turn.emit(.cancelRead(id))
        }
        return unwanted.count
    }

    /// The read is over: if it was a history read, it no longer counts.
    private func ended(_ id: ReadID) {
        guard let peer = history.removeValue(forKey: id) else { return }
        addresses[peer]?.historyReads -= 1
    }
}
