import Synchronization

/// A clock that moves only when told (milliseconds): a `MemoryClusterDatabase`'s time in tests,
/// so that a lease runs out without waiting for it.
package final class ManualClock: Sendable {
    private let time: Mutex<Int64>

    /// A clock reading `start`.
    package init(_ start: Int64 = 0) { time = Mutex(start) }

    /// The time now.
    package var now: Int64 { time.withLock { $0 } }

    /// Moves the clock on.
    package func advance(_ milliseconds: Int64) { time.withLock { $0 += milliseconds } }
}
