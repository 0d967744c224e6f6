import BoardCore
import TestSupport
import Testing

@testable import BoardServer

/// The send bound's arithmetic, write by write, without a socket.
@Suite struct SendQueueTests {
    /// The buffer raw writes are assembled in (the service thread has one for every connection).
    let scratch = Scratch(16 + 16384)

    /// A frame whose payload is `count` bytes of `byte`.
    func frame(_ count: Int, _ byte: UInt8 = 0x61) -> Frame { Frame(payload: [UInt8](repeating: byte, count: count)) }

    @Test func aFrameOverTheBoundIsRefusedOnAnEmptyQueueToo() {
        let queue = SendQueue(limit: 1000, writeLimit: 4096, headroom: 16)
        #expect(!queue.enqueue(frame(999)))  // 1003 bytes with its header
        #expect(queue.isEmpty && queue.heldBytes == 0)
        #expect(queue.enqueue(frame(996)))  // exactly 1000
        #expect(!queue.enqueue(frame(0)))
        #expect(queue.heldBytes == 1000)
    }

    @Test func theLastWriteCountsUntilTheNextWriteable() throws {
        let queue = SendQueue(limit: 10_000, writeLimit: 4096, headroom: 16)
        for _ in 0..<3 { #expect(queue.enqueue(frame(2996))) }  // 3000 bytes each
        let write = try #require(queue.nextWrite(maxFrames: 64, into: scratch.bytes))
        #expect(write.count == 3000, "two frames do not fit in one 4096-byte write")
        // lws may still hold the 3000 bytes it was given: they count until the next WRITEABLE.
        #expect(queue.heldBytes == 9000)
        #expect(!queue.enqueue(frame(1496)))
        queue.writeableBegan()
        #expect(queue.heldBytes == 6000)
        #expect(queue.enqueue(frame(1496)))
        #expect(queue.heldBytes == 7500)
        // A write the socket took whole at once leaves nothing with lws.
        _ = try #require(queue.nextWrite(maxFrames: 64, into: scratch.bytes))
        #expect(queue.heldBytes == 7500)
        queue.lastWriteWentOut()
        #expect(queue.heldBytes == 4500)
        queue.discardQueued()
        #expect(queue.isEmpty && queue.heldBytes == 0)
    }

    @Test func rawWritesUseTheSharedBufferAndDeflateOnesABufferUntilTheNextWriteable() throws {
        let queue = SendQueue(limit: 1 << 20, writeLimit: 4096, headroom: 16)
        #expect(queue.bufferCapacity == 0, "nothing sent yet, no buffer")
        #expect(queue.enqueue(frame(10_000)) && queue.enqueue(frame(100)))
        #expect(queue.bufferCapacity == 0, "queueing allocates no buffer")
        var writes = 0
        while let write = queue.nextWrite(maxFrames: 64, into: scratch.bytes) {
            writes += 1
            #expect(write.count <= 4096)
            #expect(write.baseAddress == scratch.bytes.baseAddress! + 16, "after the headroom of the shared buffer")
            #expect(queue.bufferCapacity == 0, "a raw write needs no buffer of the queue's own")
            queue.releaseStorageIfDrained()
            queue.writeableBegan()
        }
        #expect(writes == 3, "10,000 bytes in three fragments, the last with the small frame")
        #expect(queue.bufferCapacity == 0 && queue.heldBytes == 0)

        // With permessage-deflate zlib reads the buffer until the next WRITEABLE, which frees it.
        #expect(queue.enqueue(frame(10_000, 0x62)))
        let message = try #require(queue.nextMessage())
        #expect(message.count == 10_000 && message.allSatisfy { $0 == 0x62 })
        #expect(queue.heldBytes == 10_000 && queue.bufferCapacity >= 16 + 10_000)
        queue.writeableBegan()
        #expect(queue.bufferCapacity == 0 && queue.heldBytes == 0)
    }

    /// What a client makes of the writes: frames parsed, fragments joined into messages.
    struct Reassembler {
        var messages: [[UInt8]] = []
        var partial: [UInt8]?
        var problem: String?

        /// Reads one write, which must hold whole frames only.
        mutating func read(_ write: UnsafeMutableRawBufferPointer) {
            let bytes = Array(write)
            var i = 0
            while i < bytes.count, problem == nil {
                guard i + 2 <= bytes.count, bytes[i + 1] & 0x80 == 0 else { return fail("a cut or masked header") }
                let fin = bytes[i] & 0x80 != 0
                let opcode = bytes[i] & 0x0F
                var length = Int(bytes[i + 1] & 0x7F)
                var start = i + 2
                let extra = length == 126 ? 2 : length == 127 ? 8 : 0
                guard start + extra <= bytes.count else { return fail("a cut length") }
                if extra > 0 { length = bytes[start..<start + extra].reduce(0) { $0 << 8 | Int($1) } }
                start += extra
                guard start + length <= bytes.count else { return fail("a frame that goes on past its write") }
                let payload = bytes[start..<start + length]
                switch (partial == nil, opcode) {
                case (true, Frame.text): partial = Array(payload)
                case (false, Frame.continuation): partial!.append(contentsOf: payload)
                default: return fail("opcode \(opcode) with a message \(partial == nil ? "not " : "")begun")
                }
                if fin {
                    messages.append(partial!)
                    partial = nil
                }
                i = start + length
            }
        }

        mutating func fail(_ why: String) { problem = problem ?? why }
    }

    @Test func writesStayUnderTheBoundEndOnFrameBoundariesAndCarryEveryMessageInOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let pattern = (0..<40_000).map { UInt8(truncatingIfNeeded: $0 * 31 + $0 / 256) }
        for round in 0..<9 {
            let writeLimit = [1024, 4096, 16384][round % 3]
            let queue = SendQueue(limit: 1 << 30, writeLimit: writeLimit, headroom: 16)
            var sent: [[UInt8]] = []
            var frameBytes: [Int] = []
            var client = Reassembler()
            // Frames of up to 300 bytes, and one in four up to 40,000: batches, and fragments.
            for step in 0..<600 {
                if step < 400 && Int.random(in: 0..<3, using: &random) > 0 {
                    let largest = Int.random(in: 0..<4, using: &random) == 0 ? 40_000 : 300
                    let count = Int.random(in: 0...largest, using: &random)
                    // Position-dependent bytes, so fragments out of order show; the first byte numbers it.
                    var payload = Array(pattern.prefix(count))
                    if count > 0 { payload[0] = UInt8(truncatingIfNeeded: sent.count) }
                    let frame = Frame(payload: payload)
                    #expect(queue.enqueue(frame))
                    sent.append(payload)
                    frameBytes.append(frame.count)
                    continue
                }
                queue.writeableBegan()
                let unfinished = frameBytes[client.messages.count...].reduce(0, +)
                #expect(queue.heldBytes == unfinished, "seed \(seed): a frame is counted until it is all written")
                guard
                    let write = queue.nextWrite(maxFrames: Int.random(in: 1...64, using: &random), into: scratch.bytes)
                else { continue }
                #expect(write.count >= 1 && write.count <= writeLimit, "seed \(seed): a write of \(write.count)")
                client.read(write)
                let left = frameBytes[client.messages.count...].reduce(0, +)
                #expect(
                    queue.heldBytes == left + write.count,
                    "seed \(seed): what lws holds counts until the next WRITEABLE")
                queue.releaseStorageIfDrained()
            }
            for _ in 0..<10_000 {
                queue.writeableBegan()
                guard let write = queue.nextWrite(maxFrames: 64, into: scratch.bytes) else { break }
                #expect(write.count <= writeLimit, "seed \(seed)")
                client.read(write)
            }
            #expect(client.problem == nil, "seed \(seed), round \(round)")
            #expect(client.partial == nil && client.messages == sent, "seed \(seed), round \(round)")
            queue.writeableBegan()
            #expect(queue.heldBytes == 0 && queue.bufferCapacity == 0)
        }
    }

    /// Every text message a run of raw writes carries, in order.
    func drain(_ queue: SendQueue) -> [String] {
        var client = Reassembler()
        while true {
            queue.writeableBegan()
            guard let write = queue.nextWrite(maxFrames: 64, into: scratch.bytes) else { break }
            client.read(write)
        }
        return client.messages.map { String(decoding: $0, as: UTF8.self) }
    }

    func hover(_ by: String, over: String) -> Frame {
        Frame(.hover(item: ItemID("t1")!, over: ItemID(over)!, zone: nil, mode: nil, by: UserID(by), at: 0))
    }

    /// More than one write of backlog: a reader behind.
    let backlog = String(repeating: "b", count: 1100)

    @Test func aSlowReaderGetsOnlyTheNewestHoverPerHandAndEverythingElseInOrder() {
        let queue = SendQueue(limit: 1 << 20, writeLimit: 1024, headroom: 16)
        let op = Frame(payload: Array(#"{"type":"swap","seq":1}"#.utf8))
        for frame in [
            Frame(payload: Array(backlog.utf8)), hover("u1", over: "t2"), op, hover("u2", over: "t3"),
            hover("u1", over: "t4"), hover("u1", over: "t5"),
        ] {
            #expect(queue.enqueue(frame))
        }
        let got = drain(queue)
        #expect(got.count == 4 && queue.coalesced == 2)
        #expect(got[0] == backlog && got[1] == #"{"type":"swap","seq":1}"#)
        #expect(got[2].contains(#""over":"t3""#) && got[3].contains(#""over":"t5""#) && got[3].contains(#""by":"u1""#))
        #expect(queue.heldBytes == 0)
    }

    @Test func theLastHoverBeforeADropAlwaysArrives() {
        let queue = SendQueue(limit: 1 << 20, writeLimit: 1024, headroom: 16)
        let drop = Frame(.drop(item: ItemID("t1")!, by: UserID("u1"), at: 0, reason: nil))
        for frame in [
            Frame(payload: Array(backlog.utf8)), hover("u1", over: "t2"), hover("u1", over: "t3"), drop,
            hover("u1", over: "t4"),
        ] {
            #expect(queue.enqueue(frame))
        }
        let got = drain(queue).dropFirst()
        #expect(got.count == 3, "\(got)")
        #expect(
            got.first!.contains(#""over":"t3""#) && got.dropFirst().first!.contains(#""type":"drop""#)
                && got.last!.contains(#""over":"t4""#))
    }

    @Test func aReaderLessThanOneWriteBehindGetsEveryHover() {
        let queue = SendQueue(limit: 1 << 20, writeLimit: 4096, headroom: 16)
        for n in 2...9 { #expect(queue.enqueue(hover("u1", over: "t\(n)"))) }
        #expect(!queue.isBehind && queue.coalesced == 0)
        #expect(drain(queue).count == 8)
    }

    @Test func aReaderThatKeepsUpGetsEveryHover() {
        let queue = SendQueue(limit: 1 << 20, writeLimit: 4096, headroom: 16)
        var got: [String] = []
        for n in 2...6 {
            #expect(queue.enqueue(hover("u1", over: "t\(n)")))
            got += drain(queue)
        }
        #expect(got.count == 5 && queue.coalesced == 0)
    }
}

/// A buffer for raw writes, as the service thread lends one to every connection.
final class Scratch: @unchecked Sendable {  // Used by one test at a time, on its own thread.
    let bytes: UnsafeMutableRawBufferPointer

    init(_ count: Int) { bytes = .allocate(byteCount: count, alignment: 16) }

    deinit { bytes.deallocate() }
}
