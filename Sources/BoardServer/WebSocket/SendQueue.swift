internal import Basics

/// A connection's output as bytes: its place in its board's `Ring` (the broadcasts), the frames
/// queued for it alone (welcome, reject, ack, pong, or everything once it fell behind the ring),
/// and what lws may still hold of the last write. Memory and arithmetic only, so every rule of the
/// send bound and of the order is tested without a socket; `Connection` makes the lws calls.
/// Confined to the service thread, like its connection.
///
/// **Order.** A frame queued for this connection alone remembers the ring's end when it was
/// queued (`before`), and goes out after the broadcasts before that position and before those
/// after it: each connection gets its messages in the order the hub made them, whichever way they
/// came. Ring entries that leave this connection out (its own hovers) or that a newer hover of the
/// same hand replaced are skipped.
///
/// **What a connection holds.** `heldBytes` is every frame queued for it (whole until its last byte
/// is written), the ring's bytes from its cursor on (every one of them, replaced hovers too: they
/// stay in the ring's memory while this reader keeps them there), plus the size of the last write.
/// lws 4.1.6 takes a write whole: `lws_issue_raw` sends what the socket takes, copies the rest onto
/// its own heap (`buflist_out`) and reports the full length as written. It calls WRITEABLE again
/// only once that copy is drained (`lws_handle_POLLOUT_event` drains `buflist_out` first and
/// returns without calling the protocol), so until the next WRITEABLE (`writeableBegan()`) the last
/// write bounds what lws holds for us; when the socket took all of it at once, lws holds nothing
/// (`lastWriteWentOut()`).
///
/// **How big one write is.** At most `writeLimit` bytes (lws's `tx_packet_size` is the same, so a
/// write the socket can take goes out in one `send`). Whole frames are batched up to it; a frame
/// larger than it goes out as WebSocket fragments (a text frame without FIN, then continuations),
/// one per write. A write never ends inside a frame: lws sends its own pings and pongs between our
/// writes, and control frames may only come between frames.
///
/// **Coalesced hovers.** A reader is behind when more than one write (`writeLimit` bytes) waits
/// for it (`isBehind`); a reader that one write brings up to date gets every hover. On the ring,
/// hovers are marked replaced once for the board (see `Ring`), and a write that begins while its
/// reader is behind skips the replaced ones. In the connection's own queue (a reader that fell
/// behind the ring, or a relay that queues every message here), a new hover that comes while the
/// reader is behind replaces the newest unsent hover of the same hand: that one is dropped where
/// it stands and the new one goes to the end, so order holds. A drag start or drop of that hand seals the hovers before it (the last hover before a
/// drop always arrives), and nothing else is ever dropped: drops and committed ops all arrive, in
/// order.
///
/// **Buffers.** A raw write is assembled in a buffer the caller lends (one for the whole service
/// thread: lws has sent or copied a raw write when `lws_write` returns). Under permessage-deflate
/// zlib reads the message until the next WRITEABLE, so `nextMessage()` copies it into a buffer of
/// the queue's own, released at that WRITEABLE: an idle connection holds no buffer at all.
///
/// `Connection` is its subclass, so that a connection is one object (idle memory: one allocation
/// and one object header fewer per connection). `Connection` overrides only `enqueue`, to refuse
/// frames once it is closing and to ask lws for a WRITEABLE; nothing else is overridden.
/// Counts that cannot pass a write or the bound are 32-bit, for the same reason.
class SendQueue {
    /// The connection this is the output of: ring entries that leave it out are skipped.
    let id: UInt64
    private let limit32: Int32
    private let writeLimit32: Int32
    private let headroom32: Int32
    /// The size of the last write, until the next WRITEABLE.
    private var lastWrite: Int32 = 0
    /// Payload bytes of the first frame already sent as fragments.
    private var sentOfFirst: Int32 = 0
    /// Payload bytes of the ring entry at `cursor` already sent as fragments.
    private var sentOfEntry: Int32 = 0
    /// The size of `buffer`.
    private var bufferCount: Int32 = 0
    /// Set while `frames` may hold storage (`releaseStorageIfDrained`).
    private var hasStorage = false
    /// Set at the start of each write while `isBehind`: replaced ring hovers are skipped.
    private var skipsReplaced = false

    /// The most bytes held; a frame that would take the queue past it is refused.
    var limit: Int { Int(limit32) }
    /// The most bytes in one raw write.
    var writeLimit: Int { Int(writeLimit32) }
    /// Writable bytes in front of every write (`LWS_PRE`, which lws may write headers into).
    var headroom: Int { Int(headroom32) }

