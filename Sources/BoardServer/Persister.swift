internal import BoardCore
internal import BoardHub
internal import BoardStore
import Foundation
internal import LWSSupport
import Synchronization

/// The store's writer thread, with group commit.
///
/// The service thread submits writes without waiting. The writer takes everything queued, writes
/// it in one transaction, and reports the durable seqs back through the inbox; whatever arrives
/// while a transaction is being synced goes into the next one.
///
/// A failed write is never acknowledged, so it may be retried or failed without breaking a
/// promise. A transient failure (locked, I/O, disk full) is retried with backoff until it
/// succeeds; a permanent one (a constraint, a damaged row) would fail forever, so the batch is
/// split by board and each board is written on its own: the boards that commit are reported
/// durable, each board that still fails is reported as `.writeFailed`, and the writer goes on.
/// Once `stop()` is called, a transient failure is retried for `stopRetry` more at most; then what
/// is left is dropped (and logged), so that shutdown never hangs on a store that cannot write.
///
/// In a cluster a write may be *fenced* (this node no longer holds the board's lease): that is
/// never retried either, and is reported as `.writeFailed` of kind `.fenced`. A lease release
/// (`Task.release`) runs in queue order, after every write submitted before it, and is reported
/// as `.released` whether or not it succeeded.
///
/// A store whose writes never wait and never fail (`writesNeverWait`: the in-memory one, so
/// nothing retries or backs off) is written by the service thread itself (`writesInline`,
/// `run`), a batch per event, and the writer thread has nothing to do. That saves two thread
/// switches and an inbox round trip per batch, which were most of the cost of an op in memory.
final class Persister: Sendable {
    /// One submitted write and the ticket to report when it is durable.
    typealias Job = (write: StoreWrite, ticket: Ticket?)

    /// What the writer thread takes from its queue (or `runNow` is given).
    enum Task: Sendable {
        case write(Job)
        /// Give up the board's lease (a `ClusterStore`'s).
        case release(BoardID)
    }

