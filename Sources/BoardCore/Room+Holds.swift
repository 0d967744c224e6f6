// The hold rules of `Room`: who may take an item and for how long (`dragStart`, `hover`, `drop`),
// when holds end by themselves (`expireHolds`), and the per-address count the rules check.
extension Room {
    /// True while holds or turns wait for time to pass: the server calls `expireHolds` then.
    package var hasTimers: Bool { !holds.isEmpty || !turns.isEmpty }

    /// Ends every hold idle for `holdTimeout` or longer, or older than `holdLifetime`, with
    /// `reason: expired` (its holder then waits `holdCooldown` before taking it again), and
    /// forgets turns that are over.
    package mutating func expireHolds(now: Instant) -> [Effect] {
        // A group's hold is its lead's: the others expire with it (`release`).
        let expired = holds.filter {
            holding[$0.value.by] == $0.key
                && (now - $0.value.lastActive >= holdTimeout || now - $0.value.since >= holdLifetime)
        }
        .sorted { $0.key.rawValue < $1.key.rawValue }
        if !turns.isEmpty { turns.prune(now: now) }
        return expired.map { item, hold in
            _ = release(hold.by, now: now, expired: true)
            return .broadcast(.drop(item: item, by: hold.by, at: visibleSeq, reason: .expired), except: nil)
        }
    }

    /// The rules of `dragStart`, in order: the item exists and is not archived (`archived`); nobody holds it (a repeated dragStart
    /// of one's own hold is refused `held`, and the hold goes on unchanged: only hovers renew it);
    /// it is not cooling down for this user or address, nor someone else's turn (`cooldown`); the
    /// address holds fewer than `maxHoldsPerAddress` items (`hold_limit`). A user holds one item:
    /// taking another releases the first.
    ///
    /// A group (`with`, issue 36) is held all or none: every item passes these rules or the
    /// whole `dragStart` is refused, naming the first item that did not (`item` in the reject).
    /// The group counts as one hold for the address, and its lead `item` is what hovers and
    /// drops name; the others are held, released and expire with it.
    mutating func dragStart(_ item: ItemID, with group: [ItemID] = [], by asker: HoldTurns.Claimant, now: Instant)
        -> [Effect]
    {
        let user = asker.user
        let seq = visibleSeq
        let refuse = { (rejection: Rejection) in [Effect.send(user, .reject(rejection, seq: seq))] }
        let all = [item] + group
        for item in all {
            guard sequencer.board.hasItem(item) else { return refuse(Rejection(.unknownItem, item: item)) }
            if sequencer.board.isArchived(item) { return refuse(Rejection(.archived, item: item)) }
        }
        for item in all {
            guard let hold = holds[item] else { continue }
            if hold.by != user { turns.refusedWhileHeld(item, asker, now: now) }
            return refuse(Rejection(.held, by: hold.by, item: item))
        }
        for item in all {
            switch turns.check(item, for: asker, now: now) {
            case .free: break
            case .coolingDown: return refuse(Rejection(.cooldown, item: item))
            case .turnOf(let first): return refuse(Rejection(.cooldown, by: first, item: item))
            }
        }
        if let address = asker.address, maxHoldsPerAddress > 0,
            holdsByAddress[address, default: 0] - (holding[user] == nil ? 0 : 1) >= maxHoldsPerAddress
        {
            return refuse(Rejection(.holdLimit, item: item))
        }
        var effects: [Effect] = []
        if let previous = holding[user] {
            _ = release(user, now: now, expired: false)
            effects.append(.broadcast(.drop(item: previous, by: user, at: visibleSeq, reason: nil), except: nil))
        }
        for item in all {
            holds[item] = Hold(by: user, lastActive: now, since: now, address: asker.address)
            turns.took(item, by: asker)
        }
        holding[user] = item
        if !group.isEmpty { groups[user] = group }
        if let address = asker.address { holdsByAddress[address, default: 0] += 1 }
        // On a large board not everyone knows every user: the hand says whose it is.
        let holder = isLarge ? users.first(where: { $0.id == user }) : nil
        effects.append(
            .broadcast(.dragStart(item: item, by: user, at: visibleSeq, user: holder, with: group), except: nil))
        return effects
    }

    mutating func hover(
        _ item: ItemID, over: ItemID?, zone: ZoneID?, mode: DragMode?, t: Double?, by user: UserID, now: Instant
    ) -> [Effect] {
        let board = sequencer.board
        guard board.hasItem(item), over.map(board.hasItem) ?? true else {
            return [.send(user, .reject(Rejection(.unknownItem, item: item), seq: visibleSeq))]
        }
        if let zone, !board.hasZone(zone) {
            return [.send(user, .reject(Rejection(.unknownZone, item: item), seq: visibleSeq))]
        }
        guard holds[item]?.by == user else {
            return [.send(user, .reject(Rejection(.notHolding, item: item), seq: visibleSeq))]
        }
        holds[item]?.lastActive = now
        for other in groups[user] ?? [] { holds[other]?.lastActive = now }
        let zone = zone ?? over.flatMap { board.location(of: $0) }.map { board.zones[$0.zone].id }
        return [
            .broadcast(
                .hover(item: item, over: over, zone: zone, mode: mode, by: user, at: visibleSeq, t: t), except: user)
        ]
    }

    mutating func drop(
        _ item: ItemID, action: OpRequest?, by claimant: HoldTurns.Claimant, now: Instant, wall: UnixTime
    ) -> [Effect] {
        let user = claimant.user
        guard holds[item]?.by == user else {
            let rejection = Rejection(.notHolding, opID: action?.opID, item: item)
            return [.send(user, .reject(rejection, seq: visibleSeq))]
        }
        let group = groups[user] ?? []
        let lead = release(user, now: now, expired: false) ?? item
        var effects: [Effect] = [.broadcast(.drop(item: lead, by: user, at: visibleSeq, reason: nil), except: nil)]
        guard var action else { return effects }
        // A group's drop with a move commits one moveMany of the whole group, lead first.
        if !group.isEmpty, case .move(_, let zone, let before) = action.op {
            action.op = .moveMany(items: [lead] + group, zone: zone, before: before)
        }
        effects += submit(action, from: claimant, now: now, wall: wall)
        return effects
    }

    /// Ends `user`'s hold at `now` (by expiry when `expired`), returning the item it held (a
    /// group's lead: the others end with it).
    mutating func release(_ user: UserID, now: Instant, expired: Bool) -> ItemID? {
        guard let item = holding.removeValue(forKey: user) else { return nil }
        let holder = HoldTurns.Claimant(user: user, address: holds.removeValue(forKey: item)?.address)
        if let address = holder.address {
            let left = holdsByAddress[address, default: 1] - 1
            holdsByAddress[address] = left > 0 ? left : nil
        }
        turns.ended(item, holder: holder, expired: expired, now: now)
        for other in groups.removeValue(forKey: user) ?? [] {
            holds[other] = nil
            turns.ended(other, holder: holder, expired: expired, now: now)
        }
        return item
    }
}
