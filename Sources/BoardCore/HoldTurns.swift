/// Whose turn it is to take an item once a hold on it ends: what keeps a client from holding an
/// item for ever by taking it again the moment its hold expires.
///
/// - A hold that ends by expiry (idle timeout or lifetime) bars its holder, and every connection
///   from the holder's address, from that item for `cooldown` milliseconds.
/// - A `dragStart` refused because another user holds the item (or because it is someone else's
///   turn) puts the asker in the item's line: at most `lineLimit` askers, one per address (while
///   one user of an address waits, the others' asks are not counted), first come first served. An ask is forgotten `forgetAfter` milliseconds after it was last made, or when the
///   asker leaves the board; a hold that expires takes its holder's address out of the line.
/// - When a hold ends (however it ends) with someone in line, the first in line may take the item,
///   and nobody else (not even another user from its address), for `cooldown` milliseconds; if
///   they do not, the next in line gets the same, and so on.
///
/// Only `dragStart` is affected: a turn is not a hold, so ops on the item go on as usual. Every
/// table here is bounded: one entry per item that has a line or a bar (the board's items), each
/// line `lineLimit` long. Time is passed in.
package struct HoldTurns: Sendable {
    /// Who asks: a user, and the client address of its connection (nil: unknown, then only the
    /// user is matched).
    package struct Claimant: Equatable, Sendable {
        /// The user.
        package var user: UserID
        /// Its connection's client address, if known.
        package var address: String?

        /// A claimant.
        package init(user: UserID, address: String?) {
            self.user = user
            self.address = address
        }

        /// The same user, or another connection from the same known address.
        func isSame(as other: Claimant) -> Bool {
            user == other.user || (address != nil && address == other.address)
        }
    }

    /// What `check` says of a `dragStart` of a free item.
    package enum Verdict: Equatable, Sendable {
        /// The claimant may take it.
        case free
        /// The claimant's own hold on it expired less than `cooldown` ago.
        case coolingDown
        /// It is `user`'s turn (the first in line); the claimant was put in line.
        case turnOf(UserID)
    }

    private struct Ask: Sendable {
        var claimant: Claimant
        var asked: Instant
    }

    private struct Turn: Sendable {
        /// The holder whose hold expired, and until when it may not take the item again.
        var barred: (claimant: Claimant, until: Instant)?
        /// Who asked while it was unavailable, first asker first.
        var line: [Ask] = []
        /// While set, only the first in line may take the item, until this time.
        var reservedUntil: Instant?

        var isEmpty: Bool { barred == nil && line.isEmpty }
    }

    /// How long an expired holder waits, and how long the first in line has to take its turn.
    package var cooldown: Int64
    /// The most askers remembered per item.
    package var lineLimit: Int
    /// How long an ask is remembered after it was last made.
    package var forgetAfter: Int64
    private var turns: [ItemID: Turn] = [:]

    /// Turns with these rules.
    package init(cooldown: Int64, lineLimit: Int = 8, forgetAfter: Int64) {
        self.cooldown = cooldown
        self.lineLimit = lineLimit
        self.forgetAfter = forgetAfter
    }

    /// True when no item has a line or a bar.
    package var isEmpty: Bool { turns.isEmpty }

    /// The askers in `item`'s line, first first (for tests).
    package func line(_ item: ItemID) -> [Claimant] { turns[item]?.line.map(\.claimant) ?? [] }

    /// Whether `claimant` may take the free `item` at `now`. When it is someone else's turn,
    /// the claimant is put in line.
    package mutating func check(_ item: ItemID, for claimant: Claimant, now: Instant) -> Verdict {
        guard var turn = settled(item, now: now) else { return .free }
        defer { store(turn, for: item) }
        if let barred = turn.barred, claimant.isSame(as: barred.claimant) { return .coolingDown }
        guard turn.reservedUntil != nil, let first = turn.line.first, claimant.user != first.claimant.user else {
            return .free
        }
        enqueue(claimant, in: &turn, now: now)
        return .turnOf(first.claimant.user)
    }

    /// A `dragStart` of `item` (or an op on it) was refused because another user holds it:
    /// `claimant` goes in line, unless it is barred. (Users behind one address as the holder may
    /// wait too: at an expiry the whole address leaves the line.)
    package mutating func refusedWhileHeld(_ item: ItemID, _ claimant: Claimant, now: Instant) {
        var turn = settled(item, now: now) ?? Turn()
        if let barred = turn.barred, claimant.isSame(as: barred.claimant) { return }
        enqueue(claimant, in: &turn, now: now)
        store(turn, for: item)
    }

    /// `claimant` took `item`: it leaves the line, and its turn (if it was) is used.
    package mutating func took(_ item: ItemID, by claimant: Claimant) {
        guard var turn = turns[item] else { return }
        if let first = turn.line.first, first.claimant.user == claimant.user { turn.reservedUntil = nil }
        turn.line.removeAll { $0.claimant.user == claimant.user }
        store(turn, for: item)
    }

    /// The hold of `holder` on `item` ended at `now`, by expiry when `expired`: an expired holder is
    /// barred for the cooldown, and the first in line gets its turn.
    package mutating func ended(_ item: ItemID, holder: Claimant, expired: Bool, now: Instant) {
        var turn = settled(item, now: now) ?? Turn()
        if expired {
            turn.barred = (holder, now + cooldown)
            turn.line.removeAll { $0.claimant.isSame(as: holder) }
        }
        turn.reservedUntil = turn.line.isEmpty ? nil : now + cooldown
        store(turn, for: item)
    }

    /// `user` left the board: its asks are forgotten (a bar on its address stays).
    package mutating func left(_ user: UserID) {
        for (item, var turn) in turns where turn.line.contains(where: { $0.claimant.user == user }) {
            let wasFirst = turn.line.first?.claimant.user == user
            turn.line.removeAll { $0.claimant.user == user }
            // The next in line gets the rest of the turn the leaver had.
            if wasFirst && turn.line.isEmpty { turn.reservedUntil = nil }
            store(turn, for: item)
        }
    }

    /// Forgets bars, turns and asks that are over at `now`.
    package mutating func prune(now: Instant) {
        for item in turns.keys { store(settled(item, now: now) ?? Turn(), for: item) }
    }

    /// `item`'s turn as it stands at `now`: bars and asks past their time gone, and a turn not
    /// taken in time passed on to the next in line. Nil when there is nothing left.
    private func settled(_ item: ItemID, now: Instant) -> Turn? {
        guard var turn = turns[item] else { return nil }
        if let barred = turn.barred, now >= barred.until { turn.barred = nil }
        while let until = turn.reservedUntil, now >= until, !turn.line.isEmpty {
            turn.line.removeFirst()
            turn.reservedUntil = turn.line.isEmpty ? nil : until + cooldown
        }
        if turn.line.isEmpty { turn.reservedUntil = nil }
        // Asks not renewed for `forgetAfter`, unless it is the asker's turn now.
        let keepFirst = turn.reservedUntil != nil
        turn.line = turn.line.enumerated().filter {
            (keepFirst && $0.offset == 0) || now - $0.element.asked < forgetAfter
        }
        .map(\.element)
        return turn.isEmpty ? nil : turn
    }

    private func enqueue(_ claimant: Claimant, in turn: inout Turn, now: Instant) {
        if let index = turn.line.firstIndex(where: { $0.claimant.isSame(as: claimant) }) {
            // Asking again keeps one's place; another user of the same address does not take it.
            if turn.line[index].claimant.user == claimant.user { turn.line[index].asked = now }
        } else if turn.line.count < lineLimit {
            turn.line.append(Ask(claimant: claimant, asked: now))
        }
    }

    private mutating func store(_ turn: Turn, for item: ItemID) {
        turns[item] = turn.isEmpty ? nil : turn
    }
}
