internal import BoardCore
import Foundation

/// The server's one clock: every reading the transport (and its log) takes goes through here, as
/// a typed value (`Instant` for timers, `UnixTime` for commit times and log lines, microseconds
/// for hover pacing and the thread's CPU time), and every `Duration` becomes seconds here. The
/// hub is given `now()` and `wall()`; it reads no clock itself.
enum Clock {
    /// A clock in microseconds: by default the monotonic one (for pacing hovers; `Pacer` sets
    /// its timer on it), or `CLOCK_THREAD_CPUTIME_ID` for the service thread's busy time.
    static func microseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
    }

    /// The monotonic clock, for timers.
    static func now() -> Instant {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Instant(milliseconds: Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000)
    }

    /// The wall clock, for committed ops' `time`.
    static func wall() -> UnixTime {
        var t = timespec()
        clock_gettime(CLOCK_REALTIME, &t)
        return UnixTime(milliseconds: Int64(t.tv_sec) * 1000 + Int64(t.tv_nsec) / 1_000_000)
    }

    /// A setting in seconds (as the command line gives it) as the milliseconds `Instant` counts.
    static func milliseconds(_ seconds: Double) -> Int64 { Int64(seconds * 1000) }

    /// How long `work` took on the monotonic clock, in microseconds, and what it returned.
    static func timed<T>(_ work: () -> T) -> (result: T, microseconds: UInt64) {
        let start = microseconds()
        let result = work()
        return (result, microseconds() &- start)
    }
}

/// A `Duration` as the other APIs want it: Dispatch's seconds and nanoseconds, and log lines.
extension Duration {
    /// In seconds, for Dispatch.
    var timeInterval: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// In whole nanoseconds (for `DispatchTime`).
    var nanoseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }

    /// In seconds to the millisecond, for log lines.
    var seconds: String { String(format: "%.3g", timeInterval) }
}
