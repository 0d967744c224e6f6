internal import BoardCore

/// Batches on their way (see `PipelinedWrites`): the node's writer sends a batch of appends
/// while the ones before it commit, on the writer connection, each fenced as `write` fences.
extension PostgresStore: PipelinedWrites {
    /// Sends the batch behind those on their way, fenced under this node's claims; false when it
    /// must wait for them and go through `write`.
    package func send(_ batch: [StoreWrite]) throws(StoreError) -> Bool {
        guard pipelineDepth > 1 else { return false }
        let epochs = claimed.withLock { $0 }
        return try writer.whileOpen(orThrow: closed) { (writer: PostgresWriter) throws(StoreError) in
            try writer.send(batch, epochs: epochs)
        }
    }

    /// The writer connection's socket.
    package var answerDescriptor: Int32 { writer.withLock { $0?.db.socket ?? -1 } }

    /// The outcomes of the batches sent and answered, oldest first.
    package func answers(wait: Bool) -> [StoreError?] {
        writer.withLock { $0?.answers(wait: wait) ?? [] }
    }
}
