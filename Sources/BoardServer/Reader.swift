internal import BoardHub
internal import BoardStore
import Foundation
internal import LWSSupport
import Synchronization

/// The store's reader thread: loads, existence checks, board lists and op pages, so that no read
/// of the disk ever runs on the service thread. Answers go back through the inbox, in order.
final class Reader: Sendable {
    private struct State {
        var queue: [(ReadID, StoreRead)] = []
        var stopping = false
    }

    private let store: any BoardStore
    private let inbox: Inbox<Hub.Event>
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(store: any BoardStore, inbox: Inbox<Hub.Event>) {
        self.store = store
        self.inbox = inbox
    }

    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "shuffleboard-reader"
        thread.start()
    }

    /// Queues a read; its answer is posted as `.answered(id, …)`.
    func submit(_ read: StoreRead, id: ReadID) {
        state.withLock { $0.queue.append((id, read)) }
        wake.signal()
    }

    /// Drops what is still queued and stops the thread once the read in progress is done.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    private func run() {
        while true {
            wake.wait()
            let (batch, stopping) = state.withLock { state in
                defer { state.queue.removeAll() }
                return (state.queue, state.stopping)
            }
            if stopping {
                finished.signal()
                return
            }
            for (id, read) in batch { inbox.post(.answered(id, read.run(on: store))) }
        }
    }
}
