import BoardCore
import Foundation
import Testing

@testable import BoardStore

@Suite struct BoardArchiveTests {
    @Test func exportingAnUnknownBoardFails() throws {
        let error = try #require(throws: StoreError.self) { try BoardArchive.export(from: MemoryStore(), id: boardA) }
        #expect(error.message == "there is no board alpha")
    }

    @Test(arguments: [
        ("[]", "an archive must be a JSON object"),
        ("{", "not JSON"),
        (#"{"format":"other","version":1}"#, "not a shuffleboard board archive"),
        (#"{"format":"shuffleboard-board","version":2}"#, "archive version 2 is not supported"),
        (#"{"format":"shuffleboard-board","version":1,"board":{"id":"x"}}"#, "board.title must be a string"),
        (
            #"{"format":"shuffleboard-board","version":1,"board":BOARD,"baseSeq":3,"ops":[{"type":"toggle","op":"o","by":"u1","seq":5,"item":"t1","on":true}]}"#,
            "ops[0] has seq 5 where 4 was expected"
        ),
        (
            #"{"format":"shuffleboard-board","version":1,"board":BOARD,"baseSeq":0,"ops":[{"type":"swap","op":"o","by":"u1","seq":1,"a":"t1","b":"zz"}]}"#,
            "ops[0] (seq 1) does not apply: unknown item zz"
        ),
        (
            #"{"format":"shuffleboard-board","version":1,"board":BOARD,"baseSeq":0,"ops":[{"type":"move","op":"o","by":"u1","seq":1,"item":"t1","zone":"tray","before":"t2"}]}"#,
            "ops[0] (seq 1) does not apply: anchor t2 is not in zone tray"
        ),
        (
            #"{"format":"shuffleboard-board","version":1,"board":BOARD,"baseSeq":0,"ops":[{"type":"jump","op":"o","by":"u1","seq":1}]}"#,
            "ops[0] is not a committed op"
        ),
    ])
    func aBadArchiveIsRefusedWithAClearError(text: String, message: String) throws {
        let board = String(decoding: Board.defaultTemplate(id: boardA).encoded(), as: UTF8.self)
        let json = Array(text.replacingOccurrences(of: "BOARD", with: board).utf8)
        let error = try #require(throws: StoreError.self) { try BoardArchive(json: json) }
        #expect(error.message.hasPrefix(message), "\(error.message)")
    }

    @Test func archivedOpsAreTheBroadcastJSONPlusTheirTimeAndName() throws {
        var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 25)
        let ops = maker.next(30)
        for op in ops {
            let broadcast = try JSON.parse(ServerMessage.committed(op).encoded())
            var withoutTime = op
            withoutTime.time = UnixTime(milliseconds: 0)
            withoutTime.name = nil
            #expect(try CommittedOp(json: broadcast) == withoutTime)
        }
        let archive = try BoardArchive(board: .defaultTemplate(id: boardA), baseSeq: 0, ops: ops)
        let parsed = try JSON.parse(archive.encoded())
        let first = try #require(parsed["ops"]?.arrayValue?.first)
        guard case .object(var members) = first else {
            Issue.record("op is not an object")
            return
        }
        #expect(members.removeValue(forKey: "time") == .number(Double(ops[0].time.milliseconds)))
        #expect(members.removeValue(forKey: "name") == ops[0].name.map { .string($0) })
        #expect(JSON.object(members) == (try JSON.parse(ServerMessage.committed(ops[0]).encoded())))
        #expect(try BoardArchive(json: archive.encoded()) == archive)
    }
}

/// The archive tests every store passes (run on every store by `StoreContractTests`).
extension StoreContract {
    func anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps() throws {
        try withSpace(backend) { sourceSpace in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 21)
            let source = try sourceSpace.open(snapshotEvery: 10, keepOps: 25)
            try source.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(73))])
            let json = try BoardArchive.export(from: source, id: boardA)

            let targetSpace = try StoreSpace(backend)
            defer { targetSpace.remove() }
            let target = try targetSpace.open(snapshotEvery: 10, keepOps: 25)
            let archive = try BoardArchive.restore(json, into: target, replace: false)
            // Compacted at 70 down to base 45: the archive holds the board at 45 and ops 46…73.
            #expect(archive.baseSeq == 45)
            #expect(archive.ops == Array(maker.all[45...]))
            #expect(archive.current == maker.board)
            #expect(try target.load(boardA, recentLimit: 100) == source.load(boardA, recentLimit: 100))
            #expect(try target.ops(of: boardA, since: 45, limit: 100) == source.ops(of: boardA, since: 45, limit: 100))
            #expect(try target.ops(of: boardA, since: 44, limit: 100) == .gone)
            #expect(try BoardArchive.export(from: target, id: boardA) == json)

            // The imported board keeps growing as any other.
            let more = maker.next(30)
            try target.write([.append(boardA, more)])
            #expect(try target.load(boardA, recentLimit: 0)?.board == maker.board)
        }
    }

    func aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore() throws {
        try withSpace(backend) { space in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 22)
            let memory = MemoryStore()
            try memory.write([.create(.defaultTemplate(id: boardA)), .append(boardA, maker.next(12))])
            let json = try BoardArchive.export(from: memory, id: boardA)
            let archive = try BoardArchive(json: json)
            #expect(archive.baseSeq == 0)
            #expect(archive.board == .defaultTemplate(id: boardA))
            #expect(archive.ops == maker.all)

            let store = try space.open(snapshotEvery: 5)
            try store.restore(archive, replace: false)
            #expect(try store.load(boardA, recentLimit: 100) == memory.load(boardA, recentLimit: 100))
            let back = MemoryStore()
            try BoardArchive.restore(try BoardArchive.export(from: store, id: boardA), into: back, replace: false)
            #expect(try back.load(boardA, recentLimit: 100) == memory.load(boardA, recentLimit: 100))
        }
    }

    func importRefusesAnExistingBoardUnlessReplacing() throws {
        try withSpace(backend) { space in
            var maker = OpMaker(board: .defaultTemplate(id: boardA), seed: 23)
            let archive = try BoardArchive(board: maker.board, baseSeq: 0, ops: maker.next(4))
            let store = try space.open()
            var other = OpMaker(board: .defaultTemplate(id: boardA), seed: 24)
            try store.write([.create(other.board), .append(boardA, other.next(9))])

            let error = try #require(throws: StoreError.self) { try store.restore(archive, replace: false) }
            #expect(error.message.contains("already exists"))
            #expect(try store.load(boardA, recentLimit: 0)?.seq == 9)

            try store.restore(archive, replace: true)
            #expect(
                try store.load(boardA, recentLimit: 10) == StoredBoard(board: maker.board, seq: 4, recent: maker.all))

            let memory = MemoryStore()
            try memory.write([.create(.defaultTemplate(id: boardA))])
            #expect(throws: StoreError.self) { try memory.restore(archive, replace: false) }
            try memory.restore(archive, replace: true)
            #expect(try memory.load(boardA, recentLimit: 0)?.seq == 4)
        }
    }
}
