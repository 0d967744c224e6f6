internal import CPostgres

/// libpq's pipeline mode, two ways.
///
/// A pipelined transaction (`transaction(pipelined: true)`): BEGIN, its statements and COMMIT go
/// out together and their answers are read together at COMMIT (a `query` in it reads those sent
/// before it first).
///
/// Transactions sent whole (`sendTransaction`): each BEGIN … COMMIT and its Sync goes out at once
/// and the caller goes on, so that several transactions are on their way at a time; their
/// answers are read later, oldest first (`readSent`). The server runs them one after another:
/// the next one's statements wait in its socket while the one before commits. A statement that
/// fails makes the server skip the rest of its transaction, COMMIT included, and leaves the
/// session in a failed transaction, so that every transaction sent after it fails too until the
/// pipeline is emptied and the failed one rolled back: nothing sent after a failure commits.
extension PostgresConnection {

    /// A pipeline in progress: what each statement sent and not yet answered was doing, oldest first.
    struct Pipeline {
        var unanswered: [String] = []
        /// Whether the Sync that ends it was sent.
        var synced = false
    }

    func enterPipeline() throws(StoreError) {
        let conn = try handle()
        guard PQenterPipelineMode(conn) == 1 else {
            throw StoreError(
                "\(location): could not enter pipeline mode: \(Self.message(PQerrorMessage(conn)))", kind: .transient)
        }
        pipeline = Pipeline()
    }

    /// The next result of the oldest unanswered statement, checked; the caller clears it.
    func nextResult() throws(StoreError) -> OpaquePointer {
        guard let conn, var current = pipeline, !current.unanswered.isEmpty else {
            preconditionFailure("a pipeline result read with nothing unanswered")
        }
        let doing = current.unanswered.removeFirst()
        pipeline = current
        let result = try check(PQgetResult(conn), doing)
        // Each statement's results end with a NULL.
        if let extra = PQgetResult(conn) {
            PQclear(result)
            PQclear(extra)
            throw StoreError("\(location): \(doing) answered more than one result", kind: .transient)
        }
        return result
    }

    /// Reads and checks the oldest unanswered statement's answer.
    func readAnswer() throws(StoreError) {
        PQclear(try nextResult())
    }

    /// Sends the Sync, reads every answer (throwing the first error), and leaves pipeline mode.
    func finishPipeline() throws(StoreError) {
        guard let conn else { throw StoreError("\(location): the store is closed") }
        guard PQpipelineSync(conn) == 1 else {
            throw StoreError("\(location): could not send: \(Self.message(PQerrorMessage(conn)))", kind: .transient)
        }
        pipeline?.synced = true
        while pipeline?.unanswered.isEmpty == false { try readAnswer() }
        // Every answer was a success, COMMIT's last: the transaction is committed, and nothing
        // after this may say otherwise (a retry of a stored batch would be taken for a fenced one).
        pipeline = nil
        let sync = PQgetResult(conn)
        let synced = sync.map { PQresultStatus($0) == PGRES_PIPELINE_SYNC } ?? false
        PQclear(sync)
        if !synced || PQexitPipelineMode(conn) != 1 {
            // Out of step with libpq's pipeline: the connection starts afresh.
            PQreset(conn)
            shuffleboard_pg_silence_notices(conn)
            try? configure()
        }
    }

