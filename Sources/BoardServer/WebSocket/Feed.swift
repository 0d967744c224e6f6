internal import BoardHub

/// The connections on one board and the `Ring` they read its broadcasts from. A broadcast is
/// appended once; each reader is woken (one `lws_callback_on_writable` unless one is on its way)
/// and checked against the send bound, both O(1). Confined to the service thread.
///
/// **Who reads.** The hub's broadcasts name the board's members, not the board: the feed keeps
/// the member list of the last one and compares it by value with the next (the hub shares one
/// array until its membership changes, so an unchanged list compares in O(1)). When it changed,
/// `reconcile` lets new members in at the ring's end and lets those no longer named go, keeping
/// what they had not written yet. A closing connection leaves at once (`remove`).
///
/// **Falling behind.** The ring keeps at most `capacity` bytes that some reader has not written.
/// Past that, the readers furthest behind leave the ring: what they had not written is queued for
/// each of them alone (`SendQueue.leaveRing`, coalescing hovers per reader), later broadcasts too,
/// and each comes back to the ring's end once its own queue is drained. The send bound
/// (`--max-pending-bytes`, 1008) is checked at every broadcast for every reader, on the ring or
/// not, as it was when every reader had a queue of its own.
///
/// **Pacing hovers.** While the service thread is saturated (`Service.hoverPacing`), a hover
/// that comes less than the pacing interval after the readers were last woken does not wake
/// them: it waits in the ring, and the service wakes the feed (`wakeReaders`) when the interval
/// is over. Every other broadcast, and a hover after a quiet spell, wakes them at once, and with
/// them everything that waited. A busy board then sends each reader what came in the last
/// interval in one write, instead of one write per pass of the service loop with the few hovers
/// lws read in that pass (it reads at most one rx buffer per connection and pass).
final class Feed {
    let ring = Ring()
    /// The most ring bytes a reader may keep there (`--ring-bytes`).
    let capacity: Int
    /// The member list of the last broadcast.
    private(set) var members: [ConnectionID] = []
    /// The connections reading this feed, on its ring or behind it. Connections that left
    /// (`feed` no longer this one) are dropped from the list lazily, at the next broadcast.
    private(set) var readers: [Connection] = []
    /// Readers on the ring that have not written all of it.
    private(set) var behind = 0
    /// The ring's size at which readers' cursors are looked at again to trim it.
    private var trimAt: Int

    /// Told of each reader that leaves the ring, with the ring bytes it had not written (a log line).
    private let fellBehind: (Connection, Int) -> Void

    /// When the readers were last woken.
    private(set) var lastWake = Clock.Reading.zero
    /// Hovers wait in the ring for the wake-up at `wakeDue`.
    private(set) var wakePending = false
    private(set) var wakeDue = Clock.Reading.zero
    /// The feed is in the service's list of feeds to wake (`Service.pace`).
    var paced = false

    init(capacity: Int, fellBehind: @escaping (Connection, Int) -> Void = { _, _ in }) {
        self.capacity = capacity
        self.fellBehind = fellBehind
        trimAt = Self.trimStep(capacity)
    }

    /// Trims happen every this many ring bytes: rarely enough that scanning the readers is cheap
    /// per broadcast, often enough that a busy ring stays small.
    private static func trimStep(_ capacity: Int) -> Int { max(capacity / 8, 16 * 1024) }

    /// Makes the readers the open, not closing connections of `members`, in that order.
    func reconcile(_ members: [ConnectionID], connections: [ConnectionID: Connection]) {
        var next: [Connection] = []
        next.reserveCapacity(members.count)
        var named = Set<ObjectIdentifier>()
        for id in members {
            guard let connection = connections[id], connection.closeRequest == nil else { continue }
            if connection.feed !== self {
                connection.feed?.remove(connection, keepingPending: true)
                connection.feed = self
                connection.join(ring)
            }
            next.append(connection)
            named.insert(ObjectIdentifier(connection))
        }
        for reader in readers where reader.feed === self && !named.contains(ObjectIdentifier(reader)) {
            remove(reader, keepingPending: true)
        }
        readers = next
        self.members = members
    }

    /// `connection` stops reading this feed. With `keepingPending` what it had not written of the
    /// ring is queued for it alone (it goes on writing it); otherwise everything it had queued is
    /// dropped.
    func remove(_ connection: Connection, keepingPending: Bool) {
        guard connection.feed === self else { return }
        if keepingPending { connection.leaveRing() } else { connection.discardQueued() }
        notBehind(connection)
        connection.feed = nil
        if behind == 0 { empty() }
    }