    private let store: any BoardStore
    /// The same store as a cluster's, when it is one: it holds the leases `release` gives up.
    private let cluster: (any ClusterStore)?
    /// The same store as one that keeps batches on their way, when it is one (`--store-pipeline`).
    private let pipeline: (any PipelinedWrites)?
    /// The store's writes never wait: the service thread writes with `run`, not `submit`.
    let writesInline: Bool
    private let report: @Sendable (Hub.Event) -> Void
    let log: Logger
    private let stopRetry: Duration
    /// One writer thread per writer of the store (`BoardStore.writerCount`); each board's writes
    /// and its lease's release go to the thread of its writer (`BoardStore.writer(of:)`), in order.
    let workers: [Worker<Task>]
    /// The first writer thread (the only one with batches on their way).
    var worker: Worker<Task> { workers[0] }
    /// When retrying must give up: set by `stop()`.
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)
    /// Signalled by `stop()`, to cut a backoff wait short.
    private let interrupt = DispatchSemaphore(value: 0)
    /// What the writer measures; the service thread copies it at scrape time (`/metrics`, `/readyz`).
    let measured = Mutex(StoreStats())

    /// A writer that reports durable and failed writes to `report` (from the writer thread).
    /// `cluster` and `pipeline` are `store` when it is a cluster's, or pipelines its writes
    /// (`StoreCapabilities`, made once by whoever makes the server).
    init(
        store: any BoardStore, cluster: (any ClusterStore)?, pipeline: (any PipelinedWrites)? = nil, log: Logger,
        stopRetry: Duration, report: @escaping @Sendable (Hub.Event) -> Void
    ) {
        self.store = store
        self.cluster = cluster
        self.pipeline = pipeline
        writesInline = store.writesNeverWait
        let threads = writesInline || (pipeline?.pipelineDepth ?? 1) > 1 ? 1 : max(store.writerCount, 1)
        workers = (0..<threads).map {
            Worker(name: $0 == 0 ? "shuffleboard-writer" : "shuffleboard-writer-\($0)", leftovers: .finish)
        }
        self.log = log
        self.stopRetry = stopRetry
        self.report = report
    }

    /// A writer that reports to the service thread's inbox.
    convenience init(_ capabilities: StoreCapabilities, inbox: Inbox<Hub.Event>, log: Logger, stopRetry: Duration) {
        self.init(
            store: capabilities.store, cluster: capabilities.cluster, pipeline: capabilities.pipeline, log: log,
            stopRetry: stopRetry
        ) { event in inbox.post(event) }
    }

    func start() {
        if !writesInline, let pipelined = pipeline, pipelined.pipelineDepth > 1 {
            worker.startLoop { [self] in runPipelined(pipelined, report: report) }
        } else {
            for worker in workers { worker.start { [self] tasks in run(tasks, report: report) } }
        }
    }

    /// Queues a write (its ticket, when given, is reported back once the write is durable) or the
    /// release of a board's lease, after everything queued so far.
    func submit(_ task: Task) {
        guard workers.count > 1 else { return worker.submit(task) }
        let board =
            switch task {
            case .write(let job): job.write.boardID
            case .release(let board): board
            }
        workers[min(max(store.writer(of: board), 0), workers.count - 1)].submit(task)
    }

    /// Queues a write; `ticket`, when given, is reported back once the write is durable.
    func submit(_ write: StoreWrite, ticket: Ticket? = nil) { submit(.write((write, ticket))) }

    /// A copy of what the writer has measured so far.
    func stats() -> StoreStats { measured.withLock { $0 } }

    /// Writes what is queued, then stops the thread; a write that keeps failing is given up
    /// `stopRetry` from now.
    func stop() {
        deadline.withLock { $0 = .now + stopRetry }
        for _ in workers { interrupt.signal() }
        for worker in workers { worker.stop() }
    }

    // MARK: The writer thread

    /// Carries out `tasks` on the calling thread, reporting to `report`: the writer thread's,
    /// reporting to the inbox, or the service thread's with a store whose writes never wait
    /// (`writesInline`). The writes between releases go as batches; each release runs after the
    /// writes before it.
    func run(_ tasks: [Task], report: (Hub.Event) -> Void) {
        var jobs: [Job] = []
        for task in tasks {
            switch task {
            case .write(let job): jobs.append(job)
            case .release(let board):
                if !jobs.isEmpty { write(jobs, report: report) }
                jobs.removeAll()
                release(board, report: report)
            }
        }
        if !jobs.isEmpty { write(jobs, report: report) }
    }

    func release(_ board: BoardID, report: (Hub.Event) -> Void) {
        // The board left memory: what the writer keeps of it goes too.
        store.forget(board)
        if let cluster {
            do throws(StoreError) {
                try cluster.release(board)
            } catch {
                // The lease then runs out by itself within one lease.
                log.warning("releasing the lease of board \(board) failed: \(error.message)")
            }
        }
        report(.released(board))
    }

    /// One transaction for everything queued; on a permanent failure, one per board.
    func write(_ jobs: [Job], report: (Hub.Event) -> Void) {
        let batch = Batch(jobs)
        switch commit(batch) {
        case .committed:
            report(.durable(seqs: batch.seqs, tickets: batch.tickets))
        case .dropped(let error):
            dropped(batch, error)
        case .failed(let error):
            let parts = batch.splitByBoard()
            guard parts.count > 1 else { return failed(batch, error, report: report) }
            log.warning(
                "store write of \(parts.count) boards failed (\(error.message)); writing each board on its own")
            var durable = Batch([])
            for part in parts {
                switch commit(part) {
                case .committed: durable.append(part)
                case .failed(let error): failed(part, error, report: report)
                case .dropped(let error): dropped(part, error)
                }
            }
            if !durable.jobs.isEmpty { report(.durable(seqs: durable.seqs, tickets: durable.tickets)) }
        }
    }

    private enum Outcome {
        case committed
        /// A permanent failure: the same write would fail again.
        case failed(StoreError)
        /// A transient failure still there when stopping gave up on it.
        case dropped(StoreError)
    }

    /// Writes `batch`, retrying transient failures with backoff (bounded once stopping).
    private func commit(_ batch: Batch) -> Outcome {
        var delay = Duration.milliseconds(50)
        while true {
            let started = ContinuousClock.now
            do throws(StoreError) {
                try store.write(batch.writes)
                let seconds = (ContinuousClock.now - started).timeInterval
                measured.withLock {
                    $0.writeSeconds.observe(seconds)
                    $0.batchWrites.observe(Double(batch.size))
                    $0.failing = false
                }
                return .committed
            } catch {
                let seconds = (ContinuousClock.now - started).timeInterval
                measured.withLock {
                    $0.writeSeconds.observe(seconds)
                    if error.kind != .transient {
                        $0.permanentFailures += 1
                    } else {
                        $0.transientFailures += 1
                        $0.failing = true
                    }
                }
                // Permanent or fenced: the same write would fail again.
                if error.kind != .transient { return .failed(error) }
                var wait = delay
                if let deadline = deadline.withLock({ $0 }) {
                    let left = deadline - .now
                    if left <= .zero { return .dropped(error) }
                    wait = min(wait, left)
                }
                // Nothing in the batch has been acknowledged, so retrying is safe; the clients
                // simply wait longer for their acks.
                log.error("store write failed, retrying in \(wait.seconds)s: \(error.message)")
                _ = interrupt.wait(timeout: .now() + wait.timeInterval)
                // At most a second apart: once the disk has room again or the database is back,
                // what waits commits within a second (the full-disk and failover tests measure it).
                delay = min(delay * 2, .seconds(1))
            }
        }
    }

    /// Reports a one-board batch that failed permanently (or was fenced).
    private func failed(_ part: Batch, _ error: StoreError, report: (Hub.Event) -> Void) {
        guard let board = part.boards.first else { return }
        if error.kind == .fenced {
            log.warning(
                "store write for board \(board) was fenced (this node no longer holds its lease); failing "
                    + "\(part.summary), which were never acknowledged: \(error.message)")
        } else {
            log.error(
                "store write for board \(board) failed and cannot succeed on retry; failing \(part.summary), "
                    + "which were never acknowledged: \(error.message)")
        }
        report(
            .writeFailed(
                Hub.WriteFailure(
                    board: board, writes: part.writes, tickets: part.tickets, reason: error.message, kind: error.kind))
        )
    }

    private func dropped(_ batch: Batch, _ error: StoreError) {
        log.error(
            "shutting down: dropped \(batch.summary) that could not be stored within \(stopRetry.seconds)s "
                + "(never acknowledged): \(error.message)")
    }
}

