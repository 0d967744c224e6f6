import Foundation

/// `full-node`: the busy boards of a full node against the same busy boards alone, on each event
/// loop (`--event-loop poll`, then `libev`), alternately in the same run, `rounds` times: the
/// machine is shared, so only a pair measured back to back means anything.
///
/// For each loop a fresh server: `busy` boards of 10 clients, every one of them hovering at 30/s
/// (`--senders 10 --rate 30`, one load generator per board, all at once), measured first alone,
/// then again while `idle` more connections sit joined to boards of 100 (from `sources` source
/// addresses in 127.0.0.0/8, 127.0.0.10 and up, so that no address runs out of ports). One line
/// per measurement (`full-node-LOOP-alone` / `-full`: the busy boards' hover p50 (median of the
/// boards) and p99 (the worst board), the server's CPU), then a summary line per loop and round
/// with `p99_full_over_alone` and what the idle connections cost: how fast they joined
/// (`joins_per_s`, from the first connect until `/metrics` counts them all, and the server's CPU
/// meanwhile) and the server's RSS growth per idle connection.
extension Scenarios {
    func fullNode(idle: Int, busy: Int, seconds: Double, rounds: Int, sources: Int) throws {
        for round in 1...rounds {
            for loop in ["poll", "libev"] {
                try withServer(extra: ["--event-loop", loop]) { port, pid in
                    let alone = try busyBoards(
                        "full-node-\(loop)-alone", port: port, pid: pid, busy: busy, seconds: seconds)
                    // The idle connections' cost: RSS and CPU from before they come until they
                    // are all joined (the busy boards' load generators have left by then).
                    let rssBefore = Self.rssKiB(pid: pid)
                    let cpuBefore = Self.cpuSeconds(pid: pid)
                    let joinStart = Date()
                    let holders = try holdIdle(idle, port: port, sources: sources)
                    defer {
                        for holder in holders {
                            kill(holder.processIdentifier, SIGKILL)
                            holder.waitUntilExit()
                        }
                    }
                    try Self.waitForUsers(idle, port: port, timeout: 300)
                    let joinSeconds = Date().timeIntervalSince(joinStart)
                    let joinCPU = Self.cpuSeconds(pid: pid) - cpuBefore
                    // A sample, not a synchronisation: what the joins queued is written within it.
                    usleep(1_000_000)
                    let rssAfter = Self.rssKiB(pid: pid)
                    let full = try busyBoards(
                        "full-node-\(loop)-full", port: port, pid: pid, busy: busy, seconds: seconds)
                    emit(
                        String(
                            format: "{\"scenario\":\"full-node\",\"round\":%d,\"event_loop\":\"%@\",\"idle\":%d,"
                                + "\"busy_boards\":%d,\"alone_p50_ms\":%.3f,\"alone_p99_ms\":%.3f,\"full_p50_ms\":%.3f,"
                                + "\"full_p99_ms\":%.3f,\"p99_full_over_alone\":%.2f,\"full_server_cpu_percent\":%.1f,"
                                + "\"join_seconds\":%.2f,\"joins_per_s\":%.0f,\"join_server_cpu_percent\":%.1f,"
                                + "\"server_rss_kib_before_idle\":%d,\"server_rss_kib_full\":%d,"
                                + "\"rss_bytes_per_idle_connection\":%.0f}",
                            round, loop, idle, busy, alone.p50, alone.p99, full.p50, full.p99,
                            alone.p99 > 0 ? full.p99 / alone.p99 : 0, full.cpu, joinSeconds,
                            Double(idle) / joinSeconds, 100 * joinCPU / joinSeconds, rssBefore, rssAfter,
                            Double(rssAfter - rssBefore) * 1024 / Double(idle)))
                }
            }
        }
    }

    /// `busy` load generators at once, one board each; the median board's p50, the worst p99,
    /// and the highest server CPU any of them saw.
    private func busyBoards(_ label: String, port: Int, pid: Int, busy: Int, seconds: Double) throws -> (
        p50: Double, p99: Double, cpu: Double
    ) {
        var running: [(Process, Pipe)] = []
        for b in 0..<busy {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: loadgen)
            process.arguments = [
                "--label", label, "--mode", "hover", "--port", "\(port)", "--server-pid", "\(pid)", "--clients", "10",
                "--senders", "10", "--rate", "30", "--seconds", "\(seconds)", "--timeout", "120", "--board",
                "\(label)-busy\(b)-", "--source", "127.0.0.2",
            ]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            running.append((process, pipe))
        }
        var p50s: [Double] = []
        var p99 = 0.0
        var cpu = 0.0
        for (process, pipe) in running {
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0,
                let object = try? JSONSerialization.jsonObject(with: output) as? [String: Any],
                let latency = object["latency_ms"] as? [String: Double]
            else { throw BenchError(description: "loadgen for \(label) failed") }
            emit(String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
            p50s.append(latency["p50"] ?? 0)
            p99 = max(p99, latency["p99"] ?? 0)
            cpu = max(cpu, object["server_cpu_percent"] as? Double ?? 0)
        }
        p50s.sort()
        return (p50s[p50s.count / 2], p99, cpu)
    }

    /// `count` idle connections on boards of 100, split over `sources` load generators that hold
    /// them (each from its own source address) until they are killed.
    private func holdIdle(_ count: Int, port: Int, sources: Int) throws -> [Process] {
        var holders: [Process] = []
        for s in 0..<sources {
            let n = count / sources + (s < count % sources ? 1 : 0)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: loadgen)
            process.arguments = [
                "--mode", "idle", "--port", "\(port)", "--clients", "\(n)", "--boards", "\(max(1, n / 100))", "--board",
                "idle\(s)-", "--hold", "600", "--timeout", "300", "--connecting", "512", "--source",
                "127.0.0.\(10 + s)",
            ]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            holders.append(process)
        }
        return holders
    }

    /// The process's resident set (VmRSS in /proc/PID/status), in KiB; 0 when unreadable.
    static func rssKiB(pid: Int) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// The process's user and system CPU seconds so far (/proc/PID/stat); 0 when unreadable.
    static func cpuSeconds(pid: Int) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // After the command's ")": state is field 3, utime 14 and stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
