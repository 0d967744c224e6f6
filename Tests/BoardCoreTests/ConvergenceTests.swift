import BoardCore
import TestSupport
import Testing

/// Many replicas send random ops with stale bases; every replica that applies the committed
/// stream in seq order ends identical to the server's board.
@Suite struct ConvergenceTests {
    @Test(arguments: [1, 7, 42, 2026] as [UInt64])
    func replicasApplyingTheCommittedStreamConverge(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let template = Board.defaultTemplate(id: demo)
        var server = Sequencer(board: template, historyLimit: 50)
        let replicaCount = 6
        var replicas = Array(repeating: (board: template, seq: 0), count: replicaCount)
        var stream: [CommittedOp] = []
        var committed = 0
        var rejected = 0

        for step in 0..<3000 {
            let r = Int.random(in: 0..<replicaCount, using: &rng)
            // A replica catches up a random amount: its base lags the server.
            let catchUp = Int.random(in: 0...(stream.count - replicas[r].seq), using: &rng)
            for op in stream[replicas[r].seq..<(replicas[r].seq + catchUp)] { replicas[r].board.apply(op.op) }
            replicas[r].seq += catchUp
            let op = randomOp(on: replicas[r].board, using: &rng)
            let request = OpRequest(opID: OpID("s\(seed)-\(step)")!, base: replicas[r].seq, op: op)
            switch server.submit(request, by: UserID(number: UInt64(r)), time: wall, holder: { _ in nil }) {
            case .committed(let c):
                #expect(c.seq == stream.count + 1, "seed \(seed): seq gap")
                stream.append(c)
                committed += 1
            case .rejected:
                rejected += 1
            case .duplicate:
                Issue.record("seed \(seed): unexpected duplicate")
            }
        }
        for r in 0..<replicaCount {
            for op in stream[replicas[r].seq...] { replicas[r].board.apply(op.op) }
            #expect(replicas[r].board == server.board, "seed \(seed): replica \(r) diverged")
        }
        // Every item is still in exactly one place.
        let placed = server.board.zones.flatMap(\.items)
        #expect(placed.count == 12 && Set(placed).count == 12, "seed \(seed)")
        #expect(committed > 100 && rejected > 10, "seed \(seed): committed \(committed), rejected \(rejected)")
    }

    func randomOp(on board: Board, using rng: inout SplitMix64) -> Op {
        let ids = board.items.map(\.id)
        let a = ids.randomElement(using: &rng)!
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            return .swap(a: a, b: ids.randomElement(using: &rng)!)
        case 1:
            let target = board.zones.randomElement(using: &rng)!
            let before = Bool.random(using: &rng) ? target.items.randomElement(using: &rng) : nil
            return .move(item: a, zone: target.id, before: before)
        default:
            return .toggle(item: a, on: Bool.random(using: &rng))
        }
    }
}
