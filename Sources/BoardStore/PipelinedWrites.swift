/// A store that keeps several write batches on their way to its database at once: each batch is
/// still one transaction, durable when it is answered, and they commit in the order sent
/// (`PostgresStore`, in libpq's pipeline mode).
///
/// The node's writer thread alone sends and reads answers; `write` and the store's other calls
/// may come from any thread as before (a `write` waits for the answers of the batches sent first).
package protocol PipelinedWrites: BoardStore {
    /// How many batches are worth having on their way at once (1: never more than one).
    var pipelineDepth: Int { get }
    /// Sends the batch behind those on their way without waiting for an answer. True: sent, and
    /// its outcome comes from `answers`. False: nothing was sent, because it cannot go behind them
    /// (a create, a delete, a board's first write after a claim, a compaction that reads): write
    /// it with `write` once every batch sent was answered. Throwing: it was not stored, and no
    /// outcome comes for it.
    func send(_ batch: [StoreWrite]) throws(StoreError) -> Bool
    /// A descriptor that becomes readable when answers arrive (-1: none).
    var answerDescriptor: Int32 { get }
    /// The outcome of each batch sent and answered since the last call, oldest first: nil when it
    /// committed (it is durable), else why not. With `wait`, every batch sent is answered first.
    /// Once one fails, every batch sent behind it fails too (nothing of them is stored, or, when
    /// the connection broke, it may be: a `write` of the same ops then stores each op once).
    func answers(wait: Bool) -> [StoreError?]
}
