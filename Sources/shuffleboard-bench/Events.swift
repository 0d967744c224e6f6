import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

/// `shuffleboard-bench events`: the event stream and REST ops (issue 20), each beside its
/// WebSocket reference measured in the same run, on the in-memory store.
///
/// 1. Fan-out: `subscribers` SSE readers (`GET /api/boards/ev/events`, raw sockets read by one
///    thread with `poll`) on one board while 4 WebSocket clients commit `ops` toggles, one in
///    flight each; then the same with `subscribers` WebSocket watchers instead of the readers.
///    Per op, the time from its committer's send to its arrival at the last subscriber; p50 and
///    p99 of those, and whether every op reached every subscriber.
/// 2. Throughput: ops/s from 4 REST clients (`POST /api/boards/ev2/ops`, one keep-alive
///    connection each, one op in flight), beside 4 WebSocket clients with one op in flight each.
struct Events {
    static let usage =
        "usage: shuffleboard-bench events [--subscribers N] [--ops N] [--rate OPS_PER_S] [--rest-ops N]"

    var subscribers = 1000
    var ops = 400
    /// Ops per second from the 4 committers together: the same offered load for both kinds of
    /// subscriber (unpaced, the committers would go as fast as their own broadcasts come back,
    /// which on WebSocket is after the fan-out and on SSE is not).
    var rate = 100
    var restOps = 4000

    static var options: [BenchOption<Self>] {
        [
            .count("--subscribers", \.subscribers, most: .max), .count("--ops", \.ops, most: .max),
            .count("--rate", \.rate, most: .max), .count("--rest-ops", \.restOps, most: .max),
        ]
    }

    func run() async throws {
        print(
            "event stream fan-out: \(subscribers) subscribers on one board, 4 committers, \(ops) ops at \(rate)/s "
                + "(memory store)")
        print("subscribers      p50 ms (send → last)   p99 ms (send → last)   every op to every subscriber")
        let sse = try await fanOut(sse: true)
        print(
            String(
                format: "%-16@ %22.2f   %20.2f   %@", "SSE" as NSString, sse.p50, sse.p99, sse.complete ? "yes" : "NO"))
        let ws = try await fanOut(sse: false)
        print(
            String(
                format: "%-16@ %22.2f   %20.2f   %@", "WebSocket" as NSString, ws.p50, ws.p99,
                ws.complete ? "yes" : "NO"))
        print("")
        print("committed ops/s on one board, 4 clients, one op in flight each, \(restOps) ops (memory store)")
        let rest = try restThroughput()
        let socket = try await measure(
            store: MemoryStore(), scenario: Scenario(clients: 4, window: 1), totalOps: restOps, board: "ev3")
        print(String(format: "REST (keep-alive)   %10.0f ops/s", rest))
        print(
            String(
                format: "WebSocket           %10.0f ops/s   (REST/WebSocket %.2f)", socket.opsPerSecond,
                rest / socket.opsPerSecond))
    }

    /// Sends of each op (by seq order of sending is not known, so by op id), shared by committers.
    final class Sends: @unchecked Sendable {  // Guarded by `lock`.
        let lock = NSLock()
        var at: [String: UInt64] = [:]
        func note(_ op: String) {
            lock.withLock { at[op] = DispatchTime.now().uptimeNanoseconds }
        }
        func snapshot() -> [String: UInt64] { lock.withLock { at } }
    }

    struct FanOut {
        var p50: Double
        var p99: Double
        var complete: Bool
    }

