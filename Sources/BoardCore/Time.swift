// Two clocks, two types: a monotonic reading can never be stored as a commit time, nor a wall-clock
// time compared against a hold's idle timer. BoardCore reads neither clock; the server passes
// readings in.

/// A reading of the monotonic clock, in milliseconds: for hold expiry and other timers; never stored or sent.
package struct Instant: Comparable, Hashable, Sendable {
    /// Milliseconds since the clock's arbitrary origin (for `CLOCK_MONOTONIC`, about the machine's boot).
    package var milliseconds: Int64

    /// The reading `milliseconds` after the clock's origin.
    package init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Earlier readings come first.
    package static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }

    /// The reading `milliseconds` later.
    package static func + (instant: Instant, milliseconds: Int64) -> Instant {
        Instant(milliseconds: instant.milliseconds + milliseconds)
    }

    /// How many milliseconds `b` is before `a` (negative when it is after).
    package static func - (a: Instant, b: Instant) -> Int64 { a.milliseconds - b.milliseconds }
}

/// Wall-clock time in milliseconds since 1970-01-01 UTC: what `CommittedOp.time` records.
package struct UnixTime: Comparable, Hashable, Sendable {
    /// Milliseconds since 1970-01-01 00:00 UTC.
    package var milliseconds: Int64

    /// The time `milliseconds` after 1970-01-01 00:00 UTC.
    package init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// Earlier times come first.
    package static func < (a: UnixTime, b: UnixTime) -> Bool { a.milliseconds < b.milliseconds }
}
