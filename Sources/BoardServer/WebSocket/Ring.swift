internal import Basics

/// The broadcasts of one board, each framed once, in the order the hub made them. Every
/// connection on the board writes them from a position of its own (its `SendQueue`'s cursor), so
/// a broadcast costs one append here, not one queue entry per recipient. Memory only, confined to
/// the service thread; `Feed` decides who reads it and when it is trimmed.
///
/// **Positions** count broadcasts since the ring began: `start` is the oldest kept, `end` the
/// next to come. Byte offsets count the bytes of every entry ever appended, so what a reader has
/// not written yet (`bytes(from:)`) is one subtraction.
///
/// **Coalesced hovers, once per board.** A hover marks the previous hover of the same hand
/// `replaced` unless a drag start or drop of that hand came between (which seals the hovers before
/// it). A reader that is behind (`SendQueue.isBehind`) and has not begun writing a replaced hover
/// skips it: exactly the hovers it would have coalesced on a queue of its own (what is already
/// written cannot be replaced), so a reader that is behind gets only the newest hover of each
/// hand, the last hover before every drop, and every other broadcast, in order.
final class Ring {
    /// One broadcast: where its frame's bytes are, and what a reader needs to decide whether to
    /// write it. Plain values only, so reading entries costs no reference counting.
    struct Entry {
        /// The frame's first byte, counted over every byte ever appended.
        let offset: Int
        /// The frame's length, header included.
        let count: Int
        let headerLength: UInt8
        let opcode: UInt8
        let isHover: Bool
        /// A newer hover of the same hand follows: a reader behind that has not begun it skips it.
        var replaced: Bool
        /// The connection the broadcast leaves out (a hover's sender); 0: nobody.
        let except: UInt64

        /// The payload's length.
        var payloadCount: Int { count - Int(headerLength) }
    }

    /// The entries kept, oldest first, in a circular buffer of plain values (its capacity a power
    /// of two): a reader's look at an entry is one load, with no reference counting, exclusivity
    /// check or generic code on the way.
    private var slots: UnsafeMutablePointer<Entry>?
    private var slotMask = -1
    /// The slot of the oldest entry.
    private var head = 0
    /// The number of entries kept.
    private var count = 0
    /// Each entry's hand (the user a drag message is about), for coalescing and for `frame(at:)`.
    private var hands = FIFO<String?>()
    /// The frames' bytes back to back: `storage[0]` is byte `storageStart`.
    private var storage: UnsafeMutableRawPointer?
    private var storageCapacity = 0
    private var storageStart = 0
    /// The position of the oldest entry kept.
    private(set) var start = 0
    /// The bytes of every entry ever appended.
    private(set) var byteEnd = 0
    /// The position of each hand's newest hover that no drag start or drop has sealed.
    private var lastHover: [String: Int] = [:]
    /// Hovers replaced by newer ones, in all.
    private(set) var replacedCount = 0

    deinit {
        storage?.deallocate()
        slots?.deallocate()
    }

    /// The position the next broadcast gets.
    var end: Int { start + count }
    /// True when no entry is kept.
    var isEmpty: Bool { count == 0 }
    /// The bytes of the entries kept.
    var heldBytes: Int { count == 0 ? 0 : byteEnd - slots![head].offset }
    /// The bytes of memory the ring holds for them.
    var storageBytes: Int { storageCapacity }

    /// The entry at `position` (between `start` and `end`).
    func entry(at position: Int) -> Entry {
        precondition(position >= start && position < end, "position \(position) is not in the ring")
        return slots![(head + position - start) & slotMask]
    }

    /// Marks the entry at `position` replaced.
    private func markReplaced(_ position: Int) {
        slots![(head + position - start) & slotMask].replaced = true
    }

