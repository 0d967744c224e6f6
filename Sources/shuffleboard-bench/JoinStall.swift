import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench join-stall`: how much one client joining cold boards (not in the server's
/// memory, 10,000 ops each in SQLite) delays the hovers of another board that runs at full rate.
///
/// One sender holds a tile on the hot board and sends hovers at a fixed rate; a few watchers on
/// that board note when each hover arrives. Phase A is the reference: hovers only. Phase B runs the
/// same hovers while a joiner, one after another, connects, says hello to the next cold board,
/// waits for its welcome and closes; phase C paces those joins (one every `joinEvery` ms). The
/// hover relay carries no field of the sender's, so the send times stay with the sender, by hover
/// number, and watchers match hovers by order (each hover's `over` follows a known cycle, which
/// checks that none was lost or reordered).
///
/// Only the product API is used (`Server`, `ServerConfig`, `SQLiteStore`, `BoardClient`), so that
/// the scenario measures the same thing before and after the server's internals change.
struct JoinStall {
    static let usage =
        "usage: shuffleboard-bench join-stall [--boards N] [--ops N] [--rate HOVERS_PER_S] [--seconds S] [--watchers N]"
        + " [--join-every MS]"

    /// Cold boards written to the store before the server starts.
    var boards = 20
    /// Committed ops on each cold board.
    var opsPerBoard = 10_000
    /// The hovers on the hot board.
    var load = HoverLoad(rate: 1000, watchers: 4)
    /// Phase C starts one join every this many milliseconds.
    var joinEvery = 250

    /// The options after `join-stall`.
    static var options: [BenchOption<Self>] {
        [
            .int("--boards", \.boards, 1...Int.max), .int("--ops", \.opsPerBoard, 1...Int.max),
            .int("--join-every", \.joinEvery, 1...60_000),
        ] + HoverLoad.options(\.load, watchers: true)
    }

    /// Upper bound on joins per phase, on top of the phase's time bound.
    static let maxJoins = 100_000
    /// Every wait for a message gives up after this.
    static let receiveTimeout = Duration.seconds(30)

    /// Prepares the store, starts the server, runs the phases and prints one line for each.
    func run() async throws {
        try await withScratchStore("join") { store in

            let prepareStart = Self.now()
            let cold = try prepare(store)
            let prepareSeconds = Self.seconds(since: prepareStart)
            // What one join reads from the store (on the service thread, before the Hub change), alone.
            var direct: [Double] = []
            for id in cold.prefix(5) {
                let start = Self.now()
                _ = try store.load(id, recentLimit: 10_000)
                direct.append(Self.millis(since: start))
            }

            let (server, port) = try startServer(store: store)
            defer { server.stop() }
            // One client loop (one lws service thread) each, so the joiner's and the sender's client
            // work does not queue behind the watchers'.
            let senderLoop = try ClientLoop()
            defer { senderLoop.shutdown() }
            let watcherLoop = try ClientLoop()
            defer { watcherLoop.shutdown() }
            let joinerLoop = try ClientLoop()
            defer { joinerLoop.shutdown() }

            let hot = try await HotBoard.join(
                port: port, watchers: load.watchers, senderLoop: senderLoop, watcherLoop: watcherLoop)
            defer { hot.close() }

            let count = load.hoversPerPhase
            _ = try await phase(hot, hovers: load.warmUp, joiner: nil)
            let reference = try await phase(hot, hovers: count, joiner: nil)
            let joiner = Joiner(loop: joinerLoop, port: port, boards: cold)
            let backToBack = try await phase(hot, hovers: count, joiner: joiner)
            let paced = try await phase(hot, hovers: count, joiner: joiner, joinEvery: UInt64(joinEvery) * 1_000_000)

            let idLength = Self.opID(board: cold[0], index: 0).count
            print("join stall: hover latency on a hot board while another client joins cold boards (sqlite store)")
            print(
                String(
                    format: "cold boards: %d x %d ops (op ids %d chars), written in %.1f s before the server started",
                    boards, opsPerBoard, idLength, prepareSeconds))
            print(
                String(
                    format: "store.load(recentLimit: 10000) of one cold board, on the store alone: "
                        + "%.1f ms (median of %d)",
                    Self.percentile(direct.sorted(), 0.5), direct.count))
            load.printPhases(
                "phase                                hovers   sent/s   p50 ms   p99 ms   max ms   joins   welcome p50 ms   welcome max ms",
                reference: reference.line("A: hovers only (reference)"),
                [backToBack.line("B: + joins back to back"), paced.line("C: + one join every \(joinEvery) ms")])
        }
    }

    // MARK: Cold boards

    /// Writes the cold boards through the store's own write path, each in one transaction.
    private func prepare(_ store: SQLiteStore) throws -> [BoardID] {
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        var ids: [BoardID] = []
        for b in 0..<boards {
            let id = BoardID(String(format: "cold-%03d", b))!
            let ops = (0..<opsPerBoard).map { (k: Int) -> CommittedOp in
                let time = UnixTime(milliseconds: wall - Int64(opsPerBoard - k))
                let by = UserID(number: UInt64(1 + k % 5))
                return CommittedOp(
                    seq: k + 1, opID: OpID(Self.opID(board: id, index: k))!, by: by, op: Self.op(k), time: time)
            }
            try store.write([.create(Board.defaultTemplate(id: id)), .append(id, ops)])
            ids.append(id)
        }
        return ids
    }

    /// A client-style op id of about 50 characters, as a browser's would be (a uuid and a counter).
    static func opID(board: BoardID, index: Int) -> String {
        "\(board)-2c6f0d8e-9a41-4f7b-b3d5-\(String(format: "%012d", index))"
    }

    /// The `k`th op of a cold board: swaps, toggles and moves between grid and tray, all valid on
    /// the default template whatever came before.
    static func op(_ k: Int) -> Op {
        let a = ItemID("t\(1 + k % 12)")!
        switch k % 3 {
        case 0:
            let b = ItemID("t\(1 + (k % 12 + 1 + (k / 12) % 11) % 12)")!
            return .swap(a: a, b: b)
        case 1:
            return .toggle(item: a, on: k % 2 == 0)
        default:
            return .move(item: a, zone: ZoneID(k % 2 == 0 ? "tray" : "grid")!, before: nil)
        }
    }

    // MARK: Phases

    /// What one phase measured.
    struct PhaseResult {
        var hovers: Int
        var sendRate: Double
        var latencies: [Double]
        var welcomes: [Double]

        func line(_ name: String) -> String {
            let sorted = latencies.sorted()
            let joins = welcomes.sorted()
            let joinColumns =
                joins.isEmpty
                ? "    -                -                -"
                : String(
                    format: "%5d   %14.2f   %14.2f", joins.count, JoinStall.percentile(joins, 0.5), joins.last!)
            return
                name.padding(toLength: 34, withPad: " ", startingAt: 0)
                + String(
                    format: "   %6d   %6.0f   %6.2f   %6.2f   %6.1f   ", hovers, sendRate,
                    JoinStall.percentile(sorted, 0.5), JoinStall.percentile(sorted, 0.99), sorted.last ?? 0)
                + joinColumns
        }
    }

    /// Sends `hovers` hovers at `rate` and, with a joiner, joins cold boards until the last hover is
    /// due: each join as soon as the one before has closed, or one every `joinEvery` nanoseconds.
    private func phase(
        _ hot: HotBoard, hovers: Int, joiner: Joiner?, joinEvery: UInt64? = nil
    ) async throws -> PhaseResult {
        let (run, welcomes) = try await Self.hovers(hot, count: hovers, rate: load.rate) { start, end in
            try await joiner?.run(from: start, until: end, every: joinEvery) ?? []
        }
        let sendSeconds = Double((run.sent.last ?? 0) - (run.sent.first ?? 0)) / 1e9
        return PhaseResult(
            hovers: hovers, sendRate: sendSeconds > 0 ? Double(hovers - 1) / sendSeconds : 0,
            latencies: run.latencies, welcomes: welcomes)
    }

    /// The hovers of one phase: when each was sent, and every watcher's latency of each (ms).
    struct HoverRun {
        var sent: [UInt64]
        var latencies: [Double]
    }

    /// What each hover task of a phase hands back.
    private enum HoverOutput {
        case sent([UInt64])
        case received([UInt64])
    }

    /// Sends `count` hovers from the hot board's sender at `rate` a second, starting 20 ms from
    /// now, while its watchers read them and `alongside(start, end)` runs beside them (`end`: when
    /// the last hover is due); the hovers' times and latencies and what `alongside` returned.
    static func hovers<Alongside: Sendable>(
        _ hot: HotBoard, count: Int, rate: Int,
        alongside: @escaping @Sendable (_ start: UInt64, _ end: UInt64) async throws -> Alongside
    ) async throws -> (HoverRun, Alongside) {
        let interval = 1_000_000_000 / UInt64(rate)
        let start = now() + 20_000_000
        async let beside = alongside(start, start + UInt64(count) * interval)
        let outputs = try await withThrowingTaskGroup(of: HoverOutput.self) { group in
            for watcher in hot.watchers {
                group.addTask { .received(try await watch(watcher, hovers: count)) }
            }
            group.addTask { .sent(try await send(count, on: hot.sender, start: start, interval: interval)) }
            var outputs: [HoverOutput] = []
            for try await output in group { outputs.append(output) }
            return outputs
        }
        var sent: [UInt64] = []
        var received: [[UInt64]] = []
        for output in outputs {
            switch output {
            case .sent(let times): sent = times
            case .received(let times): received.append(times)
            }
        }
        var latencies: [Double] = []
        latencies.reserveCapacity(count * received.count)
        for times in received {
            for (s, r) in zip(sent, times) { latencies.append(Double(r &- s) / 1e6) }
        }
        return (HoverRun(sent: sent, latencies: latencies), try await beside)
    }

    /// The `over` of hover number `i`: a cycle through t2…t12 that lets a watcher check the order.
    static func over(_ i: Int) -> String { "t\(2 + i % 11)" }

    /// Sends hover `i` at `start + i * interval` (or as soon after as the task runs) and returns
    /// when each was handed to the client loop.
    static func send(
        _ hovers: Int, on sender: ClientConnection, start: UInt64, interval: UInt64
    ) async throws -> [UInt64] {
        var sent: [UInt64] = []
        sent.reserveCapacity(hovers)
        for i in 0..<hovers {
            let due = start + UInt64(i) * interval
            let now = Self.now()
            if now < due { try await Task.sleep(nanoseconds: due - now) }
            sent.append(Self.now())
            sender.send(#"{"type":"hover","item":"t1","over":"\#(over(i))"}"#)
        }
        return sent
    }

    /// The arrival time of each of the next `hovers` hovers, checking their order by `over`.
    static func watch(_ watcher: ClientConnection, hovers: Int) async throws -> [UInt64] {
        var received: [UInt64] = []
        received.reserveCapacity(hovers)
        while received.count < hovers {
            let text = try await watcher.receive(timeout: receiveTimeout)
            let at = Self.now()
            for message in try messages(in: text) where message["type"]?.stringValue == "hover" {
                let over = message["over"]?.stringValue
                let expected = Self.over(received.count)
                guard over == expected else {
                    let problem = "hover \(received.count) came with over \(over ?? "null"), not \(expected)"
                    throw BenchError(description: problem + " (lost or reordered)")
                }
                received.append(at)
            }
        }
        return received
    }

    /// The messages of one server frame (one object, or an array of them).
    static func messages(in text: String) throws -> [JSON] {
        let json = try JSON.parse(text)
        return json.arrayValue ?? [json]
    }

    // MARK: Clients

    /// The hot board: a sender holding `t1`, and watchers that have seen it lift.
    struct HotBoard {
        var sender: ClientConnection
        var watchers: [ClientConnection]

        static func join(
            port: Int, watchers count: Int, senderLoop: ClientLoop, watcherLoop: ClientLoop
        ) async throws -> HotBoard {
            var watchers: [ClientConnection] = []
            for i in 0..<count {
                let watcher = try await watcherLoop.connect(port: port)
                watcher.send(#"{"type":"hello","board":"hot","name":"watcher-\#(i)"}"#)
                try await expect("welcome", on: watcher)
                watchers.append(watcher)
            }
            let sender = try await senderLoop.connect(port: port)
            sender.send(#"{"type":"hello","board":"hot","name":"sender"}"#)
            sender.send(#"{"type":"dragStart","item":"t1"}"#)
            sender.send(#"{"type":"ping"}"#)
            try await expect("pong", on: sender)
            for watcher in watchers { try await expect("dragStart", on: watcher) }
            return HotBoard(sender: sender, watchers: watchers)
        }

        func close() {
            sender.close()
            for watcher in watchers { watcher.close() }
        }
    }

    /// Reads until a message of `type` arrives, skipping others; a `reject` or `error` is a failure.
    static func expect(_ type: String, on connection: ClientConnection) async throws {
        for _ in 0..<1000 {
            let text = try await connection.receive(timeout: receiveTimeout)
            for message in try messages(in: text) {
                switch message["type"]?.stringValue {
                case type: return
                case "reject", "error": throw BenchError(description: "waiting for \(type): \(text)")
                default: continue
                }
            }
        }
        throw BenchError(description: "no \(type) in 1000 messages")
    }

    /// Joins the cold boards in turn, one connection at a time: hello, welcome, close.
    struct Joiner {
        var loop: ClientLoop
        var port: Int
        var boards: [BoardID]

        /// Welcome latencies (hello sent to welcome received, ms) of the joins started before `end`;
        /// with `every`, join `j` waits until `start + j * every`.
        func run(from start: UInt64, until end: UInt64, every: UInt64?) async throws -> [Double] {
            var welcomes: [Double] = []
            var next = 0
            while welcomes.count < JoinStall.maxJoins {
                let due = start + UInt64(next) * (every ?? 0)
                guard due < end else { break }
                let now = JoinStall.now()
                if now < due { try await Task.sleep(nanoseconds: due - now) }
                guard JoinStall.now() < end else { break }
                let board = boards[next % boards.count]
                next += 1
                welcomes.append(try await Self.join(board, loop: loop, port: port))
            }
            return welcomes
        }

        /// One join: connects, says hello to `board`, waits for the welcome and closes; the
        /// milliseconds from hello to welcome.
        static func join(_ board: BoardID, loop: ClientLoop, port: Int) async throws -> Double {
            let connection = try await loop.connect(port: port)
            let start = JoinStall.now()
            connection.send(#"{"type":"hello","board":"\#(board)","name":"joiner"}"#)
            try await JoinStall.expect("welcome", on: connection)
            let welcome = JoinStall.millis(since: start)
            // Wait for the close handshake, so the server has let go of the board (an idle board is
            // dropped from memory) before anyone comes back to it.
            connection.close()
            _ = try? await connection.waitForClose(timeout: .seconds(5))
            return welcome
        }
    }

    // MARK: Numbers

    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }
    static func millis(since start: UInt64) -> Double { Double(now() - start) / 1e6 }
    static func seconds(since start: UInt64) -> Double { Double(now() - start) / 1e9 }

    /// The value at fraction `p` of an ascending array (0 when empty).
    static func percentile(_ sorted: [Double], _ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
    }
}

/// The hovers both stall scenarios (join-stall, http-stall) put on the hot board.
struct HoverLoad {
    /// Hovers per second from the sender.
    var rate: Int
    /// Length of each measured phase, in seconds.
    var seconds = 5.0
    /// Clients on the hot board that receive the hovers.
    var watchers: Int

    /// The hovers of a measured phase.
    var hoversPerPhase: Int { max(1, Int(Double(rate) * seconds)) }
    /// The hovers of the warm-up phase: half a second's.
    var warmUp: Int { max(1, rate / 2) }

    /// The line that says it.
    var summary: String {
        String(
            format: "hot board: 1 sender holding a tile, %d hovers/s for %.1f s per phase, %d watchers", rate,
            seconds, watchers)
    }

    /// Prints the line that says it, then the table of phases: `header`, phase A (`reference`:
    /// hovers only) and the phases that add their load to it.
    func printPhases(_ header: String, reference: String, _ phases: [String]) {
        print(summary)
        print("")
        print(header)
        print(reference)
        for phase in phases { print(phase) }
    }

    /// `--rate` and `--seconds`, and `--watchers` when the scenario lets it be set.
    static func options<Target>(_ load: WritableKeyPath<Target, HoverLoad>, watchers: Bool) -> [BenchOption<Target>] {
        [
            .int("--rate", load.appending(path: \.rate), 1...20_000),
            .seconds("--seconds", load.appending(path: \.seconds), most: 120),
        ]
            + (watchers ? [.int("--watchers", load.appending(path: \.watchers), 1...100)] : [])
    }
}
