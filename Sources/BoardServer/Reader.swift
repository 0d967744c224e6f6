internal import BoardHub
internal import BoardStore
internal import LWSSupport

/// The store's reader thread: loads, existence checks, board lists and op pages (encoded there
/// as their HTTP answers), so that no read of the disk ever runs on the service thread. Answers
/// go back through the inbox, in order.
///
/// A second one, the encoder, takes the reads that ask nothing of the store
/// (`StoreRead.encodeSnapshot`): a board's snapshot is megabytes of JSON for a large board, and
/// neither the service thread nor the joins waiting for the store should wait for it.
final class Reader: Sendable {
    private let store: any BoardStore
    private let inbox: Inbox<Hub.Event>
    private let worker: Worker<(ReadID, StoreRead)>

    init(store: any BoardStore, inbox: Inbox<Hub.Event>, name: String = "shuffleboard-reader") {
        self.store = store
        self.inbox = inbox
        worker = Worker(name: name, leftovers: .drop)
    }

    func start() {
        worker.start { [store, inbox] batch in
            for (id, read) in batch { inbox.post(.answered(id, read.run(on: store))) }
        }
    }

    /// Queues a read; its answer is posted as `.answered(id, …)`.
    func submit(_ read: StoreRead, id: ReadID) { worker.submit((id, read)) }

    /// Drops what is still queued and stops the thread once the read in progress is done.
    func stop() { worker.stop() }
}
