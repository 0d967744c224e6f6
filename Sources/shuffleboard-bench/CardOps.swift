import BoardClient
import BoardCore
import BoardServer
import BoardStore
import Foundation

extension Scenarios {
    /// `card-ops` (issue 32): committed ops per second of a mix of card-content ops with moves —
    /// each client adds a card, writes its description and due date, assigns someone, adds a
    /// checklist entry, moves it to the grid and removes it, over and over — against toggles in
    /// the same run, on the same in-process server (memory, then SQLite). One JSON line per store.
    func cardOps(opsPerClient: Int, clients: Int) async throws {
        for store in ["memory", "sqlite"] {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "shuffleboard-bench-card-\(getpid())")
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
            let cards = try await Self.rate(loop, port: port, board: "cards", clients: clients, ops: opsPerClient) {
                client, step, card in
                let id = card ?? ""
                switch step % 6 {
                case 0: return #"{"type":"add","zone":"tray","before":null,"item":{"label":"card \#(client)-\#(step)"}"#
                case 1:
                    return
                        ##"{"type":"edit","item":"\##(id)","description":"# Step \##(step)\n\n- write *it*","due":"2026-03-01""##
                case 2: return #"{"type":"assign","item":"\#(id)","add":[{"member":"m\#(client)","name":"Person"}]"#
                case 3: return #"{"type":"addCheck","item":"\#(id)","before":null,"text":"Check \#(step)""#
                case 4: return #"{"type":"move","item":"\#(id)","zone":"grid","before":null"#
                default: return #"{"type":"remove","item":"\#(id)""#
                }
            }
            emit(
                String(
                    format: #"{"scenario":"card-ops","store":"%@","clients":%d,"#
                        + #""toggle_ops_per_s":%.0f,"card_ops_per_s":%.0f,"ratio":%.3f}"#,
                    store, clients, toggles, cards, cards / toggles))
            (boardStore as? SQLiteStore)?.close()
        }
    }
}
