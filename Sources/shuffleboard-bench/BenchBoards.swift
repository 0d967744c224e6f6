import BoardCore
import BoardStore
import Foundation

/// Runs `body` with a SQLite store in a new directory of its own
/// (`shuffleboard-bench-NAME-PID` under the temporary directory), then closes the store and
/// removes the directory.
func withScratchStore<T>(_ name: String, _ body: (SQLiteStore) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "shuffleboard-bench-\(name)-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store = try SQLiteStore(directory: directory.path)
    defer { store.close() }
    return try await body(store)
}

/// Writes `count` ops to a stored board, 500 a transaction, applying each to `board` too: op
/// `seq` is `op(seq)`, committed by user 1 at `timeStep` milliseconds a seq after a fixed time.
func writeOps(
    _ count: Int, to store: SQLiteStore, board: inout Board, timeStep: Int64, name: String? = nil,
    op: (Int) -> Op
) throws {
    var seq = 0
    while seq < count {
        var batch: [CommittedOp] = []
        while batch.count < 500 && seq < count {
            seq += 1
            let op = op(seq)
            board.apply(op)
            batch.append(
                CommittedOp(
                    seq: seq, opID: OpID("h\(seq)")!, by: UserID(number: 1), op: op,
                    time: UnixTime(milliseconds: 1_764_000_000_000 + Int64(seq) * timeStep), name: name))
        }
        try store.write([.append(board.id, batch)])
    }
}
