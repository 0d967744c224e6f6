import BoardCore
import TestSupport
import Testing

@testable import BoardServer

/// A board's ring read by several send queues at their own pace: order per reader, coalescing
/// once per board, readers joining mid-stream, falling behind and leaving.
@Suite struct RingTests {
    let scratch = Scratch(16 + 16384)

    func queue(_ id: UInt64, limit: Int = 1 << 20, writeLimit: Int = 4096) -> SendQueue {
        SendQueue(limit: limit, writeLimit: writeLimit, headroom: 16, id: id)
    }

    func text(_ string: String) -> Frame { Frame(payload: Array(string.utf8)) }

    func hover(_ by: String, over: String) -> Frame {
        Frame(.hover(item: ItemID("t1")!, over: ItemID(over)!, zone: nil, mode: nil, by: UserID(by), at: 0))
    }

    func drop(_ by: String) -> Frame { Frame(.drop(item: ItemID("t1")!, by: UserID(by), at: 0, reason: nil)) }

    /// Appends as the feed does: the ring, then each reader told (a sender steps over its own).
    func broadcast(_ frame: Frame, on ring: Ring, to queues: [SendQueue], except: UInt64 = 0) {
        let position = ring.end
        ring.append(frame, except: except)
        for queue in queues { _ = queue.ringAppended(at: position, except: except) }
    }

    /// Every message a run of raw writes carries, in order, as short strings: the payload for
    /// text frames, `hover <by> <over>` and `drop <by>` for drag messages.
    func drain(_ queue: SendQueue, maxFrames: Int = 64) -> [String] {
        var client = SendQueueTests.Reassembler()
        for _ in 0..<10_000 {
            queue.writeableBegan()
            guard let write = queue.nextWrite(maxFrames: maxFrames, into: scratch.bytes) else { break }
            client.read(write)
        }
        #expect(client.problem == nil && client.partial == nil)
        return client.messages.map { Self.short(String(decoding: $0, as: UTF8.self)) }
    }

    static func short(_ message: String) -> String {
        guard let json = try? JSON.parse(Array(message.utf8)), let type = json["type"]?.stringValue,
            let by = json["by"]?.stringValue
        else { return message }
        return type == "hover" ? "hover \(by) \(json["over"]?.stringValue ?? "")" : "\(type) \(by)"
    }

    @Test func aReaderThatKeepsUpGetsEverythingButItsOwnHovers() {
        let ring = Ring()
        let sender = queue(1)
        let watcher = queue(2)
        sender.join(ring)
        watcher.join(ring)
        var got: [String] = []
        for n in 2...5 {
            broadcast(hover("u1", over: "t\(n)"), on: ring, to: [sender, watcher], except: 1)
            got += drain(watcher)
            #expect(drain(sender).isEmpty && sender.caughtUp, "a sender steps over its own hover at once")
        }
        broadcast(drop("u1"), on: ring, to: [sender, watcher])
        #expect(got == ["hover u1 t2", "hover u1 t3", "hover u1 t4", "hover u1 t5"])
        #expect(drain(watcher) == ["drop u1"] && drain(sender) == ["drop u1"])
        #expect(watcher.caughtUp && watcher.heldBytes == 0)
    }

