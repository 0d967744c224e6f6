internal import Basics

/// A connection's output as bytes: the frames queued for it, what lws may still hold of the last
/// write, and the buffer each write is copied into. Memory and arithmetic only, so every rule of
/// the send bound is tested without a socket; `Connection` makes the lws calls. Confined to the
/// service thread, like its connection.
///
/// **What a connection holds.** `heldBytes` is every queued frame (whole until its last byte is
/// written) plus the size of the last write. lws 4.1.6 takes a write whole: `lws_issue_raw` sends
/// what the socket takes, copies the rest onto its own heap (`buflist_out`) and reports the full
/// length as written. It calls WRITEABLE again only once that copy is drained
/// (`lws_handle_POLLOUT_event` drains `buflist_out` first and returns without calling the protocol),
/// so until the next WRITEABLE (`writeableBegan()`) the last write bounds what lws holds for us;
/// when the socket took all of it at once, lws holds nothing (`lastWriteWentOut()`).
///
/// **How big one write is.** At most `writeLimit` bytes (lws's `tx_packet_size` is the same, so a
/// write the socket can take goes out in one `send`). Whole frames are batched up to it; a frame
/// larger than it goes out as WebSocket fragments (a text frame without FIN, then continuations),
/// one per write. A write never ends inside a frame: lws sends its own pings and pongs between our
/// writes, and control frames may only come between frames.
///
/// **Coalesced hovers.** When a reader is behind (something is already queued for it), a new
/// hover replaces the newest unsent hover of the same hand: that one is dropped where it stands
/// and the new one goes to the end, so order holds. A drag start or drop of that hand seals the
/// hovers before it (the last hover before a drop always arrives), and nothing else is ever
/// dropped: drops and committed ops all arrive, in order.
///
/// **The buffer.** Allocated when there is something to write and released once the queue is
/// drained (see `releaseBufferIfDrained()` and `writeableBegan()`), so an idle connection holds none.
final class SendQueue {
    /// The most bytes held; a frame that would take the queue past it is refused.
    let limit: Int
    /// The most bytes in one raw write.
    let writeLimit: Int
    /// Writable bytes in front of every write (`LWS_PRE`, which lws may write headers into).
    let headroom: Int

    /// Frames waiting to be written, oldest first; the first may be partly sent (`sentOfFirst`).
    private var frames = FIFO<Frame>()
    private var queuedBytes = 0
    /// Payload bytes of the first frame already sent as fragments.
    private var sentOfFirst = 0
    /// The size of the last write, until the next WRITEABLE.
    private var lastWrite = 0
    private var buffer: UnsafeMutableRawBufferPointer?
    /// The absolute position of `frames[0]` (frames written so far), for the two tables below.
    private var base = 0
    /// Positions of frames dropped for a newer hover; skipped when written.
    private var dropped = Set<Int>()
    /// The position of each hand's newest unsent, unsealed hover.
    private var lastHover: [String: Int] = [:]
    /// Hovers dropped for newer ones, in all.
    private(set) var coalesced = 0

    init(limit: Int, writeLimit: Int, headroom: Int) {
        precondition(writeLimit > 2 * Frame.maximumHeaderLength, "a write must have room for a fragment")
        self.limit = limit
        self.writeLimit = writeLimit
        self.headroom = headroom
    }

    deinit { buffer?.deallocate() }

    /// Every byte held for the connection: queued frames and what lws may still hold of the last write.
    var heldBytes: Int { queuedBytes + lastWrite }
    /// True when no frame waits.
    var isEmpty: Bool { frames.isEmpty }
    /// The size of the write buffer (0 when there is none).
    var bufferCapacity: Int { buffer?.count ?? 0 }

    /// Queues `frame`, or returns false when it would take `heldBytes` past `limit` (nothing is queued
    /// then). This holds on an empty queue too: no single frame may be larger than the bound.
    func enqueue(_ frame: Frame) -> Bool {
        var replaced: Int?
        if frame.isHover, let hand = frame.hand, let old = lastHover[hand],
            old > base || (old == base && sentOfFirst == 0),
            !dropped.contains(old)
        {
            replaced = old
        }
        let freed = replaced.map { frames[$0 - base].count } ?? 0
        guard heldBytes - freed + frame.count <= limit else { return false }
        if let replaced {
            dropped.insert(replaced)
            queuedBytes -= freed
            coalesced += 1
        }
        frames.append(frame)
        queuedBytes += frame.count
        // A hover may be replaced while it waits (only a reader that is behind has one waiting
        // when the next comes); a drag start or drop seals the hand's hovers before it.
        if let hand = frame.hand { lastHover[hand] = frame.isHover ? base + frames.count - 1 : nil }
        return true
    }

    /// Drops every queued frame (the connection is about to close without flushing).
    func discardQueued() {
        frames.removeAll()
        queuedBytes = 0
        sentOfFirst = 0
        forgetPositions()
    }

    /// Drops the dropped-frame and newest-hover tables once the queue is empty.
    private func forgetPositions() {
        base = 0
        dropped.removeAll()
        lastHover.removeAll()
    }

