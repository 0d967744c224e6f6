import BoardCore
import BoardStore
import Foundation

/// `shuffleboard-bench history [--ops N] [--requests N] [--size-ops N]` (issue 21):
///
/// 1. The latency of `GET /api/boards/{id}?at=SEQ` (random SEQ) on a kanban board of `--ops` ops
///    (10,000) stored in SQLite with the server's defaults, next to the plain snapshot
///    `GET /api/boards/{id}` of the same board in the same run (the reference): p50, p99, max.
///    Both read the store (the board is not in memory), the first from the nearest snapshot plus
///    fewer than 100 ops, the second from the latest snapshot plus the ops after it.
/// 2. The store's size for one board of `--size-ops` ops (100,000), with the default retention
///    (`--keep-ops 10000`: the newest 10,000 ops and their snapshots) and with every op kept.
struct HistoryBench {
    static let usage = "usage: shuffleboard-bench history [--ops N] [--requests N] [--size-ops N]"

    var ops = 10_000
    var requests = 1_000
    var sizeOps = 100_000

    static var options: [BenchOption<Self>] {
        [
            .count("--ops", \.ops, most: .max), .count("--requests", \.requests, most: .max),
            .count("--size-ops", \.sizeOps, most: .max),
        ]
    }

    func run() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent(
            "shuffleboard-bench-history-\(getpid())")
        defer { try? FileManager.default.removeItem(at: base) }
        let id = BoardID("hist")!

        let store = try SQLiteStore(directory: base.path + "/latency")
        try fill(store, board: id, ops: ops)
        let (server, port) = try startServer(store: store)
        var rng = SystemRandomNumberGenerator()
        var at: [Double] = []
        var plain: [Double] = []
        for n in 0..<requests {
            // Alternated, so that both see the same machine.
            if n % 2 == 0 {
                at.append(try timed("/api/boards/hist?at=\(Int.random(in: 0...ops, using: &rng))", port: port))
            } else {
                plain.append(try timed("/api/boards/hist", port: port))
            }
        }
        server.stop()
        store.close()
        print("GET of a kanban board of \(ops) ops in SQLite (not in memory), \(requests / 2) requests each, ms")
        print("request                        p50      p99      max")
        report("?at=SEQ (random SEQ)", at)
        report("plain snapshot (reference)", plain)

        print("")
        print("store size of one kanban board of \(sizeOps) ops (snapshot every 100 ops)")
        print("retention                        database    ops kept (a snapshot each 100 of them)")
        for (name, keep) in [("--keep-ops 10000 (default)", 10_000), ("every op kept", sizeOps)] {
            let directory = base.path + "/size-\(keep)"
            let sized = try SQLiteStore(directory: directory, keepOps: keep)
            try fill(sized, board: id, ops: sizeOps)
            sized.close()
            let bytes = try fileSize(directory + "/" + SQLiteStore.databaseName)
            let reader = try SQLiteStore(directory: directory, readOnly: true)
            let archive = try reader.archive(of: id)
            reader.close()
            print(
                name.padding(toLength: 32, withPad: " ", startingAt: 0)
                    + String(format: "%8.1f MB   %8d", Double(bytes) / 1e6, archive?.ops.count ?? 0))
        }
    }

    /// A kanban board with `ops` committed ops: moves between the columns, toggles, and label
    /// edits of the six cards, in batches of 500 (one transaction each).
    private func fill(_ store: any BoardStore, board id: BoardID, ops: Int) throws {
        var board = Template.kanban.board(id: id)
        try store.write([.create(board)])
        let zones = board.zones.map(\.id)
        let items = board.items.map(\.id)
        var seq = 0
        while seq < ops {
            var batch: [CommittedOp] = []
            while batch.count < 500 && seq < ops {
                seq += 1
                let item = items[seq % items.count]
                let op: Op
                switch seq % 4 {
                case 0: op = .toggle(item: item, on: seq % 8 == 0)
                case 1: op = .edit(item: item, changes: ItemEdit(label: "Card \(item) edited at \(seq)"))
                default: op = .move(item: item, zone: zones[(seq / 4) % zones.count], before: nil)
                }
                board.apply(op)
                batch.append(
                    CommittedOp(
                        seq: seq, opID: OpID("h\(seq)")!, by: UserID(number: UInt64(seq % 7 + 1)), op: op,
                        time: UnixTime(milliseconds: 1_764_000_000_000 + Int64(seq) * 1000), name: "User \(seq % 7)"))
            }
            try store.write([.append(id, batch)])
        }
    }

    /// Milliseconds for one GET, which must answer 200.
    private func timed(_ path: String, port: Int) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        let answer = try Scenarios.httpGet(path, port: port)
        let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
        guard answer.hasPrefix("HTTP/1.1 200") || answer.hasPrefix("HTTP/1.0 200") else {
            throw BenchError(description: "GET \(path): \(answer.prefix(80))")
        }
        return ms
    }

    private func report(_ name: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        let p = { (q: Int) in sorted[min(sorted.count - 1, sorted.count * q / 100)] }
        print(
            name.padding(toLength: 28, withPad: " ", startingAt: 0)
                + String(format: "%7.2f  %7.2f  %7.2f", p(50), p(99), sorted.last ?? 0))
    }

    private func fileSize(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? Int) ?? 0
    }
}
