internal import BoardCore

/// The hub's reads out to the store, and the numbers of its reads and write tickets.
///
/// Each read is asked once (`.read`, carrying its own `Reply`: what to do with its answer) and
/// waits here, with the HTTP exchange it answers if any, until the answer comes (`answered`) or
/// nobody wants it any more (`abandon`: `.cancelRead`). A history read (`?at=`, `/history`) also
/// counts against its client's address until then (`historyReads(from:)`; the caps are
/// Hub+History.swift's). It holds no other part. Confined to the service thread (with the hub).
final class StoreReads {
    /// The last number given to a read or a ticket: both count up from one counter.
    private var lastNumber: UInt64 = 0
    /// The reads out, each with the exchange it answers (nil: none) and whether it is a write.
    private var waiting: [ReadID: (exchange: ExchangeID?, writes: Bool)] = [:]
    /// History reads waiting for the store, with their client's address.
    private var history: [ReadID: String] = [:]
    /// The history reads waiting per client address; an address with none has no entry.
    private var historyByAddress: [String: Int] = [:]
    private let turn: Turn

    init(turn: Turn) {
        self.turn = turn
    }

    /// The number for a store write whose durability the hub waits for.
    func makeTicket() -> Ticket {
        lastNumber += 1
        return Ticket(lastNumber)
    }

    /// Asks the store (`.read`); the read's reply says what to do with the answer. A read made
    /// for `exchange` is cancelled when its client goes away (unless it writes); one made for a
    /// history request of `historyOf` counts against that address until it ends.
    @discardableResult
    func ask(_ request: StoreRead, for exchange: ExchangeID? = nil, historyOf peer: String? = nil) -> ReadID {
        lastNumber += 1
        let id = ReadID(lastNumber)
        waiting[id] = (exchange, request.writes)
        if let peer {
            history[id] = peer
            historyByAddress[peer, default: 0] += 1
        }
        turn.emit(.read(id, request))
        return id
    }

    /// The history reads waiting for the store.
    var historyCount: Int { history.count }
    /// The history reads of client address `peer` waiting for the store.
    func historyReads(from peer: String) -> Int { historyByAddress[peer] ?? 0 }

    /// The read's answer came: whether anybody still waits for it.
    func answered(_ id: ReadID) -> Bool {
        guard waiting.removeValue(forKey: id) != nil else { return false }
        ended(id)
        return true
    }

    /// Cancels the reads made only to answer `exchange` (`.cancelRead`, in the order they were
    /// asked); returns how many. A write (`POST /api/revocations`, a share link's add or revoke)
    /// goes on: it was asked for, and it holds whether or not its client hears of it.
    func abandon(_ exchange: ExchangeID) -> Int {
        let unwanted = waiting.compactMap { id, read -> ReadID? in
            read.exchange == exchange && !read.writes ? id : nil
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
        guard let peer = history.removeValue(forKey: id), let count = historyByAddress[peer] else { return }
        historyByAddress[peer] = count > 1 ? count - 1 : nil
    }
}
