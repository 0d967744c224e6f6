internal import BoardCore
import Foundation

/// The service thread's one clock: every reading the transport and its log take goes through
/// here, as a typed value (`Instant` for timers, `UnixTime` for commit times, log lines and the
/// start time in `/metrics`, `Clock.Reading` for hover pacing, microseconds for the thread's CPU
/// time). The hub is given `now()` and `wall()`; it reads no clock itself. Not through here: the
/// waits of the other threads, which set deadlines on their own (the writer's retries and its
/// stop in `Persister`, the lease keeper's renewals, `Server.stop`'s wait: `ContinuousClock` and
/// Dispatch timeouts), and the one wall-clock read of the revocations before the server serves
/// (`Service.revocations`).
enum Clock {
    /// A clock in microseconds: by default the monotonic one (for pacing hovers; `Pacer` sets
    /// its timer on it), or `CLOCK_THREAD_CPUTIME_ID` for the service thread's busy time.
    static func microseconds(_ clock: clockid_t = CLOCK_MONOTONIC) -> UInt64 {
        var t = timespec()
        clock_gettime(clock, &t)
        return UInt64(t.tv_sec) * 1_000_000 + UInt64(t.tv_nsec) / 1000
    }

    /// The monotonic clock to the microsecond, for pacing hovers (`Feed`, `Pacer`).
    static func reading() -> Reading { Reading(microseconds: microseconds()) }

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

    /// How long `work` took on the monotonic clock, in microseconds, and what it returned.
    static func timed<T>(_ work: () -> T) -> (result: T, microseconds: UInt64) {
        let start = microseconds()
        let result = work()
        return (result, microseconds() &- start)
    }
}

extension Clock {
    /// A reading of the monotonic clock in microseconds: finer than `Instant`'s milliseconds, for
    /// pacing hovers (a pacing interval is a couple of milliseconds, its slack 100 µs). Zero is
    /// the clock's origin, earlier than any reading. Never stored or sent.
    struct Reading: Comparable {
        /// Microseconds since the clock's origin (`CLOCK_MONOTONIC`'s, about the machine's boot).
        var microseconds: UInt64

        /// The clock's origin.
        static let zero = Reading(microseconds: 0)

        /// Earlier readings come first.
        static func < (a: Reading, b: Reading) -> Bool { a.microseconds < b.microseconds }

        /// The reading `span` later.
        static func + (reading: Reading, span: Span) -> Reading {
            Reading(microseconds: reading.microseconds &+ span.microseconds)
        }

        /// How long after `b` `a` is (wrapping when it is before, as the unsigned count it is:
        /// `Feed` starts from the origin, before any reading).
        static func - (a: Reading, b: Reading) -> Span { Span(microseconds: a.microseconds &- b.microseconds) }

        /// A stretch of `Reading`s, in microseconds: a setting's `Duration` converted once, at
        /// start (`--hover-pacing`), so that pacing on the broadcast path adds and compares integers.
        struct Span: Comparable {
            /// The microseconds.
            var microseconds: UInt64

            /// No time.
            static let zero = Span(microseconds: 0)

            /// `duration` to the microsecond, rounded toward zero (a negative one is zero).
            init(_ duration: Duration) {
                let (seconds, attoseconds) = duration.components
                let total = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
                microseconds = UInt64(max(total, 0))
            }

            /// A span of `microseconds`.
            init(microseconds: UInt64) { self.microseconds = microseconds }

            /// Shorter spans come first.
            static func < (a: Span, b: Span) -> Bool { a.microseconds < b.microseconds }
        }
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

    /// In whole seconds, rounded up, for lws's timeouts (which count seconds).
    var wholeSeconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) + (attoseconds > 0 ? 1 : 0)
    }
}
