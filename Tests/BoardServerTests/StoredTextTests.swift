import BoardCore
import BoardStore
import Foundation
import TestSupport
import Testing

/// Issue 8, defect 2: an op id with a NUL was committed and broadcast but stored cut at the NUL,
/// so the board could not be loaded after a restart (every hello 1011, the API 503), and the
/// first compaction that read the row back failed its transaction forever. Control characters are
/// now refused at the door (`bad_message`); every other op id is stored byte for byte.
@Suite struct StoredTextTests {
    func toggle(_ opJSON: String, base: Int, item: String) -> String {
        #"{"type":"toggle","op":"\#(opJSON)","base":\#(base),"item":"\#(item)","on":true}"#
    }

    func utf8(_ json: JSON?) -> [UInt8]? { json?.stringValue.map { Array($0.utf8) } }

    @Test func anExoticOpIDSurvivesARestartAndCompactionAndANULIsRefused() async throws {
        let dir = NSTemporaryDirectory() + "stored-text-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // A snapshot every 5 ops, 10 kept: compaction reads the first ops back by seq 15.
        let first = try SQLiteStore(directory: dir, snapshotEvery: 5, keepOps: 10)
        try await withTestServer(store: first) { server in
            let (a, _) = try await server.join(as: "Ada")
            a.send(toggle(#"\u0000"#, base: 0, item: "t1"))
            #expect(try await a.expect("error")["code"]?.stringValue == "bad_message")
            a.send(toggle(#"\u202ee\u0301\u200b"#, base: 0, item: "t1"))
            #expect(utf8(try await a.expect("toggle")["op"]) == Array("\u{202E}e\u{301}\u{200B}".utf8))
            a.send(toggle(#"inside😀\u2028"#, base: 1, item: "t2"))
            #expect(utf8(try await a.expect("toggle")["op"]) == Array("inside😀\u{2028}".utf8))
        }
        first.close()

        let second = try SQLiteStore(directory: dir, snapshotEvery: 5, keepOps: 10)
        defer { second.close() }
        try await withTestServer(store: second) { server in
            let (a, welcome) = try await server.join(as: "Ada")
            #expect(welcome["seq"]?.intValue == 2)
            // The op id came back whole: a resend is acknowledged with its seq, not applied again.
            a.send(toggle(#"\u202ee\u0301\u200b"#, base: 0, item: "t1"))
            let ack = try await a.expect("ack")
            #expect(utf8(ack["op"]) == Array("\u{202E}e\u{301}\u{200B}".utf8) && ack["seq"]?.intValue == 1)
            #expect(try server.http("GET", "/api/boards/demo").status == 200)
            let page = try server.http("GET", "/api/boards/demo/ops?since=0")
            #expect(page.status == 200)
            let ops = try JSON.parse(Array(page.body.utf8))["ops"]?.arrayValue ?? []
            #expect(
                ops.map { utf8($0["op"]) } == [Array("\u{202E}e\u{301}\u{200B}".utf8), Array("inside😀\u{2028}".utf8)])

            // Twenty more ops: the snapshots at 15 and 20 compact the log past both NUL rows.
            for seq in 3...22 {
                a.send(toggle("o\(seq)", base: seq - 1, item: "t\(seq % 12 + 1)"))
                #expect(try await a.expect("toggle")["seq"]?.intValue == seq)
            }
            #expect(try server.http("GET", "/api/boards/demo/ops?since=9").status == 410)
            let kept = try JSON.parse(Array(server.http("GET", "/api/boards/demo/ops?since=10").body.utf8))
            #expect(kept["ops"]?.arrayValue?.count == 12)
            // Another board commits as well: the writer is not stuck.
            let (b, _) = try await server.join("other", as: "Bo")
            b.send(toggle("b1", base: 0, item: "t1"))
            #expect(try await b.expect("toggle")["seq"]?.intValue == 1)
        }
    }
}
