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
        try await mixAgainstToggles(scenario: "card-ops", key: "card", opsPerClient: opsPerClient, clients: clients) {
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
    }
}
