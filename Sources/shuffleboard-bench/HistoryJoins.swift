import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation
import Glibc
import Synchronization

/// `shuffleboard-bench history-joins` (issue 29, finding 3): how long a join to a stored board
/// (not in memory) waits for its welcome while many clients loop on `GET /api/boards/{id}?at=SEQ`
/// of a large board, next to the same joins with no loops (the reference, in the same run).
///
/// The server runs with its defaults for history reads (`--max-history-reads`, and per address),
/// so the loops get 429 and 503 answers past them (each closing its connection); the loops come
/// from several loopback addresses (127.0.0.2, 127.0.0.3, …), each on a keep-alive connection,
/// sending the next request as soon as the last answer is read, and connecting again at once
/// when the connection closes (ignoring `retry-after`: the attack). The joiner connects, says hello to the next cold
/// board, waits for its welcome and closes, one after another.
struct HistoryJoins {
    static let usage =
        "usage: shuffleboard-bench history-joins [--loops N] [--addresses N] [--joins N] [--ops N] [--cards N]"
        + " [--no-limits]"

    /// `?at=` loops in all.
    var loops = 128
    /// Client addresses the loops come from.
    var addresses = 8
    /// Joins measured in each phase (from 127.0.0.1, within its `--connect-rate` burst).
    var joins = 20
    /// Ops on the history board.
    var ops = 10_000
    /// Cards on the history board (each with a long label: the board is about 2.4 KB per card).
    var cards = 1000
    /// Turns the history read limits off (`--max-history-reads 0`, and per address): what the
    /// reader's priority for joins does alone.
    var noLimits = false

    static var options: [BenchOption<Self>] {
        [
            .count("--loops", \.loops, most: 1024), .count("--addresses", \.addresses, most: 200),
            .count("--joins", \.joins, most: 10_000), .count("--ops", \.ops, most: .max),
            .count("--cards", \.cards, most: 1000), .flag("--no-limits", \.noLimits),
        ]
    }

    func run() async throws {
        try await withScratchStore("history-joins") { store in
            let history = BoardID("hist")!
            let boardBytes = try fillHistory(store, history)
            // Cold boards: small kanban boards with 1,000 ops each, joined in turn (each leaves memory
            // when its joiner closes, so every join reads the store).
            let cold = (0..<max(joins, 20)).map { BoardID("cold\($0)")! }
            for id in cold { try fillCold(store, id) }
            // The server's defaults for what this measures: the history read limits, and the caps
            // on connections per address, which bound a loop that connects again after each refusal
            // (startServer turns them off for its single-address scenarios).
            let (server, port) = try startServer(store: store) { config in
                let defaults = ServerConfig()
                config.hub.connectRate = defaults.hub.connectRate
                config.hub.maxPendingPerAddress = defaults.hub.maxPendingPerAddress
                config.hub.maxConnectionsPerAddress = defaults.hub.maxConnectionsPerAddress
                if noLimits {
                    config.hub.maxHistoryReads = 0
                    config.hub.maxHistoryReadsPerAddress = 0
                }
            }
            defer { server.stop() }
            let loop = try ClientLoop()
            defer { loop.shutdown() }

            let baseline = try await joinAll(cold, loop: loop, port: port)
            let atBefore = try timedAt(port: port, seq: ops / 2)
            let load = AtLoops(port: port, loops: loops, addresses: addresses, maxSeq: ops)
            load.start()
            // Let every loop get going before measuring.
            try await Task.sleep(for: .milliseconds(500))
            let loaded = try await joinAll(cold, loop: loop, port: port)
            let answers = load.stop()

            print(
                "joins to stored boards (kanban, 1,000 ops; not in memory), \(joins) per phase; the ?at= board: "
                    + "\(cards) cards, \(boardBytes / 1000) KB, \(ops) ops; one ?at= alone: "
                    + String(format: "%.1f ms", atBefore))
            print("phase                                          p50 ms   p99 ms   max ms")
            report("no loops (reference)", baseline)
            report("\(loops) ?at= loops from \(addresses) addresses" + (noLimits ? ", no limits" : ""), loaded)
            let seconds = answers.seconds
            print(
                String(
                    format:
                        "?at= answers during the loaded phase (%.1f s): %d 200 (%.0f/s), %d 429, %d 503, %d other;"
                        + " %d connections ended with no answer",
                    seconds, answers.ok, Double(answers.ok) / max(seconds, 0.001), answers.limited, answers.busy,
                    answers.other, answers.closed))
        }
    }

    // MARK: The boards

    /// A board of `cards` cards with long labels, and `ops` label edits of them; its size as JSON.
    private func fillHistory(_ store: SQLiteStore, _ id: BoardID) throws -> Int {
        let text = String(repeating: "<", count: 200)
        let items = (1...cards).map { Item(id: ItemID("c\($0)")!, label: text, color: "#ffe08a", detail: text) }
        var board = Board(
            id: id, title: "History", columns: 4, zones: [Zone(id: ZoneID("todo")!, items: items.map(\.id))],
            items: items)
        try store.write([.create(board)])
        try writeOps(ops, to: store, board: &board, timeStep: 1) { seq in
            .edit(item: ItemID("c\(seq % cards + 1)")!, changes: ItemEdit(label: "edit \(seq)"))
        }
        return board.encoded().count
    }

