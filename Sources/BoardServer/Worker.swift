internal import CLibWebSockets
import Foundation
import Synchronization

/// A thread of its own that takes everything queued for it at once and works through it as one
/// batch: the store's writer (one transaction per batch) and reader run on one each.
final class Worker<Job: Sendable>: Sendable {
    /// What `stop()` does with jobs not yet taken.
    enum Leftovers {
        /// Work them off first (writes: they may have been promised).
        case finish
        /// Drop them (reads: nobody will wait for the answers).
        case drop
    }

    private struct State {
        var jobs: [Job] = []
        var stopping = false
    }

    private let name: String
    private let leftovers: Leftovers
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, leftovers: Leftovers) {
        self.name = name
        self.leftovers = leftovers
    }

    /// Starts the thread; `work` runs on it with each batch, oldest job first.
    func start(_ work: @escaping @Sendable ([Job]) -> Void) {
        let thread = Thread { [self] in run(work) }
        thread.name = name
        thread.start()
    }

    /// Queues a job.
    func submit(_ job: Job) {
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Stops the thread, finishing or dropping what is queued; returns once it has ended.
    func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
        finished.wait()
    }

    private func run(_ work: ([Job]) -> Void) {
        // Foundation keeps a Thread's name to itself on Linux: the kernel's (top -H, /proc) is set
        // here, cut to its first 15 bytes (`shuffleboard-re`, `-wr`, `-en`).
        shuffleboard_name_thread(name)
        while true {
            wake.wait()
            let (batch, stopping) = state.withLock { state in
                defer { state.jobs.removeAll() }
                return (state.jobs, state.stopping)
            }
            if !batch.isEmpty && !(stopping && leftovers == .drop) { work(batch) }
            if stopping {
                finished.signal()
                return
            }
        }
    }
}
