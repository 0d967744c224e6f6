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

extension Instant {
    /// A stretch of the monotonic clock in the milliseconds `Instant` counts: a setting's
    /// `Duration`, converted once when the setting is read, so that the timers on the service
    /// thread's paths add and compare integers (a `Duration` is 128-bit attoseconds).
    package struct Span: Comparable, Hashable, Sendable {
        /// The milliseconds.
        package var milliseconds: Int64

        /// A span of `milliseconds`.
        package init(milliseconds: Int64) { self.milliseconds = milliseconds }

        /// `duration` to the millisecond, rounded toward zero.
        package init(_ duration: Duration) {
            let (seconds, attoseconds) = duration.components
            milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        }

        /// No time.
        package static let zero = Span(milliseconds: 0)

        /// Shorter spans come first.
        package static func < (a: Span, b: Span) -> Bool { a.milliseconds < b.milliseconds }

        /// `count` times `span`.
        package static func * (count: Int64, span: Span) -> Span { Span(milliseconds: count * span.milliseconds) }
    }

    /// The reading `span` later.
    package static func + (instant: Instant, span: Span) -> Instant {
        Instant(milliseconds: instant.milliseconds + span.milliseconds)
    }

    /// The reading `span` earlier.
    package static func - (instant: Instant, span: Span) -> Instant {
        Instant(milliseconds: instant.milliseconds - span.milliseconds)
    }
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