    private func fanOut(sse: Bool) async throws -> FanOut {
        let (server, port) = try startServer(store: MemoryStore()) { config in
            config.hub.maxStreamsPerAddress = 0
            config.hub.maxStreams = 0
        }
        defer { server.stop() }
        let loop = try ClientLoop()
        defer { loop.shutdown() }
        // The board exists once a committer is on it.
        let committers = try await (0..<4).asyncMap { i -> ClientConnection in
            let c = try await loop.connect(port: port)
            c.send(#"{"type":"hello","board":"ev","name":"c\#(i)"}"#)
            while try await !c.receive(timeout: .seconds(30)).contains("welcome") {}
            return c
        }
        // Arrivals at the subscribers: per op id, how many and when the last.
        var arrivals: [String: (count: Int, last: UInt64)] = [:]
        let sends = Sends()
        let committing: Task<Void, Error>
        if sse {
            let readers = try SSEReaders(port: port, count: subscribers)
            committing = commit(committers, sends: sends)
            arrivals = try readers.read(ops: 4 * (ops / 4))
            readers.close()
        } else {
            let watchers = try await (0..<subscribers).asyncMap { i -> ClientConnection in
                let c = try await loop.connect(port: port)
                c.send(#"{"type":"hello","board":"ev","name":"w\#(i)"}"#)
                while try await !c.receive(timeout: .seconds(60)).contains("welcome") {}
                return c
            }
            committing = commit(committers, sends: sends)
            let perWatcher = try await withThrowingTaskGroup(of: [(String, UInt64)].self) { group in
                for c in watchers {
                    group.addTask {
                        var got: [(String, UInt64)] = []
                        while got.count < 4 * (ops / 4) {
                            let text = try await c.receive(timeout: .seconds(60))
                            let now = DispatchTime.now().uptimeNanoseconds
                            let json = try JSON.parse(text)
                            for m in json.arrayValue ?? [json] where m["type"]?.stringValue == "toggle" {
                                if let op = m["op"]?.stringValue { got.append((op, now)) }
                            }
                        }
                        return got
                    }
                }
                var all: [[(String, UInt64)]] = []
                for try await g in group { all.append(g) }
                return all
            }
            for got in perWatcher {
                for (op, t) in got {
                    let old = arrivals[op] ?? (0, 0)
                    arrivals[op] = (old.count + 1, max(old.last, t))
                }
            }
        }
        try await committing.value
        var latencies: [Double] = []
        var complete = arrivals.count == 4 * (ops / 4)
        let sent = sends.snapshot()
        for (op, arrival) in arrivals {
            if arrival.count != subscribers { complete = false }
            if let at = sent[op] { latencies.append(Double(arrival.last - at) / 1e6) }
        }
        latencies.sort()
        guard !latencies.isEmpty else { throw BenchError(description: "no op arrived") }
        return FanOut(
            p50: latencies[latencies.count / 2], p99: latencies[min(latencies.count - 1, latencies.count * 99 / 100)],
            complete: complete)
    }

    /// Each committer toggles an item of its own, one op in flight, `ops / 4` times.
    private func commit(_ committers: [ClientConnection], sends: Sends) -> Task<Void, Error> {
        let perClient = ops / 4
        let interval = UInt64(4_000_000_000 / rate)  // Between one committer's sends, in ns.
        let start = DispatchTime.now().uptimeNanoseconds
        return Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (i, c) in committers.enumerated() {
                    group.addTask {
                        var seq = 0
                        for n in 0..<perClient {
                            // Paced: committer i sends its nth op at start + (n + i/4) intervals.
                            let due = start + UInt64(n) * interval + UInt64(i) * interval / 4
                            let now = DispatchTime.now().uptimeNanoseconds
                            if due > now { try await Task.sleep(nanoseconds: due - now) }
                            let op = "c\(i)-\(n)"
                            sends.note(op)
                            c.send(
                                #"{"type":"toggle","op":"\#(op)","base":\#(seq),"item":"t\#(i + 1)","on":\#(n % 2 == 0)}"#
                            )
                            while true {
                                let text = try await c.receive(timeout: .seconds(60))
                                let json = try JSON.parse(text)
                                var mine = false
                                for m in json.arrayValue ?? [json] {
                                    if let s = m["seq"]?.intValue { seq = max(seq, s) }
                                    if m["op"]?.stringValue == op { mine = true }
                                }
                                if mine { break }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// 4 threads, each one keep-alive connection sending toggles one at a time; ops/s overall.
    private func restThroughput() throws -> Double {
        let (server, port) = try startServer(store: MemoryStore())
        defer { server.stop() }
        let create = try RawHTTP(port: port)
        let body = #"{"id":"ev2","template":"colors"}"#
        guard try create.request("POST", "/api/boards", body: body).status == 201 else {
            throw BenchError(description: "could not make board ev2")
        }
        create.close()
        let perClient = restOps / 4
        let start = DispatchTime.now().uptimeNanoseconds
        let failures = Sends()
        var threads: [Thread] = []
        let done = DispatchGroup()
        for i in 0..<4 {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                do {
                    let http = try RawHTTP(port: port)
                    defer { http.close() }
                    var base = 0  // Its own item changes only by its own ops: the last answer's seq will do.
                    for n in 0..<perClient {
                        let op =
                            #"{"type":"toggle","op":"r\#(i)-\#(n)","base":\#(base),"item":"t\#(i + 1)","on":\#(n % 2 == 0)}"#
                        let answer = try http.request("POST", "/api/boards/ev2/ops", body: op)
                        guard answer.status == 200 else {
                            failures.note("\(answer.status) \(answer.body)")
                            return
                        }
                        base = (try? JSON.parse(answer.body))?["seq"]?.intValue ?? base
                    }
                } catch {
                    failures.note("\(error)")
                }
            }
            threads.append(thread)
            thread.start()
        }
        done.wait()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        if let failure = failures.snapshot().keys.first {
            throw BenchError(description: "a REST op failed: \(failure)")
        }
        return Double(4 * perClient) / seconds
    }
}

extension Range where Bound == Int {
    func asyncMap<T>(_ transform: (Int) async throws -> T) async rethrows -> [T] {
        var out: [T] = []
        for i in self { out.append(try await transform(i)) }
        return out
    }
}

/// A blocking HTTP/1.1 client on one keep-alive connection (answers with `content-length`).
final class RawHTTP {
    let fd: Int32
    private var buffer: [UInt8] = []

    init(port: Int) throws {
        fd = try connectLoopback(port: port)
    }

    func request(_ method: String, _ path: String, body: String) throws -> (status: Int, body: String) {
        let bytes = Array(body.utf8)
        let head =
            "\(method) \(path) HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n"
            + "content-length: \(bytes.count)\r\n\r\n"
        try writeAll(fd, Array(head.utf8) + bytes)
        while true {
            if let end = find(buffer, [13, 10, 13, 10]) {
                let header = String(decoding: buffer[..<end], as: UTF8.self)
                let status = Int(header.split(separator: " ").dropFirst().first ?? "") ?? 0
                var length = 0
                for line in header.split(separator: "\r\n") where line.lowercased().hasPrefix("content-length:") {
                    length = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
                if buffer.count >= end + 4 + length {
                    let answer = String(decoding: buffer[(end + 4)..<(end + 4 + length)], as: UTF8.self)
                    buffer.removeFirst(end + 4 + length)
                    return (status, answer)
                }
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = read(fd, &chunk, chunk.count)
            guard n > 0 else { throw BenchError(description: "the server closed the connection") }
            buffer += chunk[..<n]
        }
    }

    func close() { _ = Glibc.close(fd) }
}

/// `count` event-stream readers on raw sockets, read by the calling thread with `poll`.
final class SSEReaders {
    private var fds: [Int32] = []
    private var pending: [[UInt8]]

    init(port: Int, count: Int) throws {
        pending = Array(repeating: [], count: count)
        for _ in 0..<count {
            let fd = try connectLoopback(port: port)
            try writeAll(fd, Array("GET /api/boards/ev/events HTTP/1.1\r\nhost: 127.0.0.1\r\n\r\n".utf8))
            fds.append(fd)
        }
        // Every stream open (its first bytes, the headers and `retry`, in) before ops are sent.
        var open = Set<Int>()
        let deadline = DispatchTime.now().uptimeNanoseconds + 60_000_000_000
        while open.count < count {
            guard DispatchTime.now().uptimeNanoseconds < deadline else {
                throw BenchError(description: "only \(open.count) of \(count) event streams opened")
            }
            for i in try readable(timeout: 1000) {
                try fill(i)
                if find(pending[i], Array("retry: 1000\n\n".utf8)) != nil { open.insert(i) }
            }
        }
        for i in 0..<count { pending[i] = [] }
    }

    /// Reads until every reader has `ops` op events; per op id, how many readers got it and when
    /// the last did.
    private static let opEvent = Array("event: op\n".utf8)
    private static let opKey = Array(#""op":""#.utf8)

    func read(ops: Int) throws -> [String: (count: Int, last: UInt64)] {
        var arrivals: [String: (count: Int, last: UInt64)] = [:]
        var got = Array(repeating: 0, count: fds.count)
        var finished = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + 300_000_000_000
        while finished < fds.count {
            guard DispatchTime.now().uptimeNanoseconds < deadline else {
                throw BenchError(description: "\(finished) of \(fds.count) readers got every op in time")
            }
            for i in try readable(timeout: 1000) {
                try fill(i)
                let now = DispatchTime.now().uptimeNanoseconds
                // Byte by byte, no JSON parse: the reader must cost less than the server's fan-out.
                let buffer = pending[i]
                var start = 0
                while let end = find(buffer, [10, 10], from: start) {
                    defer { start = end + 2 }
                    guard find(buffer, Self.opEvent, from: start).map({ $0 < end }) ?? false,
                        let key = find(buffer, Self.opKey, from: start), key < end
                    else { continue }
                    var close = key + Self.opKey.count
                    while close < end && buffer[close] != 0x22 { close += 1 }
                    let op = String(decoding: buffer[(key + Self.opKey.count)..<close], as: UTF8.self)
                    let old = arrivals[op] ?? (0, 0)
                    arrivals[op] = (old.count + 1, max(old.last, now))
                    got[i] += 1
                    if got[i] == ops { finished += 1 }
                }
                if start > 0 { pending[i].removeFirst(start) }
            }
        }
        return arrivals
    }

    private func readable(timeout: Int32) throws -> [Int] {
        var polls = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let n = poll(&polls, nfds_t(polls.count), timeout)
        guard n >= 0 else { throw BenchError(description: "poll failed: errno \(errno)") }
        return polls.indices.filter { polls[$0].revents != 0 }
    }

    private var chunk = [UInt8](repeating: 0, count: 65536)

    private func fill(_ i: Int) throws {
        let n = Glibc.read(fds[i], &chunk, chunk.count)
        guard n > 0 else { throw BenchError(description: "an event stream ended") }
        pending[i] += chunk[..<n]
    }

    func close() {
        for fd in fds { _ = Glibc.close(fd) }
    }
}

func connectLoopback(port: Int) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw BenchError(description: "socket: errno \(errno)") }
    guard Scenarios.connectLoopback(fd, port: port) else {
        _ = close(fd)
        throw BenchError(description: "connect: errno \(errno)")
    }
    var one: Int32 = 1
    setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    return fd
}

func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var sent = 0
    while sent < bytes.count {
        let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { throw BenchError(description: "write: errno \(errno)") }
        sent += n
    }
}

func find(_ haystack: [UInt8], _ needle: [UInt8], from: Int = 0) -> Int? {
    guard haystack.count - from >= needle.count else { return nil }
    outer: for i in from...(haystack.count - needle.count) where haystack[i] == needle[0] {
        for j in 1..<needle.count where haystack[i + j] != needle[j] { continue outer }
        return i
    }
    return nil
}
