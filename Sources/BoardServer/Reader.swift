internal import Basics
internal import BoardHub
internal import BoardReads
internal import BoardStore
internal import LWSSupport
import Synchronization

/// The store's reader thread: loads, existence checks, board lists and op pages (encoded there
/// as their HTTP answers), so that no read of the disk ever runs on the service thread. Answers
/// go back through the inbox, in order. The hub describes each read (`StoreRead`); what the
/// reader asks the store for it is in BoardReads (StoreRead+Run.swift).
///
/// Two queues: the reads joins wait for (`StoreRead.waitsBehindJoins` false: a load, an
/// existence check, a claim) go before every other read queued (history, pages, lists,
/// snapshots), so a join waits at most for the one read in progress, however many history reads
/// are queued (`shuffleboard-bench history-joins` measures it). Each queue keeps its order.
///
/// A second one, the encoder, takes the reads that ask nothing of the store
/// (`StoreRead.encodeSnapshot`): a board's snapshot is megabytes of JSON for a large board, and
/// neither the service thread nor the joins waiting for the store should wait for it.
final class Reader: Sendable {
    /// The store, and what it can do besides reads (found once, when the server started).
    private let store: StoreCapabilities
    /// Where answers go: the service thread's inbox.
    private let deliver: @Sendable (ReadID, StoreAnswer) -> Void
    private let worker: Worker<(ReadID, StoreRead)>
    /// The reads submitted and not yet run: one cancelled (`cancel`) is taken out, and then
    /// skipped when its turn comes.
    private let queued = Mutex(Set<ReadID>())

    convenience init(store: StoreCapabilities, inbox: Inbox<Hub.Event>, name: String = "shuffleboard-reader") {
        self.init(store: store, name: name) { id, answer in inbox.post(.answered(id, answer)) }
    }

    /// A reader of a test's store whose answers go to `deliver` (instead of an inbox).
    convenience init(store: any BoardStore, name: String, deliver: @escaping @Sendable (ReadID, StoreAnswer) -> Void) {
        self.init(store: StoreCapabilities(store), name: name, deliver: deliver)
    }

    /// A reader whose answers go to `deliver`.
    init(store: StoreCapabilities, name: String, deliver: @escaping @Sendable (ReadID, StoreAnswer) -> Void) {
        self.store = store
        self.deliver = deliver
        worker = Worker(name: name, leftovers: .drop)
    }

    func start() {
        worker.startLoop { [self] in
            // Only this thread touches the two queues.
            var first = FIFO<(ReadID, StoreRead)>()
            var later = FIFO<(ReadID, StoreRead)>()
            while true {
                let (jobs, stopping) = worker.take()
                // What is still queued is dropped: nobody will wait for the answers.
                if stopping { return }
                for job in jobs {
                    if job.1.waitsBehindJoins { later.append(job) } else { first.append(job) }
                }
                guard let (id, read) = first.popFirst() ?? later.popFirst() else {
                    // A submit after `take` left a byte in the pipe: this returns at once then.
                    worker.wait()
                    continue
                }
                guard queued.withLock({ $0.remove(id) != nil }) else { continue }
                deliver(id, read.run(on: store))
            }
        }
    }

    /// Queues a read; its answer is posted as `.answered(id, …)`.
    func submit(_ read: StoreRead, id: ReadID) {
        queued.withLock { _ = $0.insert(id) }
        worker.submit((id, read))
    }

    /// Drops the read `id` if it has not begun; its answer is never posted then.
    func cancel(_ id: ReadID) { queued.withLock { _ = $0.remove(id) } }

    /// Drops what is still queued and stops the thread once the read in progress is done.
    func stop() { worker.stop() }
}
