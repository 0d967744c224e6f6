package import BoardCore
import Synchronization

/// Several writer connections (`--store-writers N`): each board is written by one of them,
/// always the same (`writer(of:)`), and the server runs one writer thread per connection
/// (`BoardStore.writerCount`), so that the batches of different boards' writers are in the
/// database at the same time. Each is still one fenced transaction, durable when it returns;
/// their commits' WAL flushes overlap, and PostgreSQL's group commit makes one flush serve
/// several of them, while the next batch's statements run beside a flush instead of after it.
///
/// A writer keeps replicas of the boards it writes (`BoardLog`), and the pipelined fast path
/// trusts them under one epoch: that holds only while no other connection of this node writes
/// the board. So a batch whose boards belong to more than one writer (never one of the server's
/// writer threads, which split by writer; a test, a tool) goes in one transaction on writer 0
/// with every writer locked, and every writer then drops its replicas of those boards.
extension PostgresStore {
    /// The most writer connections.
    package static let maxWriters = 16

    /// Runs `body` on the writer connection, writer 0's, under its lock (revocations: SQLStore+Revocations.swift).
    func onWriter<Result: Sendable>(
        _ body: (PostgresConnection) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        try writer.whileOpen(orThrow: closed) { (writer: PostgresWriter) throws(StoreError) in try body(writer.db) }
    }

    /// The writer whose connection writes the board: FNV-1a of its id, so the same in every run.
    package func writer(of id: BoardID) -> Int {
        guard writerCount > 1 else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in id.rawValue.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Int(hash % UInt64(writerCount))
    }

    /// How many write batches went to the server as one pipeline (one round trip each), over every writer.
    var pipelinedWrites: Int {
        (0..<writerCount).reduce(0) { $0 + ((try? withWriter($1) { writer in writer.pipelinedBatches }) ?? 0) }
    }

    /// How many boards the writers keep a replica of (for tests: it follows the boards in memory).
    package var replicaCount: Int {
        (0..<writerCount).reduce(0) { $0 + ((try? withWriter($1) { writer in writer.replicaCount }) ?? 0) }
    }

    /// Runs `body` with writer `index`, under its lock.
    func withWriter<Result: Sendable>(
        _ index: Int, _ body: (PostgresWriter) throws(StoreError) -> Result
    ) throws(StoreError) -> Result {
        if index == 0 { return try writer.whileOpen(orThrow: closed, body) }
        return try moreWriters[index - 1].writer.whileOpen(orThrow: closed, body)
    }

    /// A batch whose boards belong to several writers: one transaction on writer 0 while every
    /// writer is locked (in order, as nothing else locks more than one), then no writer keeps a
    /// replica of its boards, which the next write of each reads again.
    func writeAcrossWriters(_ batch: [StoreWrite], epochs: [BoardID: Int64]) throws(StoreError) {
        let boards = Set(batch.map(\.boardID))
        try withEveryWriter(from: 0, []) { (writers: [PostgresWriter]) throws(StoreError) in
            defer { for writer in writers { for id in boards { writer.forget(id) } } }
            try writers[0].write(batch, epochs: epochs)
        }
    }

    private func withEveryWriter(
        from index: Int, _ held: [PostgresWriter], _ body: ([PostgresWriter]) throws(StoreError) -> Void
    ) throws(StoreError) {
        guard index < writerCount else { return try body(held) }
        try withWriter(index) { (writer: PostgresWriter) throws(StoreError) in
            try withEveryWriter(from: index + 1, held + [writer], body)
        }
    }
}

/// One more writer connection's writer, in a mutex of its own (an array cannot hold a `Mutex`).
final class WriterSlot: Sendable {
    let writer: Mutex<PostgresWriter?>

    init(_ writer: sending PostgresWriter) {
        self.writer = Mutex(writer)
    }
}
