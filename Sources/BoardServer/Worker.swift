internal import CLibWebSockets
import Foundation
import Glibc
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
    /// A pipe written a byte on each submit and on stop, so that a thread can wait for jobs and
    /// for another descriptor at once (`wait(orReadable:timeout:)`). Both ends are nonblocking:
    /// a full pipe is readable already.
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)

    init(name: String, leftovers: Leftovers) {
        self.name = name
        self.leftovers = leftovers
        var ends: [Int32] = [-1, -1]
        // Only out of descriptors could this fail, and a server cannot start then.
        precondition(pipe(&ends) == 0, "pipe failed: errno \(errno)")
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wake = (ends[0], ends[1])
    }

    deinit {
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    /// Starts the thread; `work` runs on it with each batch, oldest job first.
    func start(_ work: @escaping @Sendable ([Job]) -> Void) {
        let thread = Thread { [self] in run(work) }
        thread.name = name
        thread.start()
    }

    /// Starts the thread with a loop of its own, which takes jobs with `take` and waits with
    /// `wait(orReadable:timeout:)`; `stop()` returns once it has returned.
    func startLoop(_ loop: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            shuffleboard_name_thread(name)
            loop()
            finished.signal()
        }
        thread.name = name
        thread.start()
    }

    /// Queues a job.
    func submit(_ job: Job) {
        state.withLock { $0.jobs.append(job) }
        signal()
    }

    /// Stops the thread, finishing or dropping what is queued; returns once it has ended.
    func stop() {
        state.withLock { $0.stopping = true }
        signal()
        finished.wait()
    }

    /// Every job queued, oldest first, and whether `stop()` was called.
    func take() -> (jobs: [Job], stopping: Bool) {
        state.withLock { state in
            defer { state.jobs.removeAll() }
            return (state.jobs, state.stopping)
        }
    }

    /// Waits until a job is queued or `stop()` is called (since the last wait), or `descriptor`
    /// (unless -1) is readable, or `timeout` passes.
    func wait(orReadable descriptor: Int32 = -1, timeout: Duration? = nil) {
        var fds = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        if descriptor >= 0 { fds.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = timeout.map { Int32(clamping: Int64($0.timeInterval * 1000)) } ?? -1
        _ = poll(&fds, nfds_t(fds.count), milliseconds)
        // Empties the pipe (nonblocking: returns at once when it is empty).
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &bytes, bytes.count) == bytes.count {}
    }

    private func signal() {
        var one: UInt8 = 1
        _ = write(wake.write, &one, 1)
    }

    private func run(_ work: ([Job]) -> Void) {
        // Foundation keeps a Thread's name to itself on Linux: the kernel's (top -H, /proc) is set
        // here, cut to its first 15 bytes (`shuffleboard-re`, `-wr`, `-en`).
        shuffleboard_name_thread(name)
        while true {
            wait()
            let (batch, stopping) = take()
            if !batch.isEmpty && !(stopping && leftovers == .drop) { work(batch) }
            if stopping {
                finished.signal()
                return
            }
        }
    }
}