    private func fillCold(_ store: SQLiteStore, _ id: BoardID) throws {
        let board = Template.kanban.board(id: id)
        try store.write([.create(board)])
        let items = board.items.map(\.id)
        let ops = (1...1000).map { seq in
            CommittedOp(
                seq: seq, opID: OpID("c\(seq)")!, by: UserID(number: 1),
                op: .toggle(item: items[seq % items.count], on: seq % 2 == 0), time: UnixTime(milliseconds: 0))
        }
        try store.write([.append(id, ops)])
    }

    // MARK: Joins

    private func joinAll(_ boards: [BoardID], loop: ClientLoop, port: Int) async throws -> [Double] {
        var welcomes: [Double] = []
        for board in boards.prefix(joins) {
            welcomes.append(try await JoinStall.Joiner.join(board, loop: loop, port: port))
        }
        return welcomes
    }

    private func timedAt(port: Int, seq: Int) throws -> Double {
        let start = JoinStall.now()
        _ = try Scenarios.httpGet("/api/boards/hist?at=\(seq)", port: port)
        return JoinStall.millis(since: start)
    }

    private func report(_ name: String, _ samples: [Double]) {
        let sorted = samples.sorted()
        print(
            name.padding(toLength: 44, withPad: " ", startingAt: 0)
                + String(
                    format: "%8.1f %8.1f %8.1f", JoinStall.percentile(sorted, 0.5), JoinStall.percentile(sorted, 0.99),
                    sorted.last ?? 0))
    }
}

/// The `?at=` loops: one thread and one keep-alive connection each, bound to its loopback source
/// address, sending the next request as soon as the last answer is read, until `stop`.
final class AtLoops: Sendable {
    struct Answers {
        var ok = 0
        var limited = 0
        var busy = 0
        var other = 0
        /// Connections that ended without an answer (closed at accept by a cap, or after a refusal).
        var closed = 0
        var seconds = 0.0
    }

    let port: Int
    let loops: Int
    let addresses: Int
    let maxSeq: Int
    private let stopping = Atomic<Bool>(false)
    private let counts = Mutex(Answers())
    private let done = DispatchSemaphore(value: 0)
    private let began = Mutex<UInt64>(0)

    init(port: Int, loops: Int, addresses: Int, maxSeq: Int) {
        self.port = port
        self.loops = loops
        self.addresses = addresses
        self.maxSeq = maxSeq
    }

    func start() {
        began.withLock { $0 = JoinStall.now() }
        for n in 0..<loops {
            let source = "127.0.0.\(2 + n % addresses)"
            Thread { [self] in
                runLoop(source: source, seed: UInt64(n))
                done.signal()
            }.start()
        }
    }

    /// Stops the loops and returns what they were answered.
    func stop() -> Answers {
        stopping.store(true, ordering: .relaxed)
        for _ in 0..<loops { done.wait() }
        var answers = counts.withLock { $0 }
        answers.seconds = JoinStall.seconds(since: began.withLock { $0 })
        return answers
    }

    private func runLoop(source: String, seed: UInt64) {
        var rng = SystemRandomNumberGenerator()
        // At most a million connections a loop, and only while the phase lasts.
        for _ in 0..<1_000_000 where !stopping.load(ordering: .relaxed) {
            guard let fd = Self.connect(from: source, port: port) else { return }
            defer { close(fd) }
            var buffer: [UInt8] = []
            while !stopping.load(ordering: .relaxed) {
                let seq = Int.random(in: 0...maxSeq, using: &rng)
                let request = "GET /api/boards/hist?at=\(seq) HTTP/1.1\r\nHost: bench\r\n\r\n"
                guard Self.sendAll(fd, Array(request.utf8)), let status = Self.readAnswer(fd, &buffer) else {
                    counts.withLock { $0.closed += 1 }
                    break
                }
                counts.withLock { answers in
                    switch status {
                    case 200: answers.ok += 1
                    case 429: answers.limited += 1
                    case 503: answers.busy += 1
                    default: answers.other += 1
                    }
                }
                // A refused request is sent again at once, not after its Retry-After: this is the attack.
            }
        }
    }

    private static func connect(from source: String, port: Int) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        inet_pton(AF_INET, source, &local.sin_addr)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, "127.0.0.1", &remote.sin_addr)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        let connected = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, connected == 0 else {
            close(fd)
            return nil
        }
        return fd
    }

    private static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Reads one answer (headers, then `content-length` bytes of body); its status, or nil when the
    /// connection ends or the answer cannot be read.
    private static func readAnswer(_ fd: Int32, _ buffer: inout [UInt8]) -> Int? {
        let end = Array("\r\n\r\n".utf8)
        var chunk = [UInt8](repeating: 0, count: 65536)
        func fill() -> Bool {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return false }
            buffer += chunk[0..<n]
            return true
        }
        var headerEnd: Int?
        while headerEnd == nil {
            if let range = buffer.firstRange(of: end) {
                headerEnd = range.upperBound
            } else if buffer.count > 65536 || !fill() {
                return nil
            }
        }
        let head = String(decoding: buffer[..<headerEnd!], as: UTF8.self).lowercased()
        let parts = head.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, let status = Int(parts[1]) else { return nil }
        var length = 0
        for line in head.split(separator: "\r\n") where line.hasPrefix("content-length:") {
            length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) ?? 0
        }
        while buffer.count < headerEnd! + length {
            guard fill() else { return nil }
        }
        buffer.removeFirst(headerEnd! + length)
        return status
    }
}
