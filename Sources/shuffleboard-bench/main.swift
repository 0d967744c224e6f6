import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

// Committed ops per second on one board, with durable group commit (SQLite) and, as the
// reference measured in the same run, with the in-memory store. Each client keeps `window` ops in
// flight on items of its own, so nothing conflicts and every op commits.
//
// Usage: shuffleboard-bench [--ops N] [--quick]
//        shuffleboard-bench scenarios [--smoke] [NAME...]   (Scenarios.swift: one JSON line per scenario)
//        shuffleboard-bench join-stall [options]   (JoinStall.swift: hover latency while cold boards load)
//        shuffleboard-bench history-joins [options]   (HistoryJoins.swift: joins to stored boards under ?at= loops)
//        shuffleboard-bench http-stall [options]   (HTTPStall.swift: hover latency while large HTTP answers go out)
//        shuffleboard-bench store [--postgres URL] [--ops N]   (StoreWrites.swift: a store's cost per op)
//        shuffleboard-bench history [--ops N] [--requests N] [--size-ops N]   (HistoryBench.swift: ?at= latency, store size)
//        shuffleboard-bench events [options]   (Events.swift: SSE fan-out and REST ops/s beside WebSocket)
//        shuffleboard-bench big-boards [options]   (BigBoards.swift: joins, ?at=, moveMany, restore on 10,000 cards)
//        shuffleboard-bench big-search [options]   (BigSearch.swift: search over 100 boards of 10,000 cards)

struct Scenario {
    var clients: Int
    var window: Int
}

struct Result {
    var opsPerSecond: Double
    var p50: Double
    var p99: Double
}

