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
final class Persister: Sendable {
    private struct State {
        var queue: [StoreWrite] = []
        var tickets: [Ticket] = []
        var stopping = false
    }

    private let store: any BoardStore
    private let inbox: Inbox<Hub.Event>
    private let log: Logger
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(store: any BoardStore, inbox: Inbox<Hub.Event>, log: Logger) {
        self.store = store
        self.inbox = inbox
        self.log = log
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "shuffleboard-writer"
        thread.start()
    }

    /// Queues a write; `ticket`, when given, is reported back once the write is durable.
    func submit(_ write: StoreWrite, ticket: Ticket? = nil) {
        state.withLock { state in
            // Consecutive appends to one board become one write, extended in place.
            if case .append(let board, let ops) = write, case .append(let lastBoard, var lastOps)? = state.queue.last,
                lastBoard == board
            {
                state.queue.removeLast()
                lastOps.append(contentsOf: ops)
                state.queue.append(.append(board, lastOps))
            } else {
                state.queue.append(write)
            }
            if let ticket { state.tickets.append(ticket) }
        }
        wake.signal()
    }

    /// Writes what is queued, then stops the thread.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            wake.wait()
            let (batch, tickets, stopping) = state.withLock { state in
                defer {
                    state.queue.removeAll()
                    state.tickets.removeAll()
                }
                return (state.queue, state.tickets, state.stopping)
            }
            if !batch.isEmpty || !tickets.isEmpty { write(batch, tickets: tickets) }
            if stopping {
                finished.signal()
                return
            }
        }
    }

    private func write(_ batch: [StoreWrite], tickets: [Ticket]) {
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