/// Writes taken from the queue together, with consecutive appends to one board merged.
struct Batch {
    private(set) var jobs: [Persister.Job] = []
    /// What goes to the store, in order.
    private(set) var writes: [StoreWrite] = []

    init(_ jobs: [Persister.Job]) {
        for job in jobs { append(job) }
    }

    mutating func append(_ job: Persister.Job) {
        jobs.append(job)
        if case .append(let board, let ops) = job.write, case .append(let last, var lastOps)? = writes.last,
            last == board
        {
            writes.removeLast()
            lastOps.append(contentsOf: ops)
            writes.append(.append(board, lastOps))
        } else {
            writes.append(job.write)
        }
    }

    mutating func append(_ other: Batch) {
        for job in other.jobs { append(job) }
    }

    /// The tickets, in submission order.
    var tickets: [Ticket] { jobs.compactMap(\.ticket) }

    /// The writes in it: each op, creation and deletion counts one.
    var size: Int {
        writes.reduce(0) { total, write in
            if case .append(_, let ops) = write { total + ops.count } else { total + 1 }
        }
    }

    /// The last seq appended per board.
    var seqs: [BoardID: Seq] {
        var seqs: [BoardID: Seq] = [:]
        for case .append(let board, let ops) in writes {
            // One lookup of the board (the dictionary's modify), not two.
            if let last = ops.last { Self.raise(&seqs[board, default: 0], to: last.seq) }
        }
        return seqs
    }

    private static func raise(_ seq: inout Seq, to last: Seq) { seq = max(seq, last) }

    /// The boards written, in order of first appearance.
    var boards: [BoardID] {
        var seen = Set<BoardID>()
        return writes.map(\.boardID).filter { seen.insert($0).inserted }
    }

    /// One batch per board, each in submission order. Writes to different boards never depend
    /// on each other, so committing them separately keeps every board's order.
    func splitByBoard() -> [Batch] {
        let order = boards
        var parts: [BoardID: Batch] = [:]
        for job in jobs { parts[job.write.boardID, default: Batch([])].append(job) }
        return order.compactMap { parts[$0] }
    }

    /// "the creation of b1, 3 op(s) (seq 1…3)", for log lines.
    var summary: String {
        var ops: [CommittedOp] = []
        var others: [String] = []
        for write in writes {
            switch write {
            case .append(_, let more): ops += more
            case .create(let board): others.append("the creation of \(board.id)")
            case .delete(let id): others.append("the deletion of \(id)")
            case .restore(let archive): others.append("the import of \(archive.id)")
            }
        }
        var parts = others
        if let first = ops.first, let last = ops.last {
            parts.append("\(ops.count) op(s) (seq \(first.seq)…\(last.seq))")
        }
        return parts.isEmpty ? "nothing" : parts.joined(separator: ", ")
    }
}