    @Test func aSlowReaderGetsTheNewestHoverPerHandTheLastBeforeEachDropAndEverythingElseInOrder() {
        let ring = Ring()
        let fast = queue(2, writeLimit: 1024)
        let slow = queue(3, writeLimit: 1024)
        let near = queue(4, writeLimit: 1024)
        fast.join(ring)
        slow.join(ring)
        var fastGot: [String] = []
        let frames = [
            hover("u1", over: "t2"), text("op 1"), hover("u2", over: "t3"), hover("u1", over: "t4"),
            hover("u1", over: "t5"), drop("u1"), hover("u1", over: "t6"), hover("u2", over: "t7"), text("op 2"),
        ]
        // The slow reader is more than one write behind: a large broadcast it has not written.
        broadcast(text(String(repeating: "x", count: 2000)), on: ring, to: [fast, slow])
        _ = drain(fast)
        near.join(ring)
        for frame in frames {
            broadcast(frame, on: ring, to: [fast, slow, near])
            fastGot += drain(fast)
        }
        #expect(fastGot.count == frames.count, "a reader that keeps up loses nothing: \(fastGot)")
        #expect(!near.isBehind && drain(near).count == frames.count, "nor does one that is less than a write behind")
        #expect(
            drain(slow).dropFirst() == ["op 1", "hover u1 t5", "drop u1", "hover u1 t6", "hover u2 t7", "op 2"],
            "replaced where they stood, once for the board")
        #expect(ring.replacedCount == 3 && slow.caughtUp)
    }

    @Test func framesForOneReaderGoOutBetweenTheBroadcastsTheyCameBetween() {
        let ring = Ring()
        let reader = queue(2)
        #expect(reader.enqueue(text("welcome")), "queued before it is on the ring: it goes first")
        reader.join(ring)
        broadcast(text("b1"), on: ring, to: [reader])
        #expect(reader.enqueue(text("ack 1")))
        broadcast(text("b2"), on: ring, to: [reader])
        broadcast(hover("u1", over: "t2"), on: ring, to: [reader])
        #expect(reader.enqueue(text("ack 2")))
        broadcast(hover("u1", over: "t3"), on: ring, to: [reader])
        // Less than a write behind, it gets every hover.
        #expect(drain(reader, maxFrames: 1) == ["welcome", "b1", "ack 1", "b2", "hover u1 t2", "ack 2", "hover u1 t3"])
        #expect(reader.isEmpty && reader.heldBytes == 0)
    }

    @Test func aReaderJoiningMidStreamGetsOnlyWhatCameAfter() {
        let ring = Ring()
        let early = queue(2)
        early.join(ring)
        broadcast(text("before"), on: ring, to: [early])
        let late = queue(3)
        #expect(late.enqueue(text("welcome")))
        late.join(ring)
        broadcast(text("after"), on: ring, to: [early, late])
        #expect(drain(late) == ["welcome", "after"])
        #expect(drain(early) == ["before", "after"])
    }

    @Test func aReaderLeavingTheRingKeepsWhatItHadNotWrittenInOrder() {
        let ring = Ring()
        let reader = queue(2)
        let other = queue(3)
        reader.join(ring)
        other.join(ring)
        broadcast(text(String(repeating: "x", count: 5000)), on: ring, to: [reader, other])
        broadcast(hover("u1", over: "t2"), on: ring, to: [reader, other])
        #expect(reader.enqueue(text("own 1")))
        broadcast(hover("u1", over: "t3"), on: ring, to: [reader, other])
        broadcast(hover("u9", over: "t4"), on: ring, to: [reader, other], except: 2)
        broadcast(drop("u1"), on: ring, to: [reader, other])
        let held = reader.heldBytes
        reader.leaveRing()
        #expect(reader.ring == nil && reader.heldBytes <= held, "leaving never grows what it holds")
        // Behind the ring, it gets copies, coalesced in its own queue.
        #expect(reader.enqueue(hover("u2", over: "t5")) && reader.enqueue(hover("u2", over: "t6")))
        #expect(reader.coalesced == 1)
        #expect(drain(reader).dropFirst() == ["own 1", "hover u1 t3", "drop u1", "hover u2 t6"])
        // The others read on, and the ring can go once they have.
        #expect(drain(other).dropFirst() == ["hover u1 t3", "hover u9 t4", "drop u1"])
        #expect(other.caughtUp)
        ring.trim(before: ring.end)
        #expect(ring.isEmpty && ring.heldBytes == 0)
        // Drained, it joins the ring again at its end.
        reader.join(ring)
        broadcast(text("b2"), on: ring, to: [reader, other])
        #expect(drain(reader) == ["b2"] && drain(other) == ["b2"])
    }

    @Test func aLargeBroadcastGoesOutInFragmentsAndNothingComesBetweenThem() {
        let ring = Ring()
        let reader = queue(2, writeLimit: 1024)
        reader.join(ring)
        let large = text(String(repeating: "x", count: 3000))
        broadcast(hover("u1", over: "t2"), on: ring, to: [reader])
        broadcast(large, on: ring, to: [reader])
        // The first write takes the hover and the first fragment; a frame of its own and a newer
        // hover come while the large one is half written.
        var client = SendQueueTests.Reassembler()
        reader.writeableBegan()
        client.read(reader.nextWrite(maxFrames: 64, into: scratch.bytes)!)
        #expect(reader.enqueue(text("own")))
        broadcast(hover("u1", over: "t3"), on: ring, to: [reader])
        for _ in 0..<10 {
            reader.writeableBegan()
            guard let write = reader.nextWrite(maxFrames: 64, into: scratch.bytes) else { break }
            #expect(write.count <= 1024)
            client.read(write)
        }
        #expect(client.problem == nil && client.partial == nil)
        let got = client.messages.map { Self.short(String(decoding: $0, as: UTF8.self)) }
        #expect(got == ["hover u1 t2", String(repeating: "x", count: 3000), "own", "hover u1 t3"])
    }

    @Test func aReaderLeavingMidFragmentFinishesThatMessageFirst() {
        let ring = Ring()
        let reader = queue(2, writeLimit: 1024)
        reader.join(ring)
        broadcast(text(String(repeating: "y", count: 3000)), on: ring, to: [reader])
        #expect(reader.enqueue(text("own")))
        broadcast(text("after"), on: ring, to: [reader])
        var client = SendQueueTests.Reassembler()
        reader.writeableBegan()
        client.read(reader.nextWrite(maxFrames: 64, into: scratch.bytes)!)
        reader.leaveRing()
        for _ in 0..<10 {
            reader.writeableBegan()
            guard let write = reader.nextWrite(maxFrames: 64, into: scratch.bytes) else { break }
            client.read(write)
        }
        #expect(client.problem == nil && client.partial == nil)
        let got = client.messages.map { String(decoding: $0, as: UTF8.self) }
        #expect(got == [String(repeating: "y", count: 3000), "own", "after"])
    }

    @Test func theSendBoundCountsTheRingBytesNotYetWritten() {
        let ring = Ring()
        let reader = queue(2, limit: 1000)
        reader.join(ring)
        let frame = text(String(repeating: "z", count: 296))  // 300 bytes with its 4-byte header
        broadcast(frame, on: ring, to: [reader])
        broadcast(frame, on: ring, to: [reader])
        #expect(reader.heldBytes == 600 && reader.ringBytes == 600)
        #expect(!reader.enqueue(text(String(repeating: "z", count: 496))), "600 + 500 is over 1000")
        #expect(reader.enqueue(text(String(repeating: "z", count: 396))))
        #expect(reader.heldBytes == 1000)
        _ = drain(reader)
        #expect(reader.heldBytes == 0)
    }

    @Test func aDeflateReaderTakesOneMessageAtATimeInTheSameOrder() {
        let ring = Ring()
        let reader = queue(2, writeLimit: 1024)
        #expect(reader.enqueue(text("welcome" + String(repeating: ".", count: 1100))))
        reader.join(ring)
        broadcast(hover("u1", over: "t2"), on: ring, to: [reader])
        broadcast(hover("u1", over: "t3"), on: ring, to: [reader])
        #expect(reader.enqueue(text("own")))
        let large = String(repeating: "l", count: 1100)
        broadcast(text(large), on: ring, to: [reader])
        var got: [String] = []
        for _ in 0..<10 {
            reader.writeableBegan()
            guard let message = reader.nextMessage() else { break }
            #expect(reader.bufferCapacity >= message.count, "zlib reads its own copy until the next WRITEABLE")
            got.append(Self.short(String(decoding: message, as: UTF8.self)))
        }
        #expect(got.dropFirst() == ["hover u1 t3", "own", large], "behind by more than a write: coalesced")
        #expect(reader.bufferCapacity == 0 && reader.heldBytes == 0)
    }

    @Test func randomInterleavingsKeepEveryReadersOrder() {
        let seed = UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        for round in 0..<20 {
            let ring = Ring()
            let readers = (0..<4).map { queue(UInt64($0 + 1), writeLimit: [1024, 4096][round % 2]) }
            var clients = Array(repeating: SendQueueTests.Reassembler(), count: readers.count)
            // What each reader must get: every broadcast not left out for it and its own frames, in order.
            var expected = Array(repeating: [String](), count: readers.count)
            for reader in readers { reader.join(ring) }
            for step in 0..<600 {
                let r = Int.random(in: 0..<readers.count, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0..<4:
                    let size = Int.random(in: 0..<4, using: &random) == 0 ? 2500 : 20
                    let body = "b\(step)" + String(repeating: ".", count: size)
                    let except = Int.random(in: 0..<3, using: &random) == 0 ? UInt64(r + 1) : 0
                    let frame = text(body)
                    let position = ring.end
                    ring.append(frame, except: except)
                    for (i, reader) in readers.enumerated() where UInt64(i + 1) != except {
                        expected[i].append(body)
                        // As the feed does: a reader behind the ring gets its own copy.
                        if reader.ring == nil { #expect(reader.enqueue(frame)) }
                    }
                    for reader in readers where reader.ring != nil {
                        _ = reader.ringAppended(at: position, except: except)
                    }
                case 4..<6:
                    let body = "own\(step)"
                    #expect(readers[r].enqueue(text(body)))
                    expected[r].append(body)
                case 6:
                    if readers[r].ring != nil {
                        readers[r].leaveRing()
                    } else if readers[r].isEmpty {
                        readers[r].join(ring)
                    }
                default:
                    readers[r].writeableBegan()
                    let maxFrames = Int.random(in: 1...8, using: &random)
                    if let write = readers[r].nextWrite(maxFrames: maxFrames, into: scratch.bytes) {
                        clients[r].read(write)
                    }
                }
                // The ring keeps what the readers on it still need, and no more.
                let oldest = readers.compactMap { $0.ring == nil ? nil : $0.cursor }.min() ?? ring.end
                ring.trim(before: oldest)
            }
            for (i, reader) in readers.enumerated() {
                for _ in 0..<10_000 {
                    reader.writeableBegan()
                    guard let write = reader.nextWrite(maxFrames: 64, into: scratch.bytes) else { break }
                    clients[i].read(write)
                }
                let got = clients[i].messages.map { String(decoding: $0, as: UTF8.self) }
                #expect(clients[i].problem == nil && clients[i].partial == nil, "seed \(seed), round \(round)")
                #expect(got == expected[i], "seed \(seed), round \(round), reader \(i)")
                #expect(reader.heldBytes == 0, "seed \(seed)")
            }
        }
    }
}

/// When hovers are paced: from 95% busy, until below 85%.
@Suite struct SaturationTests {
    @Test func pacingStartsAt95PercentBusyAndEndsBelow85() {
        var saturation = Saturation(threshold: 0.95)
        var cpu: UInt64 = 0
        var wall: UInt64 = 1_000_000
        saturation.record(cpu: cpu, wall: wall)
        var seen: [Bool] = []
        for busy: UInt64 in [50, 94, 96, 90, 86, 84, 90, 99] {
            cpu += busy * 2500
            wall += 250_000
            saturation.record(cpu: cpu, wall: wall)
            seen.append(saturation.saturated)
        }
        #expect(seen == [false, false, true, true, true, false, false, true])
        #expect(abs(saturation.busy - 0.99) < 1e-9)
        #expect(Saturation(threshold: 0).saturated, "a threshold of 0 paces from the start")
    }
}
