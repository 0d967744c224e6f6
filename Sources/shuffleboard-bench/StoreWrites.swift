import BoardCore
import BoardStore
import Foundation

/// `shuffleboard-bench store [--postgres URL] [--ops N]`: the store's own cost per op, without a
/// server: `write` of batches of 1 and of 12 appended ops to one board, durable, on SQLite (a
/// temporary directory) and, given a URL, on PostgreSQL with every batch fenced (the board is
/// claimed first, as a cluster node does). Boards are named `bench-PID-N` and deleted afterwards.
struct StoreWrites {
    static let usage = "usage: shuffleboard-bench store [--postgres postgresql://USER@HOST:PORT/DB] [--ops N]"

    var postgres: String?
    var ops = 3_000

    static var options: [BenchOption<Self>] {
        [.text("--postgres", \.postgres), .count("--ops", \.ops, most: .max)]
    }

    func run() throws {
        print("store writes, \(ops) ops per run, one board, each batch one durable transaction")
        print("store                      ops/batch      ops/s   µs/batch    µs/op")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shuffleboard-bench-\(getpid())")
        defer { try? FileManager.default.removeItem(at: directory) }
        for batch in [1, 12] {
            let store = try SQLiteStore(directory: directory.path + "-\(batch)")
            defer {
                store.close()
                try? FileManager.default.removeItem(atPath: directory.path + "-\(batch)")
            }
            report("sqlite (synchronous=FULL)", batch, try measure(store, batch: batch, board: "bench-\(batch)"))
        }
        guard let url = postgres else { return }
        // A lease long enough for the run: renewals (one statement every third of a lease on a
        // node) are not what is measured. Each batch fenced as a node's is: one pipeline (one
        // round trip), and, to compare, waiting for each statement's answer (four).
        for pipelining in [true, false] {
            let store = try PostgresStore(
                url: url, node: "bench-\(getpid())", advertise: nil, leaseSeconds: 3600, pipelining: pipelining)
            defer { store.close() }
            for batch in [1, 12] {
                let board = "bench-\(getpid())-\(batch)"
                guard let id = BoardID(board), case .mine = try store.claim(id, force: false) else {
                    throw BenchError(description: "cannot claim \(board)")
                }
                let name = pipelining ? "postgresql (fenced)" : "postgresql (4 round trips)"
                report(name, batch, try measure(store, batch: batch, board: board))
                try store.write([.delete(id)])
                try store.release(id)
            }
        }
    }

    /// Seconds for `ops` ops in batches of `batch`, after a create.
    private func measure(_ store: any BoardStore, batch: Int, board: String) throws -> Double {
        guard let id = BoardID(board) else { throw BenchError(description: "bad board id \(board)") }
        try store.write([.create(.defaultTemplate(id: id))])
        var seq = 0
        let start = DispatchTime.now().uptimeNanoseconds
        while seq < ops {
            let ops = (0..<batch).map { _ in
                seq += 1
                return CommittedOp(
                    seq: seq, opID: OpID("b\(seq)")!, by: UserID(number: 1),
                    op: .toggle(item: ItemID("t\(seq % 12 + 1)")!, on: seq % 2 == 0),
                    time: UnixTime(milliseconds: 1_700_000_000_000))
            }
            try store.write([.append(id, ops)])
        }
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }

    private func report(_ name: String, _ batch: Int, _ seconds: Double) {
        let batches = Double((ops + batch - 1) / batch)
        print(
            name.padding(toLength: 26, withPad: " ", startingAt: 0)
                + String(
                    format: " %9d %10.0f %10.0f %8.1f", batch, Double(ops) / seconds, seconds / batches * 1e6,
                    seconds / Double(ops) * 1e6))
    }
}
