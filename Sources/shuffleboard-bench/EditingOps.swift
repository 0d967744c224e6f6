import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

extension Scenarios {
    /// `editing-ops`: committed ops per second of a mix of card edits (add, edit, move, remove: each
    /// client adds a card, renames it, moves it to the grid and removes it, over and over) against
    /// toggles, in the same run, on the same in-process server (memory, then SQLite). Each client
    /// keeps one op in flight; nothing conflicts. One JSON line per store, with the ratio.
    func editingOps(opsPerClient: Int, clients: Int) async throws {
        try await mixAgainstToggles(
            scenario: "editing-ops", key: "editing", opsPerClient: opsPerClient, clients: clients
        ) {
            client, step, card in
            switch step % 4 {
            case 0:
                #"{"type":"add","zone":"tray","before":null,"item":{"label":"card \#(client)-\#(step)"}"#
            case 1: #"{"type":"edit","item":"\#(card ?? "")","label":"edited \#(step)","detail":"d""#
            case 2: #"{"type":"move","item":"\#(card ?? "")","zone":"grid","before":null"#
            default: #"{"type":"remove","item":"\#(card ?? "")""#
            }
        }
    }

    /// What `editing-ops` and `card-ops` share: for each store (memory, then SQLite) an in-process
    /// server, toggles' committed ops per second as the reference, then `mix`'s on another board
    /// of the same server, and one JSON line `{"scenario", "store", "clients", "toggle_ops_per_s",
    /// "<key>_ops_per_s", "ratio"}`.
    func mixAgainstToggles(
        scenario: String, key: String, opsPerClient: Int, clients: Int,
        _ mix: @escaping @Sendable (Int, Int, String?) -> String
    ) async throws {
        for store in ["memory", "sqlite"] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "shuffleboard-bench-\(key)-\(getpid())")
            defer { try? FileManager.default.removeItem(at: directory) }
            let boardStore: any BoardStore =
                store == "memory" ? MemoryStore() : try SQLiteStore(directory: directory.path)
            let (server, port) = try startServer(store: boardStore)
            defer { server.stop() }
            let loop = try ClientLoop()
            defer { loop.shutdown() }
            let toggles = try await Self.rate(loop, port: port, board: "toggles", clients: clients, ops: opsPerClient) {
                client, step, _ in
                #"{"type":"toggle","item":"t\#(client + 1)","on":\#(step % 2 == 0)"#
            }
            let mixed = try await Self.rate(loop, port: port, board: key, clients: clients, ops: opsPerClient, mix)
            emit(
                String(
                    format: #"{"scenario":"%@","store":"%@","clients":%d,"#
                        + #""toggle_ops_per_s":%.0f,"%@_ops_per_s":%.0f,"ratio":%.3f}"#,
                    scenario, store, clients, toggles, key, mixed, mixed / toggles))
            (boardStore as? SQLiteStore)?.close()
        }
    }

    /// Committed ops per second of `clients` clients on `board`, each sending `ops` ops one at a
    /// time: `next(client, step, card)` is the op's JSON without its closing brace, op id and
    /// base (`card`: the id of the last card this client added).
    static func rate(
        _ loop: ClientLoop, port: Int, board: String, clients: Int, ops: Int,
        _ next: @escaping @Sendable (Int, Int, String?) -> String
    ) async throws -> Double {
        var connections: [ClientConnection] = []
        for i in 0..<clients {
            let c = try await loop.connect(port: port)
            c.send(#"{"type":"hello","board":"\#(board)","name":"edit-\#(i)"}"#)
            _ = try await c.receive(timeout: .seconds(30))  // welcome
            connections.append(c)
        }
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (i, c) in connections.enumerated() {
                group.addTask {
                    var seq = 0
                    var card: String?
                    for step in 0..<ops {
                        let id = "\(board)-\(i)-\(step)"
                        c.send(next(i, step, card) + #","op":"\#(id)","base":\#(seq)}"#)
                        // Every op on the board moves seq; this client's own comes back as its ack.
                        while true {
                            let json = try JSON.parse(try await c.receive(timeout: .seconds(30)))
                            for m in json.arrayValue ?? [json] {
                                if let s = m["seq"]?.intValue, m["by"] != nil { seq = max(seq, s) }
                                if m["type"]?.stringValue == "reject" || m["type"]?.stringValue == "error" {
                                    throw BenchError(description: "editing-ops: \(m["reason"] ?? m["code"] ?? .null)")
                                }
                            }
                            guard let mine = (json.arrayValue ?? [json]).first(where: { $0["op"]?.stringValue == id })
                            else { continue }
                            if let added = mine["item"]?["id"]?.stringValue { card = added }
                            break
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        for c in connections { c.close() }
        return Double(clients * ops) / seconds
    }
}