    /// The bytes of `entry`'s frame, header included; valid until the next `append`.
    func bytes(of entry: Entry) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage! + (entry.offset - storageStart), count: entry.count)
    }

    /// The entry at `position` as a `Frame` of its own (for a reader leaving the ring).
    func frame(at position: Int) -> Frame {
        let entry = entry(at: position)
        return Frame(
            bytes: Array(bytes(of: entry)), headerLength: Int(entry.headerLength), opcode: entry.opcode,
            hand: hands[position - start], isHover: entry.isHover)
    }

    /// The bytes of the entries from `position` (at least `start`) to the end.
    func bytes(from position: Int) -> Int {
        position < end ? byteEnd - entry(at: position).offset : 0
    }

    /// Appends a broadcast that leaves out connection `except` (0: nobody); its bytes are copied.
    func append(_ frame: Frame, except: UInt64) {
        if let hand = frame.hand {
            if frame.isHover {
                if let old = lastHover[hand], old >= start {
                    markReplaced(old)
                    replacedCount += 1
                }
                lastHover[hand] = end
            } else {
                lastHover[hand] = nil
            }
        }
        reserve(frame.count)
        frame.bytes.withUnsafeBytes { source in
            (storage! + (byteEnd - storageStart)).copyMemory(from: source.baseAddress!, byteCount: source.count)
        }
        if count == slotMask + 1 { growSlots() }
        (slots! + ((head + count) & slotMask)).initialize(
            to: Entry(
                offset: byteEnd, count: frame.count, headerLength: UInt8(frame.headerLength), opcode: frame.opcode,
                isHover: frame.isHover, replaced: false, except: except))
        count += 1
        hands.append(frame.hand)
        byteEnd += frame.count
    }

    /// Doubles the entry slots (at least 64), the oldest entry moving to slot 0.
    private func growSlots() {
        let capacity = max(64, 2 * (slotMask + 1))
        let grown = UnsafeMutablePointer<Entry>.allocate(capacity: capacity)
        for index in 0..<count { (grown + index).initialize(to: slots![(head + index) & slotMask]) }
        slots?.deallocate()
        slots = grown
        slotMask = capacity - 1
        head = 0
    }

    /// Room for `count` more bytes: the kept bytes move to the front of the storage when that
    /// makes room enough (they are at most half of it then), else the storage doubles.
    private func reserve(_ more: Int) {
        guard byteEnd + more - storageStart > storageCapacity else { return }
        let keptFrom = count == 0 ? byteEnd : slots![head].offset
        let kept = byteEnd - keptFrom
        if let storage, 2 * (kept + more) <= storageCapacity {
            storage.copyMemory(from: storage + (keptFrom - storageStart), byteCount: kept)
        } else {
            let capacity = max(2 * storageCapacity, 2 * (kept + more), 4096)
            let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
            if let storage {
                grown.copyMemory(from: storage + (keptFrom - storageStart), byteCount: kept)
                storage.deallocate()
            }
            storage = grown
            storageCapacity = capacity
        }
        storageStart = keptFrom
    }

    /// The position from which at most `bytes` bytes are kept (the end when even the newest entry
    /// is larger).
    func position(keepingAtMost bytes: Int) -> Int {
        var low = start
        var high = end
        // The first position whose suffix fits; suffixes shrink as the position grows.
        while low < high {
            let middle = (low + high) / 2
            if self.bytes(from: middle) <= bytes { high = middle } else { low = middle + 1 }
        }
        return low
    }

    /// Forgets the entries before `position`; no reader may still need them. Forgetting all of
    /// them releases the storage, so a quiet board keeps none.
    func trim(before position: Int) {
        let forgotten = min(position, end) - start
        guard forgotten > 0 else { return }
        if forgotten == count {
            hands.removeAll()
            lastHover.removeAll()
            storage?.deallocate()
            storage = nil
            storageCapacity = 0
            storageStart = byteEnd
            slots?.deallocate()
            slots = nil
            slotMask = -1
            head = 0
        } else {
            hands.removeFirst(forgotten)
            head = (head + forgotten) & slotMask
        }
        count -= forgotten
        start += forgotten
        // Hands that left long ago are forgotten (a busy ring may never empty).
        if lastHover.count > 64 { lastHover = lastHover.filter { $0.value >= start } }
    }
}