    /// A frame queued for this connection alone.
    private struct Queued {
        let frame: Frame
        /// The ring position it goes out before (`Int.min`: before anything of the ring).
        let before: Int
        /// Dropped for a newer hover of the same hand: skipped, no longer counted.
        var dropped: Bool
    }

    /// Frames waiting to be written, oldest first; the first may be partly sent (`sentOfFirst`).
    private var frames = FIFO<Queued>()
    private var queuedBytes = 0
    /// The buffer of a permessage-deflate message, until the next WRITEABLE.
    private var buffer: UnsafeMutableRawPointer?
    /// The absolute position of `frames[0]` (frames taken off the front so far), for `lastHover`.
    private var base = 0
    /// The position of each hand's newest unsent, unsealed hover in `frames`.
    private var lastHover: [String: Int] = [:]
    /// Hovers dropped for newer ones in this queue, in all.
    private(set) var coalesced = 0

    /// The ring this connection reads its board's broadcasts from, if it is on one.
    private(set) var ring: Ring?
    /// The position of the next ring entry to write.
    private(set) var cursor = 0

    init(limit: Int, writeLimit: Int, headroom: Int, id: UInt64 = 0) {
        precondition(writeLimit > 2 * Frame.maximumHeaderLength, "a write must have room for a fragment")
        precondition(limit <= Int32.max && writeLimit <= Int32.max, "limits are 32-bit")
        limit32 = Int32(limit)
        writeLimit32 = Int32(writeLimit)
        headroom32 = Int32(headroom)
        self.id = id
    }

    deinit { buffer?.deallocate() }

    /// Every byte held for the connection: its own queued frames, the ring's bytes from its
    /// cursor, and what lws may still hold of the last write.
    var heldBytes: Int { queuedBytes + ringBytes + Int(lastWrite) }
    /// The ring's bytes from the cursor on.
    var ringBytes: Int { ring?.bytes(from: cursor) ?? 0 }
    /// True when nothing waits: no frame of its own, and the cursor at the ring's end.
    var isEmpty: Bool { queuedBytes == 0 && (ring.map { cursor >= $0.end } ?? true) }
    /// True when it is on a ring and has written (or skipped) all of it.
    var caughtUp: Bool { ring.map { cursor >= $0.end && sentOfEntry == 0 } ?? false }
    /// True when more than one write waits: then the reader is behind, and an unsent hover may
    /// be replaced by a newer one of the same hand. A reader that one write brings up to date
    /// gets every hover.
    var isBehind: Bool { queuedBytes + ringBytes > writeLimit }
    /// The size of the permessage-deflate buffer (0 when there is none).
    var bufferCapacity: Int { Int(bufferCount) }

    // MARK: Frames for this connection alone

    /// Queues `frame` for this connection alone, or returns false when it would take `heldBytes`
    /// past `limit` (nothing is queued then). This holds on an empty queue too: no single frame may
    /// be larger than the bound.
    func enqueue(_ frame: Frame) -> Bool {
        var replaced: Int?
        if frame.isHover, isBehind, let hand = frame.hand, let old = lastHover[hand],
            old > base || (old == base && sentOfFirst == 0),
            !frames[old - base].dropped
        {
            replaced = old
        }
        let freed = replaced.map { frames[$0 - base].frame.count } ?? 0
        guard heldBytes - freed + frame.count <= limit else { return false }
        if let replaced {
            frames[replaced - base].dropped = true
            queuedBytes -= freed
            coalesced += 1
        }
        append(frame, before: ring?.end ?? .min)
        return true
    }

    /// Appends without the bound (the caller has checked it, or the bytes were already counted).
    private func append(_ frame: Frame, before: Int) {
        frames.append(Queued(frame: frame, before: before, dropped: false))
        hasStorage = true
        queuedBytes += frame.count
        // A hover may be replaced while it waits (only a reader that is behind has one waiting
        // when the next comes); a drag start or drop seals the hand's hovers before it.
        if let hand = frame.hand { lastHover[hand] = frame.isHover ? base + frames.count - 1 : nil }
    }

    /// Drops every queued frame and leaves the ring (the connection is about to close without
    /// flushing).
    func discardQueued() {
        base += frames.count
        frames.removeAll()
        hasStorage = false
        queuedBytes = 0
        sentOfFirst = 0
        lastHover.removeAll()
        ring = nil
        sentOfEntry = 0
    }

    // MARK: The ring

    /// Starts reading `ring` from its end: what is queued already goes out first.
    func join(_ ring: Ring) {
        precondition(self.ring == nil, "already on a ring")
        self.ring = ring
        cursor = ring.end
        sentOfEntry = 0
    }