    /// After an error: sends the Sync if it was not sent, reads and drops what is left up to the
    /// Sync's answer, and leaves pipeline mode. A broken connection has nothing left to read; it
    /// leaves pipeline mode when it is opened again.
    func endPipeline() {
        guard let current = pipeline else { return }
        pipeline = nil
        guard let conn, PQstatus(conn) == CONNECTION_OK else { return }
        if !current.synced, PQpipelineSync(conn) != 1 { return }
        // Each unanswered statement yields a result and a NULL, then the Sync's result: a bound,
        // so that a confused connection cannot keep this loop going.
        var left = 2 * current.unanswered.count + 4
        while left > 0, PQstatus(conn) == CONNECTION_OK {
            left -= 1
            guard let result = PQgetResult(conn) else { continue }
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        guard PQexitPipelineMode(conn) != 1 else { return }
        // Still busy: the connection is out of step with its pipeline. Opening it again ends the
        // transaction on the server; a COMMIT already sent may have run.
        if current.synced { commitUncertain = true }
        PQreset(conn)
        shuffleboard_pg_silence_notices(conn)
        // Failing, it fails again at the next statement, which opens the connection again.
        try? configure()
    }

    // MARK: Transactions sent whole

    /// A transaction sent whole (BEGIN … COMMIT, then a Sync) whose answers are not all read.
    struct SentTransaction {
        /// What each statement not yet answered was doing, oldest first.
        var unanswered: [String]
        /// The first error among its answers.
        var error: StoreError?
        /// Whether the oldest unanswered statement's result was read, so its closing NULL is next.
        var resultRead = false
        /// Sent only to be rolled back (building it failed): its answers are read and dropped.
        var discarded = false
    }

    /// Sends a transaction (`begin`, the statements `body` sends with `send`, COMMIT) and its Sync
    /// without waiting for any answer; `readSent` reads its outcome later. When this throws, the
    /// transaction does not count as sent: it was never sent, or it was sent with a ROLLBACK in
    /// place of its COMMIT.
    func sendTransaction(begin: String = "BEGIN", _ body: () throws(StoreError) -> Void) throws(StoreError) {
        precondition(!inTransactionBlock, "transactions do not nest")
        guard let conn else { throw StoreError("\(location): the store is closed") }
        // A connection that broke with transactions on their way is opened again only once their
        // fate was read (as unknown): `readSent` first.
        if !sent.isEmpty, PQstatus(conn) != CONNECTION_OK {
            throw StoreError("\(location): lost the connection with transactions on their way", kind: .transient)
        }
        if PQpipelineStatus(try handle()) == PQ_PIPELINE_OFF {
            try enterPipeline()
        } else {
            pipeline = Pipeline()
        }
        inTransactionBlock = true
        defer {
            inTransactionBlock = false
            pipeline = nil
        }
        do throws(StoreError) {
            try send(begin)
            try body()
            try send("COMMIT")
        } catch {
            // Nothing of it may commit: ROLLBACK in place of COMMIT, its answers read and dropped.
            if PQstatus(conn) == CONNECTION_OK, (try? send("ROLLBACK")) != nil, PQpipelineSync(conn) == 1 {
                sent.append(SentTransaction(unanswered: pipeline?.unanswered ?? [], discarded: true))
            }
            throw error
        }
        guard PQpipelineSync(conn) == 1, PQflush(conn) == 0 else {
            // The connection broke while sending: whatever went out may have committed. Its
            // answers, if any, are read and dropped; this error is its outcome.
            sent.append(SentTransaction(unanswered: pipeline?.unanswered ?? [], discarded: true))
            commitUncertain = true
            throw StoreError("\(location): could not send: \(Self.message(PQerrorMessage(conn)))", kind: .transient)
        }
        sent.append(SentTransaction(unanswered: pipeline?.unanswered ?? []))
    }

    /// How many transactions sent whole are not answered yet (discarded ones too).
    var sentCount: Int { sent.count }

    /// The socket the server's answers arrive on (-1 when closed).
    var socket: Int32 { conn.map { PQsocket($0) } ?? -1 }

    /// Reads the answers that arrived, without waiting, or with `wait` until every transaction
    /// sent whole is answered; returns the outcome of each transaction answered, oldest first:
    /// nil when it committed, else why not. When the connection broke, every transaction still
    /// unanswered fails, and `commitUncertain` is set: its COMMIT was sent.
    ///
    /// Once none is left, the connection leaves pipeline mode, and a failed transaction is rolled back.
    func readSent(wait: Bool) -> [StoreError?] {
        guard let conn, !sent.isEmpty else { return [] }
        var outcomes: [StoreError?] = []
        if !wait, PQconsumeInput(conn) == 0 {
            failSent(&outcomes)
            return outcomes
        }
        while !sent.isEmpty {
            if !wait, PQisBusy(conn) == 1 { break }
            let result = PQgetResult(conn)
            if sent[0].unanswered.isEmpty {
                // The Sync's answer ends the transaction.
                let status = result.map { PQresultStatus($0) }
                PQclear(result)
                guard status == PGRES_PIPELINE_SYNC else {
                    failSent(&outcomes)
                    return outcomes
                }
                let done = sent.removeFirst()
                if !done.discarded { outcomes.append(done.error) }
            } else if sent[0].resultRead {
                // The NULL after a statement's result; anything else is a result too many.
                if let extra = result {
                    PQclear(extra)
                    if sent[0].error == nil {
                        sent[0].error = StoreError(
                            "\(location): \(sent[0].unanswered[0]) answered more than one result", kind: .transient)
                    }
                    continue
                }
                sent[0].unanswered.removeFirst()
                sent[0].resultRead = false
            } else {
                guard let result else {
                    failSent(&outcomes)
                    return outcomes
                }
                sent[0].resultRead = true
                if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                    // Skipped after an earlier error: that one is the transaction's.
                    PQclear(result)
                    continue
                }
                do throws(StoreError) {
                    PQclear(try check(result, sent[0].unanswered[0]))
                } catch {
                    if sent[0].error == nil { sent[0].error = error }
                }
            }
        }
        if sent.isEmpty { leaveSentPipeline(failed: outcomes.contains { $0 != nil }) }
        return outcomes
    }

    /// The connection broke (or its answers made no sense): every transaction unanswered fails,
    /// and may or may not have committed.
    private func failSent(_ outcomes: inout [StoreError?]) {
        let broken = conn.map { PQstatus($0) != CONNECTION_OK } ?? true
        let reason = Self.message(conn.map { PQerrorMessage($0) })
        for transaction in sent where !transaction.discarded {
            outcomes.append(
                StoreError(
                    "\(location): lost the answer of a transaction sent (\(broken ? "the connection broke" : "out of step"): "
                        + "\(reason)); it may or may not have committed", kind: .transient))
        }
        sent = []
        commitUncertain = true
        pipeline = nil
        guard let conn, !broken else { return }
        // Out of step: opening the connection again ends whatever the server was doing.
        PQreset(conn)
        shuffleboard_pg_silence_notices(conn)
        if PQpipelineStatus(conn) != PQ_PIPELINE_OFF { PQexitPipelineMode(conn) }
        try? configure()
    }

    /// Leaves pipeline mode once every transaction sent was answered; after a failure, the
    /// session's failed transaction is rolled back.
    private func leaveSentPipeline(failed: Bool) {
        guard let conn, PQstatus(conn) == CONNECTION_OK else { return }
        if PQexitPipelineMode(conn) != 1 {
            PQreset(conn)
            shuffleboard_pg_silence_notices(conn)
            try? configure()
            return
        }
        if failed || inTransaction { rollback() }
    }
}
