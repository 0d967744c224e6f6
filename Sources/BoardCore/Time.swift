/// A reading of the monotonic clock, in milliseconds: for hold expiry and other timers; never stored or sent.
package struct Instant: Comparable, Hashable, Sendable {
    /// Milliseconds since an arbitrary start.
    package var milliseconds: Int64
    /// An instant.
    package init(milliseconds: Int64) { self.milliseconds = milliseconds }
    /// Orders instants.
    package static func < (a: Instant, b: Instant) -> Bool { a.milliseconds < b.milliseconds }
    /// `milliseconds` later.
    package static func + (a: Instant, milliseconds: Int64) -> Instant {
        Instant(milliseconds: a.milliseconds + milliseconds)
    }
}

/// Wall-clock time in milliseconds since 1970-01-01 UTC: what `CommittedOp.time` records.
package struct UnixTime: Comparable, Hashable, Sendable {
    /// Milliseconds since 1970-01-01 UTC.
    package var milliseconds: Int64
    /// A time.
    package init(milliseconds: Int64) { self.milliseconds = milliseconds }
    /// Orders times.
    package static func < (a: UnixTime, b: UnixTime) -> Bool { a.milliseconds < b.milliseconds }
}
