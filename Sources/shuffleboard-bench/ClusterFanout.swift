import BoardCore
import Foundation

/// `cluster-fanout` (with `--postgres URL`): one board, its clients spread over three nodes that
/// forward over node links (`--node-links on`, the default), against the same clients all on one node, in one
/// run. For each: the owner's CPU (the load generator reads it from /proc), the owner's sent
/// frames per hover broadcast (its `shuffleboard_messages_sent_total{type="hover"}` over the
/// hovers sent), deliveries/s and the p99 from a sender's hand to every other client's screen,
/// all measured by one load generator on one clock.
extension Scenarios {
    func clusterFanout(clients: Int, senders: Int, rate: Int, seconds: Double) throws {
        guard let url = postgres else {
            emit(#"{"scenario":"cluster-fanout","skipped":"needs --postgres URL"}"#)
            return
        }
        for nodes in [1, 3] {
            let label = nodes == 1 ? "cluster-fanout-all-on-owner" : "cluster-fanout-spread"
            let board = "fan\(nodes)x\(getpid())-"
            var started: [(process: Process, port: Int)] = []
            defer {
                for node in started {
                    node.process.terminate()
                    node.process.waitUntilExit()
                }
            }
            for i in 0..<nodes {
                let port = try Self.freePort()
                let process = Process()
                process.executableURL = URL(fileURLWithPath: serverBinary)
                process.arguments = [
                    "serve", "--host", "127.0.0.1", "--port", "\(port)", "--log-level", "error", "--op-rate", "0",
                    "--message-rate", "0", "--max-connections-per-address", "0", "--max-pending-per-address", "0",
                    "--connect-rate", "0", "--board-creations", "0", "--max-holds-per-address", "0",
                    "--store", url, "--node", "fan\(getpid())-\(nodes)-\(i)", "--advertise", "127.0.0.1:\(port)",
                    "--node-links", "on",
                ]
                try process.run()
                started.append((process, port))
                try Self.waitUntilListening(port: port, timeout: 10)
            }
            let owner = started[0]
            // One client on the first node first, so that it claims the board and owns it.
            let pin = Process()
            pin.executableURL = URL(fileURLWithPath: loadgen)
            pin.arguments = [
                "--mode", "idle", "--port", "\(owner.port)", "--clients", "1", "--board", board, "--hold", "600",
                "--timeout", "60",
            ]
            pin.standardOutput = FileHandle.nullDevice
            try pin.run()
            defer {
                // SIGKILL: the child inherits this thread's blocked signals, SIGTERM among them.
                kill(pin.processIdentifier, SIGKILL)
                pin.waitUntilExit()
            }
            try Self.waitForUsers(1, port: owner.port, timeout: 30)
            let before = try Self.hoversSent(port: owner.port)
            let others = started.dropFirst().map { String($0.port) }
            let line = try loadgen(
                [
                    "--label", label, "--mode", "hover", "--port", "\(owner.port)", "--server-pid",
                    "\(owner.process.processIdentifier)", "--clients", "\(clients)", "--senders", "\(senders)",
                    "--rate", "\(rate)", "--seconds", "\(seconds)", "--timeout", "120", "--board", board,
                ] + (others.isEmpty ? [] : ["--also-ports", others.joined(separator: ",")]))
            let after = try Self.hoversSent(port: owner.port)
            let sent = (try? JSON.parse(Array(line.utf8)))?["sent"]?.numberValue ?? 0
            emit(
                #"{"scenario":"\#(label)-owner","nodes":\#(nodes),"owner_hover_frames":\#(Int(after - before)),"#
                    + #""hovers_sent":\#(Int(sent)),"owner_frames_per_broadcast":"#
                    + String(format: "%.1f", sent > 0 ? (after - before) / sent : 0) + "}")
        }
    }

    /// The owner's hover frames queued so far (`shuffleboard_messages_sent_total{type="hover"}`).
    static func hoversSent(port: Int) throws -> Double {
        let page = try httpGet("/metrics", port: port)
        let name = #"shuffleboard_messages_sent_total{type="hover"} "#
        guard let line = page.split(separator: "\n").first(where: { $0.hasPrefix(name) }),
            let value = Double(line.dropFirst(name.count))
        else { return 0 }
        return value
    }
}
