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
    /// One broadcast.
    struct Entry {
        let frame: Frame
        /// The connection the broadcast leaves out (a hover's sender); 0: nobody.
        let except: UInt64
        /// A newer hover of the same hand follows: a reader that has not begun this one skips it.
        var replaced: Bool
        /// The bytes of every entry before this one since the ring began.
        let offset: Int
    }

    private var entries = FIFO<Entry>()
    /// The position of the oldest entry kept.
    private(set) var start = 0
    /// The bytes of every entry ever appended.
    private(set) var byteEnd = 0
    /// The position of each hand's newest hover that no drag start or drop has sealed.
    private var lastHover: [String: Int] = [:]
    /// Hovers replaced by newer ones, in all.
    private(set) var replacedCount = 0

    /// The position the next broadcast gets.
    var end: Int { start + entries.count }
    /// True when no entry is kept.
    var isEmpty: Bool { entries.isEmpty }
    /// The bytes of the entries kept.
    var heldBytes: Int { entries.isEmpty ? 0 : byteEnd - entries[0].offset }

    /// The entry at `position` (between `start` and `end`).
    func entry(at position: Int) -> Entry { entries[position - start] }

    /// The bytes of the entries from `position` (at least `start`) to the end.
    func bytes(from position: Int) -> Int {
        position < end ? byteEnd - entries[position - start].offset : 0
    }

    /// Appends a broadcast that leaves out connection `except` (0: nobody).
    func append(_ frame: Frame, except: UInt64) {
        if let hand = frame.hand {
            if frame.isHover {
                if let old = lastHover[hand], old >= start {
                    entries[old - start].replaced = true
                    replacedCount += 1
                }
                lastHover[hand] = end
            } else {
                lastHover[hand] = nil
            }
        }
        entries.append(Entry(frame: frame, except: except, replaced: false, offset: byteEnd))
        byteEnd += frame.count
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
        let count = min(position, end) - start
        guard count > 0 else { return }
        if count == entries.count {
            entries.removeAll()
            lastHover.removeAll()
        } else {
            entries.removeFirst(count)
        }
        start += count
    }
}
