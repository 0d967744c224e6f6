import BoardClient
import BoardCore
import BoardHub
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench scenarios [--smoke] [NAME...]`: the named scenarios, one JSON line each.
///
/// Hover and connection scenarios run the real `shuffleboard` binary as a child process (so its
/// CPU and RSS are its own, read from /proc) and drive it with the C load generator
/// (Tools/loadgen.c, built by scripts/build-loadgen.sh), which does not share the server's
/// threads. Committed ops and drag races run the server in-process on the Swift client.
/// `--port P --pid PID` points the hover scenarios at a server already running (socketify, for
/// scripts/bench-compare.sh) instead.
struct Scenarios {
    static let names = [
        "fan-out", "saturation", "connect-storm", "idle-memory", "many-boards", "committed-ops", "drag-races",
        "forwarded-ops", "editing-ops", "card-ops", "cluster-fanout", "full-node",
    ]
    static let usage =
        "usage: shuffleboard-bench scenarios [--smoke] [--server BIN] [--loadgen BIN] [--port P --pid PID]"
        + " [--postgres URL] [--rate HOVERS_PER_S] [--seconds S] [--clients N] [NAME...]\n  names: "
        + names.joined(separator: " ")

    var smoke = false
    var selected: [String] = []
    var serverBinary: String
    var loadgen: String
    var externalPort: Int?
    var externalPID: Int?
    /// A PostgreSQL database for `committed-ops` to run a clustered node on too (`--store URL`).
    var postgres: String?
    /// Overrides of the hover scenarios' rate per sender, length and clients (for load sweeps).
    var rate: Int?
    var seconds: Double?
    var clients: Int?

    init?(arguments: ArraySlice<String>) {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        serverBinary = here.appendingPathComponent("shuffleboard").path
        loadgen = ProcessInfo.processInfo.environment["SHUFFLEBOARD_LOADGEN"] ?? ".build-bench/loadgen"
        var arguments = arguments
        while let argument = arguments.popFirst() {
            switch argument {
            case "--smoke": smoke = true
            case "--server": guard let v = arguments.popFirst() else { return nil }; serverBinary = v
            case "--loadgen": guard let v = arguments.popFirst() else { return nil }; loadgen = v
            case "--port": guard let v = arguments.popFirst().flatMap({ Int($0) }) else { return nil }; externalPort = v
            case "--pid": guard let v = arguments.popFirst().flatMap({ Int($0) }) else { return nil }; externalPID = v
            case "--postgres": guard let v = arguments.popFirst() else { return nil }; postgres = v
            case "--rate":
                guard let v = arguments.popFirst().flatMap({ Int($0) }), (1...100_000).contains(v) else { return nil }
                rate = v
            case "--seconds":
                guard let v = arguments.popFirst().flatMap({ Double($0) }), v > 0, v <= 120 else { return nil }
                seconds = v
            case "--clients":
                guard let v = arguments.popFirst().flatMap({ Int($0) }), (2...20_000).contains(v) else { return nil }
                clients = v
            default:
                guard Self.names.contains(argument) else { return nil }
                selected.append(argument)
            }
        }
        if selected.isEmpty { selected = externalPort == nil ? Self.names : ["fan-out", "saturation"] }
        if (externalPort == nil) != (externalPID == nil) { return nil }
    }

    func run() async throws {
        for name in selected {
            switch name {
            case "fan-out":
                try hovers(
                    name, clients: smoke ? 20 : 500, senders: 4, rate: smoke ? 50 : 250, seconds: smoke ? 0.5 : 5)
            case "saturation":
                try hovers(
                    name, clients: smoke ? 20 : 500, senders: 4, rate: smoke ? 500 : 2500, seconds: smoke ? 0.5 : 5)
            case "connect-storm":
                // As many as the descriptor limit allows (the server and the load generator are
                // separate processes, each with its own limit; some to spare), at most 10,000.
                let limit = Self.descriptorLimit()
                let n = smoke ? 50 : min(10_000, limit - 200)
                try idle(name, clients: n, boards: 1, timeout: 60)
            case "idle-memory":
                let limit = Self.descriptorLimit()
                for n in smoke ? [30] : [1_000, 5_000, 10_000] where n + 200 + Self.warmClients <= limit {
                    try idle(name, clients: n, boards: 1, timeout: 120)
                    try idle(name + "-marginal", clients: n, boards: 1, timeout: 120, warm: true)
                }
            case "many-boards":
                let (n, boards) = smoke ? (40, 4) : (10_000, 100)
                try idle(name, clients: n, boards: boards, timeout: 120)
                try idle(name + "-marginal", clients: n, boards: boards, timeout: 120, warm: true)
            case "committed-ops":
                try committedOps(seconds: smoke ? 0.3 : 5)
            case "cluster-fanout":
                try clusterFanout(
                    clients: self.clients ?? (smoke ? 30 : 1_500), senders: 4, rate: self.rate ?? (smoke ? 20 : 250),
                    seconds: self.seconds ?? (smoke ? 0.5 : 5))
            case "full-node":
                // Idle connections: `--clients`, else as many as the descriptor limit leaves (the
                // server's and each load generator's own), at most 10,000.
                let idle = self.clients ?? (smoke ? 300 : min(10_000, Self.descriptorLimit() - 1_000))
                try fullNode(
                    idle: idle, busy: smoke ? 2 : 10, seconds: self.seconds ?? (smoke ? 1 : 5), rounds: smoke ? 1 : 2,
                    sources: max(1, (idle + 4_999) / 5_000))
            case "drag-races":
                try await dragRaces(racers: smoke ? 3 : 8, rounds: smoke ? 20 : 500)
            case "forwarded-ops":
                try await forwardedOps(ops: smoke ? 50 : 2000)
            case "editing-ops":
                try await editingOps(opsPerClient: smoke ? 40 : 1000, clients: 4)
            case "card-ops":
                try await cardOps(opsPerClient: smoke ? 40 : 1000, clients: 4)
            default:
                continue
            }
        }
    }

    // MARK: - Hover and connection scenarios (child server, C load generator)

    func hovers(_ name: String, clients: Int, senders: Int, rate: Int, seconds: Double) throws {
        try withServer { port, pid in
            try loadgen([
                "--label", name, "--mode", "hover", "--port", "\(port)", "--server-pid", "\(pid)",
                "--clients", "\(self.clients ?? clients)", "--senders", "\(senders)", "--rate", "\(self.rate ?? rate)",
                "--seconds", "\(self.seconds ?? seconds)", "--timeout", "60",
            ])
        }
    }

    /// The clients a `-marginal` run keeps connected (and joined, to a board of their own) before
    /// the measured ones come.
    static let warmClients = 200

    /// `clients` idle clients join `boards` boards; the load generator reports the server's RSS
    /// growth over their connecting, per connection. Cold (`warm` false), the server has served
    /// nobody yet, so that growth includes what the first connections cost once (about 1.2 MB
    /// here, mostly code and data pages touched for the first time). `warm` measures the marginal
    /// cost of one more idle connection: `warmClients` clients connect first and stay, and the
    /// measured ones come after them.
    func idle(_ name: String, clients: Int, boards: Int, timeout: Int, warm: Bool = false) throws {
        try withServer { port, pid in
            var warmers: Process?
            if warm {
                let process = Process()
                process.executableURL = URL(fileURLWithPath: loadgen)
                process.arguments = [
                    "--mode", "idle", "--port", "\(port)", "--clients", "\(Self.warmClients)", "--board", "warm",
                    "--hold", "600", "--timeout", "60",
                ]
                process.standardOutput = FileHandle.nullDevice
                try process.run()
                warmers = process
                try Self.waitForUsers(Self.warmClients, port: port, timeout: 60)
            }
            defer {
                // SIGKILL: the child inherits this thread's blocked signals, SIGTERM among them.
                if let warmers {
                    kill(warmers.processIdentifier, SIGKILL)
                    warmers.waitUntilExit()
                }
            }
            try loadgen([
                "--label", name, "--mode", "idle", "--port", "\(port)", "--server-pid", "\(pid)", "--clients",
                "\(clients)", "--boards", "\(boards)", "--hold", "0", "--timeout", "\(timeout)",
                "--connecting", "512",
            ])
        }
    }

    /// Runs `body` against a fresh shuffleboard child (or the external server), then stops it.
    /// `store` is the server's store arguments (`--memory`, `--data DIR`, `--store URL`).
    func withServer(store: [String] = ["--memory"], extra: [String] = [], _ body: (Int, Int) throws -> Void) throws {
        if let port = externalPort, let pid = externalPID { return try body(port, pid) }
        let port = try Self.freePort()
        let server = Process()
        server.executableURL = URL(fileURLWithPath: serverBinary)
        server.arguments =
            [
                "serve", "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "error", "--op-rate", "0",
                "--message-rate", "0", "--max-connections-per-address", "0", "--max-pending-per-address", "0",
                "--connect-rate", "0", "--board-creations", "0", "--max-holds-per-address", "0",
            ] + store + extra
        try server.run()
        defer {
            server.terminate()
            server.waitUntilExit()
        }
        try Self.waitUntilListening(port: port, timeout: 10)
        try body(port, Int(server.processIdentifier))
    }

    /// Runs the load generator and emits its line, which it returns too.
    @discardableResult
    func loadgen(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: loadgen)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = String(data: output, encoding: .utf8), !line.isEmpty else {
            throw BenchError(description: "loadgen \(arguments.joined(separator: " ")) failed")
        }
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        emit(trimmed)
        return trimmed
    }

    /// Committed ops (toggles) per second on one board, in memory, with SQLite's group commit
    /// (WAL, synchronous=FULL: an op is broadcast once its transaction is on disk) and, with
    /// `--postgres URL`, on a cluster node over PostgreSQL (fenced group commit), from the C load
    /// generator: each client keeps `window` toggles of items of its own in flight. With
    /// PostgreSQL, a last line per load says how its ops/s compare with SQLite's in the same run
    /// (`committed-ops-postgres-vs-sqlite`, `ratio`).
    func committedOps(seconds: Double) throws {
        for (clients, window) in [(1, 1), (4, 3), (2, 6)] {
            var opsPerSecond: [String: Double] = [:]
            defer {
                if let sqlite = opsPerSecond["sqlite"], let postgres = opsPerSecond["postgres"], sqlite > 0 {
                    emit(
                        #"{"scenario":"committed-ops-postgres-vs-sqlite","clients":\#(clients),"in_flight":\#(window),"#
                            + #""sqlite_ops_per_s":\#(Int(sqlite)),"postgres_ops_per_s":\#(Int(postgres)),"#
                            + #""ratio":\#(String(format: "%.2f", postgres / sqlite))}"#)
                }
            }
            for store in ["memory", "sqlite"] + (postgres == nil ? [] : ["postgres"]) {
                let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "shuffleboard-bench-ops-\(getpid())")
                defer { try? FileManager.default.removeItem(at: directory) }
                let arguments: [String] =
                    switch store {
                    case "memory": ["--memory"]
                    case "sqlite": ["--data", directory.path]
                    default: ["--store", postgres ?? "", "--node", "bench-\(getpid())"]
                    }
                // Each run its own board: a PostgreSQL database keeps the boards of the runs before.
                let board = "ops-\(clients)x\(window)-\(getpid())"
                try withServer(store: arguments) { port, pid in
                    let line = try loadgen([
                        "--label", "committed-ops-\(store)", "--mode", "ops", "--port", "\(port)", "--server-pid",
                        "\(pid)", "--clients", "\(clients)", "--window", "\(window)", "--seconds", "\(seconds)",
                        "--board", board, "--timeout", "30",
                    ])
                    opsPerSecond[store] = (try? JSON.parse(line))?["ops_per_s"]?.numberValue
                }
            }
        }
    }

    /// `racers` clients race for one tile, `rounds` times each: lift it, and on winning drop it.
    /// A watcher checks that holds never overlap (every dragStart of t1 is followed by its drop).
    func dragRaces(racers: Int, rounds: Int) async throws {
        let (server, port) = try startServer(store: MemoryStore()) {
            $0.hub.opRate = nil
            $0.hub.messageRate = nil
            $0.hub.maxConnectionsPerAddress = 0
            $0.hub.maxPendingPerAddress = 0
            $0.hub.connectRate = nil
        }
        defer { server.stop() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        let watcher = try await loop.connect(port: port)
        watcher.send(#"{"type":"hello","board":"race","name":"watcher"}"#)
        _ = try await watcher.receive(timeout: .seconds(30))
        let start = DispatchTime.now().uptimeNanoseconds
        let outcomes = try await withThrowingTaskGroup(of: (won: Int, lost: Int, latencies: [Double]).self) { group in
            for i in 0..<racers {
                let c = try await loop.connect(port: port)
                group.addTask {
                    c.send(#"{"type":"hello","board":"race","name":"racer\#(i)"}"#)
                    var me = ""
                    while me.isEmpty {
                        let m = try JSON.parse(try await c.receive(timeout: .seconds(30)))
                        if m["type"]?.stringValue == "welcome" { me = m["you"]?.stringValue ?? "" }
                    }
                    var won = 0
                    var lost = 0
                    var latencies: [Double] = []
                    for _ in 0..<rounds {
                        let sent = DispatchTime.now().uptimeNanoseconds
                        c.send(#"{"type":"dragStart","item":"t1"}"#)
                        var outcome: Bool?
                        while outcome == nil {
                            let m = try JSON.parse(try await c.receive(timeout: .seconds(30)))
                            switch m["type"]?.stringValue {
                            case "dragStart" where m["by"]?.stringValue == me: outcome = true
                            case "reject": outcome = false
                            default: continue
                            }
                        }
                        latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e6)
                        if outcome == true {
                            won += 1
                            c.send(#"{"type":"drop","item":"t1"}"#)
                            var dropped = false
                            while !dropped {
                                let m = try JSON.parse(try await c.receive(timeout: .seconds(30)))
                                dropped = m["type"]?.stringValue == "drop" && m["by"]?.stringValue == me
                            }
                        } else {
                            lost += 1
                        }
                    }
                    c.close()
                    return (won, lost, latencies)
                }
            }
            var all: [(won: Int, lost: Int, latencies: [Double])] = []
            for try await o in group { all.append(o) }
            return all
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let won = outcomes.reduce(0) { $0 + $1.won }
        let lost = outcomes.reduce(0) { $0 + $1.lost }
        // The watcher saw every hold: a dragStart of t1 then its drop, never two holders at once.
        var holder: String?
        var violations = 0
        var holds = 0
        while holds < won {
            let m = try JSON.parse(try await watcher.receive(timeout: .seconds(30)))
            guard m["item"]?.stringValue == "t1" else { continue }
            switch m["type"]?.stringValue {
            case "dragStart":
                if holder != nil { violations += 1 }
                holder = m["by"]?.stringValue
            case "drop":
                if holder != m["by"]?.stringValue { violations += 1 }
                holder = nil
                holds += 1
            default: continue
            }
        }
        let sorted = outcomes.flatMap(\.latencies).sorted()
        emit(
            String(
                format:
                    #"{"scenario":"drag-races","connections":%d,"attempts":%d,"won":%d,"lost":%d,"#
                    + #""attempts_per_s":%.0f,"overlapping_holds":%d,"latency_ms":{"p50":%.3f,"p99":%.3f,"max":%.3f}}"#,
                racers, won + lost, won, lost, Double(won + lost) / seconds, violations,
                sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)], sorted.last ?? 0))
    }

    /// The added latency of forwarding: an op's round trip (a toggle sent, its broadcast back,
    /// one op in flight, in memory) from a client on the board's owner, and from one on another
    /// node of the cluster, which forwards it to the owner, measured in turns. Both nodes run in
    /// this process on `MemoryClusterStore`s sharing one database.
    func forwardedOps(ops: Int) async throws {
        let database = MemoryClusterDatabase()
        let (ownerPort, nodePort) = (try Self.freePort(), try Self.freePort())
        let ownerStore = MemoryClusterStore(database: database, node: "owner", advertise: "127.0.0.1:\(ownerPort)")
        let nodeStore = MemoryClusterStore(database: database, node: "node", advertise: "127.0.0.1:\(nodePort)")
        let (owner, _) = try startServer(store: ownerStore) { $0.port = ownerPort }
        defer { owner.stop() }
        let (node, _) = try startServer(store: nodeStore) { $0.port = nodePort }
        defer { node.stop() }
        // The owner claims every board first: a client on it joins before the forwarded one.
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        var latencies: [String: [Double]] = ["direct": [], "forwarded": []]
        // Turns of a quarter each, so that both paths see the same machine load over time.
        let turn = max(1, ops / 4)
        for round in 0..<4 {
            let board = "fwd-\(round)"
            let holder = try await loop.connect(port: ownerPort)
            holder.send(#"{"type":"hello","board":"\#(board)","name":"owner's"}"#)
            _ = try await holder.receive(timeout: .seconds(30))
            // Op ids differ between the two (the owner takes a repeated op id for a resend).
            for (index, path, port) in [(0, "direct", ownerPort), (1, "forwarded", nodePort)] {
                let connection = try await loop.connect(port: port)
                latencies[path]! += try await runClient(
                    connection, index: index, items: ["t\(index + 1)"], count: turn, board: board)
                connection.close()
            }
            holder.close()
        }
        for path in ["direct", "forwarded"] {
            let sorted = latencies[path]!.sorted()
            emit(
                String(
                    format: #"{"scenario":"forwarded-ops","path":"%@","ops":%d,"#
                        + #""latency_ms":{"p50":%.3f,"p99":%.3f,"max":%.3f}}"#,
                    path, sorted.count, sorted[sorted.count / 2],
                    sorted[min(sorted.count - 1, sorted.count * 99 / 100)],
                    sorted.last ?? 0))
        }
    }

    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    /// One result line on stdout, written at once (so a pipe sees each line as it is made).
    func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