    /// Takes dropped frames off the front.
    private func skipDroppedAtFront() {
        while !frames.isEmpty, dropped.remove(base) != nil {
            _ = frames.popFirst()
            base += 1
        }
    }

    /// A WRITEABLE callback began: lws has sent everything of the last write, and zlib is done
    /// reading it. With nothing queued, the buffer and the queue's storage are released.
    func writeableBegan() {
        lastWrite = 0
        guard frames.isEmpty else { return }
        frames.removeAll()
        forgetPositions()
        releaseBuffer()
    }

    /// lws sent the whole of the last write at once (`lws_partial_buffered` is 0 after a raw
    /// write): it holds nothing for us, so the write no longer counts.
    func lastWriteWentOut() {
        lastWrite = 0
    }

    /// After a raw write (lws has sent or copied all of it): releases the buffer if nothing is queued.
    func releaseBufferIfDrained() {
        guard frames.isEmpty else { return }
        frames.removeAll()
        forgetPositions()
        releaseBuffer()
    }

    /// The next raw write, at most `writeLimit` bytes and `maxFrames` frames or fragments, with
    /// `headroom` writable bytes before it; nil when nothing is queued. Valid until the next call.
    func nextWrite(maxFrames: Int) -> UnsafeMutableRawBufferPointer? {
        skipDroppedAtFront()
        guard let first = frames.first else { return nil }
        let maxFrames = max(maxFrames, 1)
        // A fragment of the first frame when it is too large for one write or already begun...
        var fragment: (length: Int, final: Bool)?
        var size = 0
        if sentOfFirst > 0 || first.count > writeLimit {
            let left = first.payloadCount - sentOfFirst
            let length = min(left, writeLimit - Frame.maximumHeaderLength)
            fragment = (length, length == left)
            size = Frame.headerLength(for: length) + length
        }
        // ...then whole frames while they fit (none after a fragment that does not end its message).
        let start = fragment == nil ? 0 : 1
        var end = start
        var taken = start
        if fragment?.final ?? true {
            while end < frames.count, taken < maxFrames {
                if dropped.contains(base + end) {
                    end += 1
                    continue
                }
                guard frames[end].count <= writeLimit - size else { break }
                size += frames[end].count
                end += 1
                taken += 1
            }
        }
        let bytes = reserve(size)
        var offset = 0
        if let fragment {
            let opcode = sentOfFirst == 0 ? first.opcode : Frame.continuation
            offset += Frame.writeHeader(
                into: UnsafeMutableRawBufferPointer(rebasing: bytes[offset...]), opcode: opcode,
                final: fragment.final, length: fragment.length)
            let from = first.headerLength + sentOfFirst
            copy(first.bytes[from..<from + fragment.length], to: bytes, at: offset)
            offset += fragment.length
            sentOfFirst += fragment.length
        }
        for index in start..<end where !dropped.contains(base + index) {
            let frame = frames[index]
            copy(frame.bytes[...], to: bytes, at: offset)
            offset += frame.count
        }
        let finished = (fragment.map { $0.final ? 1 : 0 } ?? 0) + (end - start)
        for index in 0..<finished where dropped.remove(base + index) == nil { queuedBytes -= frames[index].count }
        frames.removeFirst(finished)
        base += finished
        if fragment?.final == true { sentOfFirst = 0 }
        lastWrite = size
        return bytes
    }

    /// The oldest frame's payload for lws to frame and compress itself (permessage-deflate), with
    /// `headroom` writable bytes before it; nil when nothing is queued. zlib reads it until the
    /// next WRITEABLE, so it counts in `heldBytes` until then.
    func nextMessage() -> UnsafeMutableRawBufferPointer? {
        skipDroppedAtFront()
        guard let frame = frames.popFirst() else { return nil }
        base += 1
        queuedBytes -= frame.count
        let bytes = reserve(frame.payloadCount)
        copy(frame.payload, to: bytes, at: 0)
        lastWrite = frame.payloadCount
        return bytes
    }

    /// `count` bytes after `headroom` in the buffer, which grows as needed (doubling, up to one write).
    private func reserve(_ count: Int) -> UnsafeMutableRawBufferPointer {
        let needed = headroom + count
        if let buffer, buffer.count >= needed {
            return UnsafeMutableRawBufferPointer(rebasing: buffer[headroom..<needed])
        }
        let size = max(needed, min(2 * (buffer?.count ?? 0), headroom + writeLimit))
        releaseBuffer()
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        buffer = grown
        return UnsafeMutableRawBufferPointer(rebasing: grown[headroom..<needed])
    }

    private func releaseBuffer() {
        buffer?.deallocate()
        buffer = nil
    }

    private func copy(_ bytes: ArraySlice<UInt8>, to target: UnsafeMutableRawBufferPointer, at offset: Int) {
        bytes.withUnsafeBytes { source in
            UnsafeMutableRawBufferPointer(rebasing: target[offset..<offset + source.count]).copyMemory(from: source)
        }
    }
}
