internal import BoardHub
internal import BoardStore
import Foundation

/// The writer thread with a store that keeps several batches on their way (`PipelinedWrites`:
/// PostgreSQL): a batch is sent as soon as it is taken, while those before it commit, up to the
/// store's depth; what arrives while every place is taken waits, and goes as one batch when an
/// answer frees one (group commit, as before).
///
/// Each batch is reported durable when its own answer says it committed, in the order sent. A
/// batch that fails fails every batch sent behind it (the store sees to it): once every batch on
/// its way is answered, the failed ones go together through `write` — retried while transient,
/// split by board when permanent or fenced — before anything after them. A batch that cannot go
/// behind others (a create, a delete, a board's first write after a claim) and a lease release
/// wait until every batch before them is answered.
extension Persister {
    /// A batch on its way, and when it was sent.
    private struct Sent {
        var batch: Batch
        var at: ContinuousClock.Instant
    }

    /// What the loop holds between turns.
    private struct Pipeline {
        /// Taken from the queue, not sent yet, oldest first.
        var waiting: [Task] = []
        /// Sent and not answered, oldest first.
        var sent: [Sent] = []
    }

    func runPipelined(_ store: any PipelinedWrites, report: (Hub.Event) -> Void) {
        var pipeline = Pipeline()
        while true {
            let (tasks, stopping) = worker.take()
            pipeline.waiting += tasks
            settle(&pipeline, store, wait: false, report: report)
            dispatch(&pipeline, store, report: report)
            if stopping {
                // Everything taken is written before the thread ends (retried until `stopRetry`).
                settle(&pipeline, store, wait: true, report: report)
                run(pipeline.waiting, report: report)
                return
            }
            // An answer or a new job, whichever comes first; the timeout only bounds a wait for
            // answers that another caller of the store read first.
            worker.wait(
                orReadable: pipeline.sent.isEmpty ? -1 : store.answerDescriptor,
                timeout: pipeline.sent.isEmpty ? nil : .milliseconds(100))
        }
    }

    /// Sends what waits, in order, while there is room; a release, or a batch that cannot go
    /// behind others, first waits for every answer.
    private func dispatch(_ pipeline: inout Pipeline, _ store: any PipelinedWrites, report: (Hub.Event) -> Void) {
        while let first = pipeline.waiting.first {
            if case .release(let board) = first {
                if !pipeline.sent.isEmpty { settle(&pipeline, store, wait: true, report: report) }
                pipeline.waiting.removeFirst()
                release(board, report: report)
                continue
            }
            guard pipeline.sent.count < store.pipelineDepth else { return }
            var jobs: [Job] = []
            while case .write(let job)? = pipeline.waiting.first {
                jobs.append(job)
                pipeline.waiting.removeFirst()
            }
            let batch = Batch(jobs)
            let sentAt = ContinuousClock.now
            let didSend: Bool
            do throws(StoreError) {
                didSend = try store.send(batch.writes)
            } catch {
                // Not stored: it goes through `write` after the batches before it.
                log.warning("sending a store write failed, writing it again: \(error.message)")
                didSend = false
            }
            if didSend {
                pipeline.sent.append(Sent(batch: batch, at: sentAt))
            } else {
                settle(&pipeline, store, wait: true, report: report)
                write(jobs, report: report)
            }
        }
    }

    /// Reads the answers that came (with `wait`, every answer): reports each committed batch
    /// durable, in order; once one failed, waits for the rest, and writes every failed batch
    /// again together through `write`.
    private func settle(
        _ pipeline: inout Pipeline, _ store: any PipelinedWrites, wait: Bool, report: (Hub.Event) -> Void
    ) {
        guard !pipeline.sent.isEmpty else { return }
        var outcomes = store.answers(wait: wait)
        if outcomes.contains(where: { $0 != nil }), outcomes.count < pipeline.sent.count {
            outcomes += store.answers(wait: true)
        }
        if wait, outcomes.count < pipeline.sent.count {
            // The store was closed under the writer: what it did not answer was not stored.
            outcomes += Array(
                repeating: StoreError("the store closed with writes on their way", kind: .transient),
                count: pipeline.sent.count - outcomes.count)
        }
        var failed: [Job] = []
        var firstError: StoreError?
        for outcome in outcomes.prefix(pipeline.sent.count) {
            let sent = pipeline.sent.removeFirst()
            let seconds = (ContinuousClock.now - sent.at).timeInterval
            measured.withLock {
                $0.writeSeconds.observe(seconds)
                if outcome == nil {
                    $0.batchWrites.observe(Double(sent.batch.size))
                    $0.failing = false
                } else if outcome?.kind == .transient {
                    $0.transientFailures += 1
                } else {
                    $0.permanentFailures += 1
                }
            }
            if let error = outcome {
                failed += sent.batch.jobs
                firstError = firstError ?? error
            } else {
                report(.durable(seqs: sent.batch.seqs, tickets: sent.batch.tickets))
            }
        }
        guard let firstError else { return }
        log.warning("a store write on its way failed (\(firstError.message)); writing it and those behind it again")
        write(failed, report: report)
    }
}
