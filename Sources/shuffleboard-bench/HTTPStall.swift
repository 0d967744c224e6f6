import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench http-stall`: what the largest HTTP answers cost the service thread, and
/// so the hovers of every board.
///
/// Two boards are stored before the server starts: `snap`, whose snapshot is about 1.2 MB
/// (items with long labels of `<`, each written `\u003c`), and `oplog`, whose 10,000 ops have
/// 128-character op ids of `<` (its whole op log is about 8.5 MB of JSON). A hot board runs
/// hovers at a fixed rate as in `join-stall`; phase A is hovers only, phase B adds `clients` HTTP
/// clients that fetch `GET /api/boards/snap` on keep-alive connections as fast as they can, phase
/// C the same with `GET /api/boards/oplog/ops?limit=10000`, phase D `streams` clients that open an
/// event stream on `snap` (`GET /api/boards/snap/events`), read its opening `event: reset` (the
/// 1.2 MB board) and close it, in loops (issue 29, finding 2). Each phase prints the hovers'
/// latency, the answers the clients read whole, and the service thread's CPU time per answer
/// (from /proc/self/task: the server runs in this process, its thread named `shuffleboard-service`).
///
/// Only the product API is used (`Server`, `ServerConfig`, `SQLiteStore`, `BoardClient`), so the
/// same file measures the server before and after its HTTP path changed.
struct HTTPStall {
    static let usage =
        "usage: shuffleboard-bench http-stall [--clients N] [--streams N] [--rate HOVERS_PER_S] [--seconds S]"

    /// HTTP clients in phases B and C.
    var clients = 48
    /// Event-stream open/close loops in phase D.
    var streams = 16
    /// The hovers on the hot board.
    var load = HoverLoad(rate: 500, watchers: 2)

    /// The options after `http-stall`.
    static var options: [BenchOption<Self>] {
        [.int("--clients", \.clients, 1...1000), .int("--streams", \.streams, 1...1000)]
            + HoverLoad.options(\.load, watchers: false)
    }

    func run() async throws {
        try await withScratchStore("http") { store in
            try prepare(store)

            let (server, port) = try startServer(store: store) {
                $0.httpTimeout = .seconds(60)
                $0.hub.maxStreamsPerAddress = 0  // The loops come from one address.
            }
            defer { server.stop() }
            let senderLoop = try ClientLoop()
            defer { senderLoop.shutdown() }
            let watcherLoop = try ClientLoop()
            defer { watcherLoop.shutdown() }
            let hot = try await JoinStall.HotBoard.join(
                port: port, watchers: load.watchers, senderLoop: senderLoop, watcherLoop: watcherLoop)
            defer { hot.close() }

            let count = load.hoversPerPhase
            let sizes = (
                snapshot: try Fetcher.fetchOnce(port: port, path: "/api/boards/snap"),
                page: try Fetcher.fetchOnce(port: port, path: "/api/boards/oplog/ops?limit=10000")
            )
            _ = try await phase(hot, hovers: load.warmUp, port: port, path: nil)
            let reference = try await phase(hot, hovers: count, port: port, path: nil)
            let snapshots = try await phase(hot, hovers: count, port: port, path: "/api/boards/snap")
            let pages = try await phase(hot, hovers: count, port: port, path: "/api/boards/oplog/ops?limit=10000")
            let streamed = try await phase(
                hot, hovers: count, port: port, path: "/api/boards/snap/events", clients: streams)

            print("http stall: hover latency on a hot board while HTTP clients fetch large answers (sqlite store)")
            print(
                "answers: GET /api/boards/snap \(sizes.snapshot) bytes, GET /api/boards/oplog/ops?limit=10000 "
                    + "\(sizes.page) bytes; \(clients) keep-alive clients in B and C")
            load.printPhases(
                "phase                           hovers   p50 ms   p99 ms   max ms   answers   answers/s   MB/s   service ms/answer",
                reference: reference.line("A: hovers only (reference)"),
                [
                    snapshots.line("B: + \(clients) snapshot loops"), pages.line("C: + \(clients) ops-page loops"),
                    streamed.line("D: + \(streams) stream open/close"),
                ])
        }
    }

    // MARK: Boards

    private func prepare(_ store: SQLiteStore) throws {
        let label = String(repeating: "<", count: 190)
        let items = (0..<1000).map { BoardDefinition.ItemSpec("\(label)\($0)", "blue") }
        let definition = BoardDefinition(
            id: BoardID("snap")!, title: "snap", columns: 20,
            zones: [BoardDefinition.ZoneSpec(Zone(id: ZoneID("grid")!, items: []), items)])
        try store.write([.create(definition.board(id: BoardID("snap")!))])
        let oplog = BoardID("oplog")!
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let ops = (0..<10_000).map { k in
            CommittedOp(
                seq: k + 1, opID: OpID(String(repeating: "<", count: 122) + String(format: "%06d", k))!,
                by: UserID(number: 1), op: .toggle(item: ItemID("t1")!, on: k % 2 == 0),
                time: UnixTime(milliseconds: wall))
        }
        try store.write([.create(Board.defaultTemplate(id: oplog)), .append(oplog, ops)])
    }

    // MARK: Phases

    struct PhaseResult {
        var latencies: [Double]
        var answers: Int
        var bytes: Int
        var seconds: Double
        var serviceCPU: Double

        func line(_ name: String) -> String {
            let sorted = latencies.sorted()
            let perAnswer =
                answers > 0 ? String(format: "%17.2f", serviceCPU * 1000 / Double(answers)) : "                -"
            return name.padding(toLength: 30, withPad: " ", startingAt: 0)
                + String(
                    format: "   %6d   %6.2f   %6.2f   %6.1f   %7d   %9.1f   %4.0f   ", sorted.count,
                    JoinStall.percentile(sorted, 0.5), JoinStall.percentile(sorted, 0.99), sorted.last ?? 0, answers,
                    Double(answers) / seconds, Double(bytes) / seconds / 1e6) + perAnswer
        }
    }

    /// Sends the hovers of one phase while, with a `path`, the HTTP clients fetch it in loops.
    private func phase(
        _ hot: JoinStall.HotBoard, hovers: Int, port: Int, path: String?, clients: Int? = nil
    ) async throws -> PhaseResult {
        let fetchers =
            path.map { path in (0..<(clients ?? self.clients)).map { _ in Fetcher(port: port, path: path) } } ?? []
        let cpuBefore = Self.serviceThreadCPU()
        let began = JoinStall.now()
        for fetcher in fetchers { fetcher.start() }
        let (run, _) = try await JoinStall.hovers(hot, count: hovers, rate: load.rate) { _, _ in }
        for fetcher in fetchers { fetcher.stop() }
        let seconds = JoinStall.seconds(since: began)
        let cpu = Self.serviceThreadCPU() - cpuBefore
        return PhaseResult(
            latencies: run.latencies, answers: fetchers.reduce(0) { $0 + $1.answers },
            bytes: fetchers.reduce(0) { $0 + $1.bytes }, seconds: seconds, serviceCPU: cpu)
    }

    /// The CPU time (user and system, seconds) of this process's thread named `shuffleboard-service`.
    static func serviceThreadCPU() -> Double {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        for task in tasks {
            guard let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8),
                comm.hasPrefix("shuffleboard-se"),
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            // After the name: state is field 3; utime and stime are fields 14 and 15.
            guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { continue }
            return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        }
        return 0
    }
}

/// One HTTP client on its own thread: fetches `path` on a keep-alive connection, reading each
/// answer whole, until stopped (a new connection when the server closes one).
final class Fetcher: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var stopping = false
    private var counted = (answers: 0, bytes: 0)
    private let done = DispatchSemaphore(value: 0)
    let port: Int
    let path: String

    init(port: Int, path: String) {
        self.port = port
        self.path = path
    }

    var answers: Int { lock.withLock { counted.answers } }
    var bytes: Int { lock.withLock { counted.bytes } }

    func start() {
        Thread { [self] in
            defer { done.signal() }
            var fd: Int32 = -1
            for _ in 0..<1_000_000 {
                if lock.withLock({ stopping }) { break }
                if fd < 0 { fd = Self.connect(port) }
                if path.hasSuffix("/events") {
                    // An event stream: open, read its opening reset, close; a new connection each time.
                    let size = fd >= 0 ? Self.readReset(fd, path) : nil
                    if fd >= 0 { close(fd) }
                    fd = -1
                    guard let size else { continue }
                    lock.withLock {
                        counted.answers += 1
                        counted.bytes += size
                    }
                    continue
                }
                guard fd >= 0, let size = Self.fetch(fd, path) else {
                    if fd >= 0 { close(fd) }
                    fd = -1
                    continue
                }
                lock.withLock {
                    counted.answers += 1
                    counted.bytes += size
                }
            }
            if fd >= 0 { close(fd) }
        }.start()
    }

    func stop() {
        lock.withLock { stopping = true }
        done.wait()
    }

    /// One answer's body size, fetched on a new connection.
    static func fetchOnce(port: Int, path: String) throws -> Int {
        let fd = connect(port)
        defer { if fd >= 0 { close(fd) } }
        guard fd >= 0, let size = fetch(fd, path) else { throw BenchError(description: "GET \(path) failed") }
        return size
    }

    static func connect(_ port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        guard Scenarios.connectLoopback(fd, port: port) else {
            close(fd)
            return -1
        }
        return fd
    }

    /// Sends `GET path` on the connection; false when it could not send it all.
    static func sendGet(_ fd: Int32, _ path: String) -> Bool {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: bench\r\n\r\n".utf8)
        return request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count
    }

    /// Sends one GET and reads its answer whole; the body's size, or nil when the connection
    /// failed or closed (or the status is not 200).
    static func fetch(_ fd: Int32, _ path: String) -> Int? {
        guard sendGet(fd, path) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var head: [UInt8] = []
        var bodyStart = 0
        // Headers (at most 64 KiB), then Content-Length bytes of body.
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            head += buffer[0..<n]
            if let end = head.indices.dropLast(3).first(where: {
                head[$0] == 13 && head[$0 + 1] == 10 && head[$0 + 2] == 13 && head[$0 + 3] == 10
            }) {
                bodyStart = end + 4
                break
            }
            if head.count > 65536 { return nil }
        }
        let text = String(decoding: head[0..<bodyStart], as: UTF8.self).lowercased()
        guard text.hasPrefix("http/1.1 200"),
            let line = text.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces))
        else { return nil }
        var left = length - (head.count - bodyStart)
        while left > 0 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, min($0.count, left), 0) }
            guard n > 0 else { return nil }
            left -= n
        }
        return length
    }

    /// Opens the event stream `path` and reads up to the end of its `event: reset`; the bytes
    /// read, or nil when the connection failed or closed first.
    static func readReset(_ fd: Int32, _ path: String) -> Int? {
        guard sendGet(fd, path) else { return nil }
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        var total = 0
        var seen: [UInt8] = []  // Up to the reset's start, then only the last 2 bytes.
        let marker = Array("event: reset\n".utf8)
        var inReset = false
        for _ in 0..<100_000 {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { return nil }
            total += n
            seen += buffer[0..<n]
            if !inReset {
                guard
                    let at = seen.indices.dropLast(marker.count - 1).first(where: { seen[$0...].starts(with: marker) })
                else {
                    if seen.count > 65536 { return nil }
                    continue
                }
                inReset = true
                seen = Array(seen[(at + marker.count)...])
            }
            // The event ends at its blank line; JSON holds no raw line break.
            if seen.indices.dropLast().contains(where: { seen[$0] == 10 && seen[$0 + 1] == 10 }) { return total }
            seen = Array(seen.suffix(1))
        }
        return nil
    }
}
