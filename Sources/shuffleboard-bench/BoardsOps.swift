import BoardCore
import Foundation

/// `committed-ops-boards`: committed ops/s with many boards busy at once, on SQLite and, with
/// `--postgres URL`, on a cluster node over PostgreSQL, in the same run (a fresh server each).
///
/// Each load is BOARDS × CLIENTS: on every board, CLIENTS clients each keep one toggle of an item
/// of their own in flight (the C load generator's ops mode with `--boards`), so BOARDS × CLIENTS
/// ops wait on the store at once. 2 × 6 is the old `committed-ops` load (one board, 2 clients × 6),
/// kept beside them. One loadgen line per store (`committed-ops-boards-STORE`: ops/s and the op's
/// latency from send to its broadcast at the sender, p50/p99), then a pair line
/// (`committed-ops-boards-postgres-vs-sqlite`) with both stores' ops/s, p50 and p99 and the ratio.
/// A load runs SQLite then PostgreSQL, then the next load in the other order, so that the machine's
/// drift does not favour one store. The PostgreSQL node runs with `--lease 30` (below) and the
/// default writer connections (`--store-writers`, 4); beside it, the same node with one writer
/// connection (`committed-ops-boards-postgres-1-writer`, and `postgres_1_writer_*` in the pair line),
/// as nodes wrote before several writers.
extension Scenarios {
    func committedOpsBoards(seconds: Double) throws {
        let loads: [(boards: Int, clients: Int, window: Int)] =
            smoke ? [(4, 2, 1), (1, 2, 6)] : [(100, 10, 1), (10, 10, 1), (1_000, 2, 1), (1, 2, 6)]
        let stores = ["sqlite"] + (postgres == nil ? [] : ["postgres", "postgres-1-writer"])
        for (index, load) in loads.enumerated() {
            var results: [String: (ops: Double, p50: Double, p99: Double)] = [:]
            for store in index % 2 == 0 ? stores : stores.reversed() {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "shuffleboard-bench-boards-\(getpid())")
                defer { try? FileManager.default.removeItem(at: directory) }
                let arguments: [String] =
                    switch store {
                    case "sqlite": ["--data", directory.path]
                    // A 30 s lease (default 5): on this shared machine, at load 25-35, a node
                    // claiming 100-1,000 boards at once saw its renewals wait behind the
                    // writer's first transactions (which lock the boards' lease rows) past 5 s,
                    // and every board was fenced. The lease bounds failover time, not durability.
                    default:
                        ["--store", postgres ?? "", "--node", "bench-\(getpid())", "--lease", "30"]
                            + (store == "postgres-1-writer" ? ["--store-writers", "1"] : [])
                    }
                // Boards of their own per run: a PostgreSQL database keeps the boards of the runs before.
                let prefix = "ops-\(load.boards)x\(load.clients)-\(store)-\(getpid())-"
                let clients = load.boards * load.clients
                try withServer(store: arguments) { port, pid in
                    let line = try loadgen([
                        "--label", "committed-ops-boards-\(store)", "--mode", "ops", "--port", "\(port)",
                        "--server-pid", "\(pid)", "--clients", "\(clients)", "--boards", "\(load.boards)",
                        "--window", "\(load.window)", "--seconds", "\(seconds)", "--board", prefix, "--timeout", "120",
                        "--connecting", "256",
                    ])
                    let object = try? JSON.parse(line)
                    let latency = object?["latency_ms"]
                    results[store] = (
                        object?["ops_per_s"]?.numberValue ?? 0, latency?["p50"]?.numberValue ?? 0,
                        latency?["p99"]?.numberValue ?? 0
                    )
                }
            }
            if let sqlite = results["sqlite"], let postgres = results["postgres"], sqlite.ops > 0 {
                let one = results["postgres-1-writer"] ?? (0, 0, 0)
                emit(
                    String(
                        format: "{\"scenario\":\"committed-ops-boards-postgres-vs-sqlite\",\"boards\":%d,"
                            + "\"clients_per_board\":%d,\"in_flight\":%d,\"sqlite_ops_per_s\":%.0f,"
                            + "\"postgres_ops_per_s\":%.0f,\"ratio\":%.2f,\"sqlite_p50_ms\":%.3f,\"sqlite_p99_ms\":%.3f,"
                            + "\"postgres_p50_ms\":%.3f,\"postgres_p99_ms\":%.3f,\"postgres_1_writer_ops_per_s\":%.0f,"
                            + "\"postgres_1_writer_ratio\":%.2f,\"postgres_1_writer_p50_ms\":%.3f,"
                            + "\"postgres_1_writer_p99_ms\":%.3f}",
                        load.boards, load.clients, load.boards * load.clients * load.window, sqlite.ops, postgres.ops,
                        postgres.ops / sqlite.ops, sqlite.p50, sqlite.p99, postgres.p50, postgres.p99, one.ops,
                        one.ops / sqlite.ops, one.p50, one.p99))
            }
        }
    }
}
