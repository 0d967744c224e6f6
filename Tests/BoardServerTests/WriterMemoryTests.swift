import BoardCore
import BoardStore
import Foundation
import TestSupport
import Testing

@testable import BoardServer

/// The writer's memory follows the boards in memory (issue 29, finding 12): the replica the
/// SQLite writer keeps of each board it writes goes when the board leaves memory.
@Suite struct WriterMemoryTests {
    static func toggle(_ op: String, base: Int, item: String) -> String {
        #"{"type":"toggle","op":"\#(op)","base":\#(base),"item":"\#(item)","on":true}"#
    }

    @Test func theWriterDropsABoardsReplicaWhenTheBoardIsEvicted() async throws {
        let dir = NSTemporaryDirectory() + "writer-memory-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try SQLiteStore(directory: dir)
        defer { store.close() }
        try await withTestServer(store: store) { server in
            for n in 0..<5 {
                let (a, _) = try await server.join("b\(n)", as: "Ada")
                a.send(Self.toggle("o\(n)", base: 0, item: "t1"))
                #expect(try await a.expect("toggle")["seq"]?.intValue == 1)
                // While someone is on the board the writer keeps its replica.
                #expect(store.replicaCount >= 1)
                a.close()
            }
            // Every board left memory once its last client left: the writer forgets them all (the
            // release runs after the board's writes on the writer thread; bounded wait).
            let deadline = ContinuousClock.now + .seconds(10)
            while store.replicaCount > 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(store.replicaCount == 0)
            // A board written again after its replica went is read back and goes on from its seq.
            let (a, welcome) = try await server.join("b0", as: "Ada")
            #expect(welcome["seq"]?.intValue == 1)
            a.send(Self.toggle("again", base: 1, item: "t2"))
            #expect(try await a.expect("toggle")["seq"]?.intValue == 2)
            #expect(store.replicaCount == 1)
            a.close()
        }
        #expect(try store.load(BoardID("b0")!, recentLimit: 10)?.seq == 2)
    }
}
