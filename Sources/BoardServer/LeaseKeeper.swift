internal import BoardCore
internal import BoardHub
internal import BoardStore
import Foundation
internal import LWSSupport
import Synchronization

/// A cluster node's renewal thread: every third of a lease it renews the node's leases in the
/// store (`renew`, one statement) and reads which nodes are alive, then tells the hub which boards
/// it still holds and until when (`.leases`).
///
/// The time the leases hold until is taken from the monotonic clock *before* the renewal is sent:
/// the store extends each lease from a moment after that, so the node never believes in a lease
/// longer than the store grants it. A renewal that fails posts nothing; the hub then drops every
/// board once the last renewal's time is up. Failures are logged when they begin, then at most
/// every 10 s while they go on, and once more when renewing works again.
final class LeaseKeeper: Sendable {
    private let store: any ClusterStore
    private let report: @Sendable (Hub.Event) -> Void
    private let log: Logger
    private let interval: Duration
    private let lease: Int64
    /// Signalled by `stop()`: cuts the wait short and ends the thread.
    private let stopping = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// When the last renewal that succeeded was sent (at first: when the keeper was made).
    private let lastRenewal = Mutex(ContinuousClock.now)

    /// A keeper of `store`'s leases that reports to `report` (from its own thread).
    init(store: any ClusterStore, log: Logger, report: @escaping @Sendable (Hub.Event) -> Void) {
        self.store = store
        self.log = log
        self.report = report
        lease = Int64(store.leaseSeconds * 1000)
        interval = .milliseconds(max(lease / 3, 1))
    }

    /// A keeper that reports to the service thread's inbox.
    convenience init(store: any ClusterStore, inbox: Inbox<Hub.Event>, log: Logger) {
        self.init(store: store, log: log) { event in inbox.post(event) }
    }

    /// Whether no renewal has succeeded for longer than a lease: the database is away, or does not
    /// commit (a synchronous standby that is away), or answers too slowly. The node then holds no
    /// board (the hub has dropped them) and cannot claim one: `/readyz` says `leases_lapsed`.
    var lapsed: Bool {
        let last = lastRenewal.withLock { $0 }
        return ContinuousClock.now - last > .milliseconds(lease)
    }

    /// Starts the thread; the first renewal is at once.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "shuffleboard-leases"
        thread.start()
    }

    /// Ends the thread (after the renewal in progress, if any); returns once it has.
    func stop() {
        stopping.signal()
        finished.wait()
    }

    /// Gives up every lease this node still holds: for the very end of shutdown, once nothing is
    /// written any more, so that other nodes take the boards at once.
    func releaseAll() {
        do throws(StoreError) {
            for id in try store.renew().sorted() { try store.release(id) }
        } catch {
            log.warning(
                "releasing this node's leases at shutdown failed (they run out by themselves): \(error.message)")
        }
    }

    private func run() {
        var failures = 0
        var lastLogged: ContinuousClock.Instant?
        repeat {
            let start = Clock.now()
            let sent = ContinuousClock.now
            do throws(StoreError) {
                let held = try store.renew()
                lastRenewal.withLock { $0 = sent }
                let alive = Set(try store.nodes().filter(\.alive).map(\.name))
                report(.leases(held: held, validUntil: start + lease, alive: alive))
                if failures > 0 {
                    log.info("renewing this node's leases works again after \(failures) failed attempt(s)")
                    failures = 0
                    lastLogged = nil
                }
            } catch {
                failures += 1
                if lastLogged.map({ ContinuousClock.now - $0 >= .seconds(10) }) ?? true {
                    lastLogged = .now
                    log.error(
                        "renewing this node's leases failed (\(failures) time(s) in a row); its boards are dropped "
                            + "once the last renewal's lease is up: \(error.message)")
                }
            }
        } while stopping.wait(timeout: .now() + interval.timeInterval) == .timedOut
        finished.signal()
    }
}
