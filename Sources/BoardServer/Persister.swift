internal import BoardCore
internal import BoardHub
internal import BoardStore
import Foundation
internal import LWSSupport

/// The store's writer thread, with group commit.
///
/// The service thread submits writes without waiting. The writer takes everything queued, writes
/// it in one transaction, and reports the durable seqs back through the inbox; whatever arrives
/// while a transaction is being synced goes into the next one.
final class Persister: Sendable {
    private let store: any BoardStore
    private let inbox: Inbox<Hub.Event>
    private let log: Logger
    private let worker = Worker<(StoreWrite, Ticket?)>(name: "shuffleboard-writer", leftovers: .finish)

    init(store: any BoardStore, inbox: Inbox<Hub.Event>, log: Logger) {
        self.store = store
        self.inbox = inbox
        self.log = log
    }

    func start() {
        worker.start { [self] jobs in write(jobs) }
    }

    /// Queues a write; `ticket`, when given, is reported back once the write is durable.
    func submit(_ write: StoreWrite, ticket: Ticket? = nil) { worker.submit((write, ticket)) }

    /// Writes what is queued, then stops the thread.
    func stop() { worker.stop() }

    /// One transaction for everything queued. Consecutive appends to one board become one write.
    private func write(_ jobs: [(StoreWrite, Ticket?)]) {
        var batch: [StoreWrite] = []
        var tickets: [Ticket] = []
        for (write, ticket) in jobs {
            if let ticket { tickets.append(ticket) }
            if case .append(let board, let ops) = write, case .append(let last, var lastOps)? = batch.last,
                last == board
            {
                batch.removeLast()
                lastOps.append(contentsOf: ops)
                batch.append(.append(board, lastOps))
            } else {
                batch.append(write)
            }
        }
        var delay = 0.05
        while true {
            do {
                try store.write(batch)
                break
            } catch {
                // Nothing in the batch has been acknowledged, so retrying is safe; the clients
                // simply wait longer for their acks.
                log.error("store write failed, retrying in \(delay)s: \(error.message)")
                Thread.sleep(forTimeInterval: delay)
                delay = min(delay * 2, 5)
            }
        }
        var seqs: [BoardID: Seq] = [:]
        for write in batch {
            if case .append(let board, let ops) = write, let last = ops.last {
                seqs[board] = max(seqs[board] ?? 0, last.seq)
            }
        }
        inbox.post(.durable(seqs: seqs, tickets: tickets))
    }
}
