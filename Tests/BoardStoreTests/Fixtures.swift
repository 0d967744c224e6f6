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
    /// The board as of each seq (`boards[0]` the one it started from).
    var boards: [Board]

    init(board: Board, seed: UInt64) {
        self.board = board
        boards = [board]
        rng = SplitMix64(seed: seed)
    }

    /// The next `count` committed ops.
    mutating func next(_ count: Int) -> [CommittedOp] {
        (0..<count).map { _ in nextOp() }
    }

    /// Swaps, moves and toggles, and one op in four an editing op (add, edit, remove, addZone,
    /// editZone, removeZone, retitle) or now and then a restore (of an earlier seq, with its board),
    /// so that every store test covers every kind of op. Most ops carry their sender's name.
    mutating func nextOp() -> CommittedOp {
        let items = board.items.map(\.id)
        let op: Op
        switch Int.random(in: 0..<12, using: &rng) {
        case 0,
            1 where items.count >= 2:
            let a = items.randomElement(using: &rng)!
            var b = items.randomElement(using: &rng)!
            while b == a { b = items.randomElement(using: &rng)! }
            op = .swap(a: a, b: b)
        case 2, 3,
            4 where !items.isEmpty:
            let item = items.randomElement(using: &rng)!
            let zone = board.zones.randomElement(using: &rng)!
            let before = zone.items.filter { $0 != item }.randomElement(using: &rng)
            op = .move(item: item, zone: zone.id, before: Bool.random(using: &rng) ? before : nil)
        case 5 where items.count < 40:
            let zone = board.zones.randomElement(using: &rng)!
            let item = Item(
                id: ItemID("c\(seq + 1)")!, label: "new ✓ \(seq + 1)", color: "#123456",
                detail: Bool.random(using: &rng) ? "d\u{2028}é" : nil)
            op = .add(zone: zone.id, before: zone.items.randomElement(using: &rng), item: item)
        case 6 where !items.isEmpty:
            op = .edit(
                item: items.randomElement(using: &rng)!,
                changes: Bool.random(using: &rng) ? ItemEdit(label: "edited \(seq)") : ItemEdit(detail: .some(nil)))
        case 7 where items.count > 8:
            op = .remove(item: items.randomElement(using: &rng)!)
        case 8 where board.zones.count < 6:
            op = .addZone(
                before: board.zones.randomElement(using: &rng)!.id,
                zone: Zone(id: ZoneID("z\(seq + 1)")!, items: [], title: "Zone \(seq + 1)", layout: .list))
        case 9:
            if let empty = board.zones.last(where: { $0.items.isEmpty }), board.zones.count > 1 {
                op = .removeZone(zone: empty.id)
            } else {
                op = .editZone(zone: board.zones.randomElement(using: &rng)!.id, changes: ZoneEdit(title: "T\(seq)"))
            }
        case 10:
            op = .retitle(title: "Board \(seq)")
        case 11 where seq > 0 && Int.random(in: 0..<4, using: &rng) == 0:
            let to = Int.random(in: max(0, seq - 30)...seq, using: &rng)
            op = .restore(to: to, board: boards[to])
        default:
            op = .toggle(item: items.randomElement(using: &rng)!, on: Bool.random(using: &rng))
        }
        precondition(board.problem(applying: op) == nil, "OpMaker made an op that does not apply: \(op)")
        seq += 1
        board.apply(op)
        boards.append(board)
        let user = seq % 5 + 1
        let committed = CommittedOp(
            seq: seq, opID: OpID("op-\(seq)-\(rng.next() % 1000)")!, by: UserID(number: UInt64(user)), op: op,
            time: UnixTime(milliseconds: 1_700_000_000_000 + Int64(seq)), name: user == 5 ? nil : "Ann ✓ \(user)")
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
