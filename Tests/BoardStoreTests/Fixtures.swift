import BoardCore
import BoardStore
import Foundation
import TestSupport

/// A fresh directory under /tmp, removed by `remove()`.
struct TempDirectory {
    let path: String

    init() {
        path = NSTemporaryDirectory() + "boardstore-tests-" + UUID().uuidString
    }

    /// A path inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Runs `body` with a temporary directory that is removed afterwards.
func withTempDirectory<R>(_ body: (TempDirectory) throws -> R) rethrows -> R {
    let dir = TempDirectory()
    defer { dir.remove() }
    return try body(dir)
}

let boardA = BoardID("alpha")!
let boardB = BoardID("beta")!

/// Makes ops that apply to a board, tracking the board as it goes.
struct OpMaker {
    var board: Board
    var seq: Seq = 0
    var rng: SplitMix64
    var all: [CommittedOp] = []

    init(board: Board, seed: UInt64) {
        self.board = board
        rng = SplitMix64(seed: seed)
    }

    /// The next `count` committed ops.
    mutating func next(_ count: Int) -> [CommittedOp] {
        (0..<count).map { _ in nextOp() }
    }

    mutating func nextOp() -> CommittedOp {
        let items = board.items.map(\.id)
        let op: Op
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            let a = items.randomElement(using: &rng)!
            var b = items.randomElement(using: &rng)!
            while b == a { b = items.randomElement(using: &rng)! }
            op = .swap(a: a, b: b)
        case 1:
            let item = items.randomElement(using: &rng)!
            let zone = board.zones.randomElement(using: &rng)!
            let before = zone.items.filter { $0 != item }.randomElement(using: &rng)
            op = .move(item: item, zone: zone.id, before: Bool.random(using: &rng) ? before : nil)
        default:
            op = .toggle(item: items.randomElement(using: &rng)!, on: Bool.random(using: &rng))
        }
        seq += 1
        board.apply(op)
        let committed = CommittedOp(
            seq: seq, opID: OpID("op-\(seq)-\(rng.next() % 1000)")!, by: UserID(number: UInt64(seq % 5 + 1)), op: op,
            time: UnixTime(milliseconds: 1_700_000_000_000 + Int64(seq)))
        all.append(committed)
        return committed
    }
}

extension OpsPage {
    /// The ops of an `.ops` page, or nil.
    var ops: [CommittedOp]? {
        if case .ops(let ops, _) = self { return ops }
        return nil
    }
}
