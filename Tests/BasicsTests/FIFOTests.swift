import Basics
import TestSupport
import Testing

@Suite struct FIFOTests {
    @Test func popsInTheOrderElementsWereAppended() {
        var q = FIFO<Int>()
        #expect(q.isEmpty && q.first == nil && q.popFirst() == nil)
        q.append(1)
        q.append(contentsOf: [2, 3])
        #expect(q.count == 3 && q.first == 1)
        #expect(q.popFirst() == 1)
        q.append(4)
        #expect(Array(q) == [2, 3, 4])
        #expect(q.popFirst() == 2 && q.popFirst() == 3 && q.popFirst() == 4 && q.popFirst() == nil)
        #expect(q.isEmpty && q.count == 0)
    }

    @Test func indexZeroIsTheOldestElementAndSlicesFollowIt() {
        var q = FIFO(10..<20)
        q.removeFirst(3)
        #expect(q[0] == 13 && q[q.count - 1] == 19 && q.count == 7)
        #expect(Array(q[2...]) == [15, 16, 17, 18, 19])
        #expect(q.last == 19)
    }

    @Test func aDrainedQueueKeepsASmallStorageAndReleasesALargeOne() {
        var q = FIFO<Int>()
        q.append(contentsOf: 0..<10)
        while q.popFirst() != nil {}
        #expect(q.isEmpty && q.capacity >= 10, "a small queue keeps its storage for the next burst")
        q.append(contentsOf: 0..<5000)
        while q.popFirst() != nil {}
        #expect(q.isEmpty && q.capacity == 0, "a backlog's storage goes once it has drained")
    }

    @Test func anElementCanBeReplacedWhereItStands() {
        var q = FIFO(10..<20)
        q.removeFirst(3)
        q[1] = 99
        #expect(Array(q) == [13, 99, 15, 16, 17, 18, 19])
        #expect(q.popFirst() == 13 && q.first == 99)
    }

    @Test func removeFirstAndRemoveAllEmptyTheQueue() {
        var q = FIFO([1, 2, 3])
        q.removeFirst(0)
        #expect(q.count == 3)
        q.removeFirst(3)
        #expect(q.isEmpty)
        q.append(5)
        q.removeAll()
        #expect(q.isEmpty && q.popFirst() == nil)
    }

    /// A seeded random interleaving against an Array model, across many compactions.
    @Test(arguments: [UInt64(1), 0x5EED])
    func matchesAnArrayUnderRandomAppendsAndPops(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var q = FIFO<Int>()
        var model: [Int] = []
        var counter = 0
        for step in 0..<20_000 {
            switch Int.random(in: 0..<7, using: &rng) {
            case 0, 1, 2:
                q.append(counter)
                model.append(counter)
                counter += 1
            case 3:
                let batch = Array(counter..<counter + Int.random(in: 0..<5, using: &rng))
                counter += batch.count
                q.append(contentsOf: batch)
                model += batch
            case 4:
                let k = Int.random(in: 0...model.count, using: &rng)
                q.removeFirst(k)
                model.removeFirst(k)
            default:
                #expect(q.popFirst() == (model.isEmpty ? nil : model.removeFirst()), "seed \(seed), step \(step)")
            }
            if q.count != model.count || q.first != model.first || q.last != model.last {
                Issue.record("differs from the model at step \(step) (seed \(seed))")
                return
            }
        }
        #expect(Array(q) == model, "seed \(seed)")
    }
}