    /// Leaves the ring, keeping what it had not written yet: those entries (not the ones that
    /// leave this connection out, nor replaced hovers it had not begun) are queued here, merged in
    /// order with its own frames, coalescing hovers as a queue does. Nothing is lost or reordered;
    /// the bytes held do not grow.
    func leaveRing() {
        guard let ring else { return }
        let skipsReplaced = isBehind
        var merged: [(Frame, partial: Int32)] = []
        var position = cursor
        func takeRing(upTo limit: Int) {
            while position < min(limit, ring.end) {
                let entry = ring.entry(at: position)
                let partial = position == cursor ? sentOfEntry : 0
                if partial > 0 || (entry.except != id && !(entry.replaced && skipsReplaced)) {
                    merged.append((ring.frame(at: position), partial))
                }
                position += 1
            }
        }
        for index in 0..<frames.count where !frames[index].dropped {
            takeRing(upTo: frames[index].before)
            merged.append((frames[index].frame, index == 0 ? sentOfFirst : 0))
        }
        takeRing(upTo: .max)
        self.ring = nil
        sentOfEntry = 0
        base += frames.count
        frames.removeAll()
        hasStorage = false
        queuedBytes = 0
        sentOfFirst = merged.first?.partial ?? 0
        lastHover.removeAll()
        for (frame, _) in merged {
            // Coalescing applies as if they had been queued one by one (the first may be begun).
            if frame.isHover, skipsReplaced, let hand = frame.hand, let old = lastHover[hand],
                old > base || sentOfFirst == 0
            {
                frames[old - base].dropped = true
                queuedBytes -= frames[old - base].frame.count
                coalesced += 1
            }
            append(frame, before: .min)
        }
    }

    /// A broadcast was appended to the ring (at `position`) while this connection was already at
    /// the end of it: when the broadcast leaves this connection out, steps over it at once.
    /// Returns true when the connection now has something to write.
    func ringAppended(at position: Int, except: UInt64) -> Bool {
        guard ring != nil else { return false }
        if except == id {
            if cursor == position && sentOfEntry == 0 { cursor = position + 1 }
            return false
        }
        return true
    }

    // MARK: Writes

    /// Where the next frame comes from.
    private enum Source {
        case own
        case ring(Ring.Entry)
    }

    /// The next frame due, skipping frames dropped from this queue and ring entries this
    /// connection does not get; nil when nothing is due.
    private func nextDue() -> Source? {
        if sentOfFirst > 0 { return .own }
        if sentOfEntry > 0, let ring { return .ring(ring.entry(at: cursor)) }
        // Every frame of its own that is not dropped counts in `queuedBytes` (a frame has at least
        // two bytes): with none, the queue itself need not be looked at.
        var ownBefore = Int.max
        if queuedBytes > 0 {
            while frames.first!.dropped {
                _ = frames.popFirst()
                base += 1
            }
            ownBefore = frames.first!.before
        }
        if let ring {
            var position = cursor
            defer { cursor = position }
            let end = ring.end
            while position < end {
                if ownBefore <= position { return .own }
                let entry = ring.entry(at: position)
                if entry.except != id && !(entry.replaced && skipsReplaced) { return .ring(entry) }
                position += 1
            }
        }
        return queuedBytes == 0 ? nil : .own
    }

    /// What a write needs to know of a frame.
    private struct Shape {
        let count: Int
        let headerLength: Int
        let opcode: UInt8
        var payloadCount: Int { count - headerLength }
    }

    /// The shape of `source`'s frame.
    private func shape(of source: Source) -> Shape {
        switch source {
        case .own:
            let frame = frames.first!.frame
            return Shape(count: frame.count, headerLength: frame.headerLength, opcode: frame.opcode)
        case .ring(let entry):
            return Shape(count: entry.count, headerLength: Int(entry.headerLength), opcode: entry.opcode)
        }
    }

    /// Copies bytes `range` of `source`'s frame into `target` at `offset`.
    private func copy(
        _ source: Source, _ range: Range<Int>, to target: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        switch source {
        case .own:
            frames.first!.frame.bytes.withUnsafeBytes { Self.copy($0, range, to: target, at: offset) }
        case .ring(let entry):
            Self.copy(ring!.bytes(of: entry), range, to: target, at: offset)
        }
    }

    private static func copy(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, to target: UnsafeMutableRawBufferPointer, at offset: Int
    ) {
        (target.baseAddress! + offset).copyMemory(from: bytes.baseAddress! + range.lowerBound, byteCount: range.count)
    }