    /// Appends `frame` to the ring for every reader but `except`, and wakes them. A reader the
    /// frame takes over the send bound leaves the ring; if it is still over, `overBound` is called
    /// (which closes it with 1008). Returns the number of recipients. `now` is the time of the
    /// broadcast, `pacing` the least time between wake-ups for hovers (zero: none).
    func append(
        _ frame: Frame, except: ConnectionID?, now: Clock.Reading = .zero, pacing: Clock.Reading.Span = .zero,
        overBound: (Connection) -> Void
    ) -> Int {
        let waits = frame.isHover && pacing != .zero && now - lastWake < pacing
        let position = ring.end
        let except = except?.rawValue ?? 0
        ring.append(frame, except: except)
        var recipients = 0
        var left = false
        var over: [Connection] = []
        // Every reader is told of the frame before any leaves the ring or is closed: a reader that
        // goes (`fallBehind`, `remove`) empties the ring when no other counts as behind, and a
        // reader not yet told would lose the frame (and its cursor would point before the ring).
        for reader in readers {
            guard reader.feed === self else {
                left = true
                continue
            }
            guard reader.ring != nil else {
                // Behind the ring: everything goes to its own queue, under the same bound.
                if reader.id != except {
                    recipients += 1
                    if !reader.enqueue(frame) { over.append(reader) }
                }
                continue
            }
            guard reader.ringAppended(at: position, except: except) else { continue }
            recipients += 1
            if !reader.behind {
                reader.behind = true
                behind += 1
            }
            if reader.heldBytes > reader.limit {
                over.append(reader)
            } else if !waits {
                reader.requestWrite()
            }
        }
        for reader in over where reader.feed === self {
            if reader.ring != nil {
                fallBehind(reader)
                if reader.heldBytes <= reader.limit {
                    reader.requestWrite()
                    continue
                }
            }
            overBound(reader)
        }
        if left { readers.removeAll { $0.feed !== self } }
        if ring.heldBytes > trimAt { trim() }
        if waits {
            if !wakePending { wakeDue = lastWake + pacing }
            wakePending = true
        } else {
            wakeReaders(now: now)
        }
        return recipients
    }

    /// Wakes every reader that has not written all of the ring (the hovers that waited for it),
    /// and starts the next pacing interval at `now`.
    func wakeReaders(now: Clock.Reading) {
        if wakePending {
            for reader in readers where reader.behind && reader.feed === self { reader.requestWrite() }
            wakePending = false
        }
        lastWake = now
    }

    /// A reader on the ring has written all of it. When it was the last one behind, the ring is
    /// emptied (and its storage released).
    func caughtUp(_ reader: Connection) {
        notBehind(reader)
        if behind == 0 { empty() }
    }

    /// A reader behind the ring has written everything of its own: it reads the ring again from
    /// its end (it has had every broadcast before that in its own queue).
    func rejoin(_ reader: Connection) {
        guard reader.feed === self, reader.ring == nil, reader.isEmpty else { return }
        reader.join(ring)
    }

    private func notBehind(_ reader: Connection) {
        guard reader.behind else { return }
        reader.behind = false
        behind -= 1
    }

    /// `reader` leaves the ring, keeping what it had not written in its own queue.
    private func fallBehind(_ reader: Connection) {
        fellBehind(reader, reader.ringBytes)
        reader.leaveRing()
        notBehind(reader)
        if behind == 0 { empty() }
    }

    /// Every reader on the ring has written all of it: nothing of it is kept.
    private func empty() {
        ring.trim(before: ring.end)
        trimAt = Self.trimStep(capacity)
    }

    /// Forgets what every reader on the ring has written; when the ring would still keep more
    /// than `capacity`, the readers furthest behind leave it first, so that it keeps at most half.
    private func trim() {
        var oldest = ring.end
        for reader in readers where reader.feed === self && reader.ring != nil {
            oldest = min(oldest, reader.cursor)
        }
        if ring.bytes(from: oldest) > capacity {
            let keep = ring.position(keepingAtMost: capacity / 2)
            oldest = ring.end
            for reader in readers where reader.feed === self && reader.ring != nil {
                if reader.cursor < keep {
                    fallBehind(reader)
                } else {
                    oldest = min(oldest, reader.cursor)
                }
            }
        }
        ring.trim(before: oldest)
        trimAt = min(capacity, ring.heldBytes + Self.trimStep(capacity))
    }
}