/// One client's loop: send `window` toggles, and for each of its own that comes back committed,
/// send the next, until `count` of its ops are committed.
func runClient(
    _ connection: ClientConnection, index: Int, items: [String], count: Int, board: String
) async throws -> [Double] {
    connection.send(#"{"type":"hello","board":"\#(board)","name":"bench-\#(index)"}"#)
    var seq = 0
    var latencies: [Double] = []
    var sentAt: [String: UInt64] = [:]
    var sent = 0
    var on = false
    func send(_ item: String) {
        on.toggle()
        let op = "c\(index)-\(sent)"
        sent += 1
        sentAt[op] = DispatchTime.now().uptimeNanoseconds
        connection.send(#"{"type":"toggle","op":"\#(op)","base":\#(seq),"item":"\#(item)","on":\#(on)}"#)
    }
    var itemOf: [String: String] = [:]
    var started = false
    while latencies.count < count {
        let text = try await connection.receive(timeout: .seconds(30))
        let json = try JSON.parse(text)
        for message in json.arrayValue ?? [json] {
            switch message["type"]?.stringValue {
            case "welcome":
                seq = message["seq"]?.intValue ?? 0
                if !started {
                    started = true
                    for item in items where sent < count {
                        itemOf["c\(index)-\(sent)"] = item
                        send(item)
                    }
                }
            case "toggle":
                seq = message["seq"]?.intValue ?? seq
                guard let op = message["op"]?.stringValue, let start = sentAt.removeValue(forKey: op) else { continue }
                latencies.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                if sent < count, let item = itemOf.removeValue(forKey: op) {
                    itemOf["c\(index)-\(sent)"] = item
                    send(item)
                }
            case "reject", "error":
                throw BenchError(description: "unexpected \(text)")
            default:
                continue
            }
        }
    }
    return latencies
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
}

/// A server over `store` on a free port, logging errors only; the caller stops it.
func startServer(store: any BoardStore, _ configure: (inout ServerConfig) -> Void = { _ in }) throws -> (
    Server, port: Int
) {
    var config = ServerConfig()
    config.port = 0
    config.hub.logLevel = .error
    // All load comes from 127.0.0.1: the per-connection and per-address limits would measure themselves.
    config.hub.opRate = nil
    config.hub.messageRate = nil
    config.hub.maxConnectionsPerAddress = 0
    config.hub.maxPendingPerAddress = 0
    config.hub.connectRate = nil
    configure(&config)
    let server = Server(config: config, store: store)
    return (server, try server.start())
}

func measure(store: any BoardStore, scenario: Scenario, totalOps: Int, board: String) async throws -> Result {
    let (server, port) = try startServer(store: store)
    defer { server.stop() }
    let loop = try ClientLoop()
    defer { loop.shutdown() }
    let perClient = totalOps / scenario.clients
    let itemIDs = (1...12).map { "t\($0)" }
    let start = DispatchTime.now().uptimeNanoseconds
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for i in 0..<scenario.clients {
            let items = Array(itemIDs[(i * scenario.window)..<((i + 1) * scenario.window)])
            let connection = try await loop.connect(port: port)
            group.addTask { try await runClient(connection, index: i, items: items, count: perClient, board: board) }
        }
        var all: [Double] = []
        for try await l in group { all += l }
        return all
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    let sorted = latencies.sorted()
    return Result(
        opsPerSecond: Double(sorted.count) / seconds,
        p50: sorted[sorted.count / 2],
        p99: sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
}

/// Fan-out: one holder sends `hovers` hovers; each goes to every one of `receivers` clients.
/// Returns delivered messages per second, counted when the last receiver has all of them.
func measureFanOut(receivers: Int, hovers: Int, framesPerWrite: Int) async throws -> Double {
    let (server, port) = try startServer(store: MemoryStore()) { $0.maxFramesPerWrite = framesPerWrite }
    defer { server.stop() }
    let loop = try ClientLoop()
    defer { loop.shutdown() }
    var connections: [ClientConnection] = []
    for i in 0..<receivers {
        let c = try await loop.connect(port: port)
        c.send(#"{"type":"hello","board":"fan","name":"r\#(i)"}"#)
        _ = try await c.receive(timeout: .seconds(30))  // welcome
        connections.append(c)
    }
    let holder = try await loop.connect(port: port)
    holder.send(#"{"type":"hello","board":"fan","name":"holder"}"#)
    holder.send(#"{"type":"dragStart","item":"t1"}"#)
    holder.send(#"{"type":"ping"}"#)
    while try await !holder.receive(timeout: .seconds(30)).contains("pong") {}
    // Everyone has seen the holder join and lift; count only hovers from here.
    for c in connections {
        while try await !c.receive(timeout: .seconds(30)).contains("dragStart") {}
    }
    let start = DispatchTime.now().uptimeNanoseconds
    for i in 0..<hovers { holder.send(#"{"type":"hover","item":"t1","over":"t\#(2 + i % 11)"}"#) }
    try await withThrowingTaskGroup(of: Void.self) { group in
        for c in connections {
            group.addTask {
                var seen = 0
                while seen < hovers {
                    if try await c.receive(timeout: .seconds(60)).hasPrefix(#"{"type":"hover""#) { seen += 1 }
                }
            }
        }
        try await group.waitForAll()
    }
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    return Double(receivers * hovers) / seconds
}

var arguments = CommandLine.arguments.dropFirst()
if let name = arguments.first, let command = benchCommand(named: name) {
    guard let bench = command.init(arguments: arguments.dropFirst()) else {
        FileHandle.standardError.write(Data((command.usage + "\n").utf8))
        exit(2)
    }
    do {
        try await bench.run()
    } catch {
        FileHandle.standardError.write(Data("shuffleboard-bench \(name): \(error)\n".utf8))
        exit(1)
    }
    exit(0)
}

var totalOps = 4000
while let argument = arguments.popFirst() {
    switch argument {
    case "--ops": totalOps = Int(arguments.popFirst() ?? "") ?? totalOps
    case "--quick": totalOps = 600
    default:
        FileHandle.standardError.write(
            Data(
                "usage: shuffleboard-bench [--ops N] [--quick] | scenarios [options] | join-stall [options] | history-joins [options] | http-stall [options] | store [options] | history [options] | events [options] | big-boards [options] | big-search [options]\n"
                    .utf8))
        exit(2)
    }
}

let scenarios = [Scenario(clients: 1, window: 1), Scenario(clients: 4, window: 3), Scenario(clients: 12, window: 1)]
print("committed ops/s on one board, \(totalOps) ops per run (sqlite: WAL, synchronous=FULL, group commit)")
print("clients  in-flight   memory ops/s   sqlite ops/s   sqlite/memory   sqlite p50 ms   sqlite p99 ms")
for (n, scenario) in scenarios.enumerated() {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("shuffleboard-bench-\(getpid())-\(n)")
    defer { try? FileManager.default.removeItem(at: directory) }
    let memory = try await measure(store: MemoryStore(), scenario: scenario, totalOps: totalOps, board: "bench")
    let sqlite = try SQLiteStore(directory: directory.path)
    let durable = try await measure(store: sqlite, scenario: scenario, totalOps: totalOps, board: "bench")
    sqlite.close()
    print(
        String(
            format: "%7d  %9d   %12.0f   %12.0f   %13.2f   %13.2f   %13.2f", scenario.clients,
            scenario.clients * scenario.window, memory.opsPerSecond, durable.opsPerSecond,
            durable.opsPerSecond / memory.opsPerSecond, durable.p50, durable.p99))
}

print("")
print("fan-out of hovers to every client on one board (memory store)")
print("receivers   hovers   1 frame per write msgs/s   up to 64 frames per write msgs/s   ratio")
for receivers in [50, 200] {
    let hovers = max(200, totalOps / 4)
    let single = try await measureFanOut(receivers: receivers, hovers: hovers, framesPerWrite: 1)
    let batched = try await measureFanOut(receivers: receivers, hovers: hovers, framesPerWrite: 64)
    print(String(format: "%9d   %6d   %24.0f   %32.0f   %5.2f", receivers, hovers, single, batched, batched / single))
}