    /// Takes the frame of `source`, all of it written.
    private func consume(_ source: Source) {
        switch source {
        case .own:
            let queued = frames.popFirst()!
            queuedBytes -= queued.frame.count
            base += 1
            sentOfFirst = 0
            if queuedBytes == 0 { lastHover.removeAll() }
        case .ring:
            cursor += 1
            sentOfEntry = 0
        }
    }

    /// A WRITEABLE callback began: lws has sent everything of the last write, and zlib is done
    /// reading it; the deflate buffer is released.
    func writeableBegan() {
        lastWrite = 0
        if buffer != nil { releaseBuffer() }
        releaseStorageIfDrained()
    }

    /// Releases the queue's storage when nothing of its own waits (after a raw write, which lws
    /// has sent or copied), so an idle connection keeps none.
    func releaseStorageIfDrained() {
        guard hasStorage, queuedBytes == 0 else { return }
        base += frames.count
        frames.removeAll()
        lastHover.removeAll()
        hasStorage = false
    }

    /// lws sent the whole of the last write at once (`lws_partial_buffered` is 0 after a raw
    /// write): it holds nothing for us, so the write no longer counts.
    func lastWriteWentOut() {
        lastWrite = 0
    }

    /// The next raw write, at most `writeLimit` bytes and `maxFrames` frames or fragments, written
    /// into `scratch` after `headroom` bytes (`scratch` has room for `headroom + writeLimit`); nil
    /// when nothing is due. lws must have taken it before `scratch` is used again.
    func nextWrite(maxFrames: Int, into scratch: UnsafeMutableRawBufferPointer) -> UnsafeMutableRawBufferPointer? {
        precondition(scratch.count >= headroom + writeLimit, "the scratch buffer is too small")
        skipsReplaced = isBehind
        guard var source = nextDue() else { return nil }
        let maxFrames = max(maxFrames, 1)
        var offset = headroom
        var taken = 0
        // A fragment of the first frame when it is too large for one write or already begun...
        let first = shape(of: source)
        let sent = Int(sentOfFirst + sentOfEntry)
        if sent > 0 || first.count > writeLimit {
            let left = first.payloadCount - sent
            let length = min(left, writeLimit - Frame.maximumHeaderLength)
            let opcode = sent == 0 ? first.opcode : Frame.continuation
            offset += Frame.writeHeader(
                into: UnsafeMutableRawBufferPointer(rebasing: scratch[offset...]), opcode: opcode,
                final: length == left, length: length)
            let from = first.headerLength + sent
            copy(source, from..<from + length, to: scratch, at: offset)
            offset += length
            taken = 1
            guard length == left else {
                // None after a fragment that does not end its message.
                switch source {
                case .own: sentOfFirst += Int32(length)
                case .ring: sentOfEntry += Int32(length)
                }
                return finish(scratch, offset)
            }
            consume(source)
            guard let next = nextDue() else { return finish(scratch, offset) }
            source = next
        }
        // ...then whole frames while they fit.
        while taken < maxFrames {
            let count = shape(of: source).count
            guard count <= headroom + writeLimit - offset else { break }
            copy(source, 0..<count, to: scratch, at: offset)
            offset += count
            taken += 1
            consume(source)
            guard let next = nextDue() else { break }
            source = next
        }
        return finish(scratch, offset)
    }

    private func finish(_ scratch: UnsafeMutableRawBufferPointer, _ offset: Int) -> UnsafeMutableRawBufferPointer {
        lastWrite = Int32(offset - headroom)
        return UnsafeMutableRawBufferPointer(rebasing: scratch[headroom..<offset])
    }

    /// The next message's payload for lws to frame and compress itself (permessage-deflate), with
    /// `headroom` writable bytes before it; nil when nothing is due. zlib reads it until the next
    /// WRITEABLE, so it counts in `heldBytes` until then.
    func nextMessage() -> UnsafeMutableRawBufferPointer? {
        skipsReplaced = isBehind
        guard let source = nextDue() else { return nil }
        let shape = shape(of: source)
        releaseBuffer()
        let grown = UnsafeMutableRawBufferPointer.allocate(byteCount: headroom + shape.payloadCount, alignment: 16)
        buffer = grown.baseAddress
        bufferCount = Int32(grown.count)
        copy(source, shape.headerLength..<shape.count, to: grown, at: headroom)
        consume(source)
        lastWrite = Int32(shape.payloadCount)
        return UnsafeMutableRawBufferPointer(rebasing: grown[headroom...])
    }

    private func releaseBuffer() {
        buffer?.deallocate()
        buffer = nil
        bufferCount = 0
    }
}
