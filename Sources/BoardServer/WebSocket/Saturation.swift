import Glibc

/// Whether the service thread is saturated: busy (on a core, not waiting in `poll`) for at least
/// `threshold` of the last tick (95%), and until it is busy for less than 10 points below that
/// (so that pacing, which lowers the load, does not turn itself off and on at every tick); with
/// a threshold of 0, always. Sampled on the service thread.
struct Saturation {
    private(set) var saturated: Bool
    /// The busy share of the last tick.
    private(set) var busy = 0.0
    private let threshold: Double
    private var cpu: UInt64 = 0
    private var wall: UInt64 = 0

    init(threshold: Double) {
        self.threshold = threshold
        saturated = threshold <= 0
    }

    /// Samples the thread's CPU clock and the monotonic clock (on the service thread).
    mutating func sample() {
        record(cpu: Clock.microseconds(CLOCK_THREAD_CPUTIME_ID), wall: Clock.microseconds())
    }

    /// One sample: the thread's CPU time and the wall time, in microseconds.
    mutating func record(cpu: UInt64, wall: UInt64) {
        defer { (self.cpu, self.wall) = (cpu, wall) }
        guard self.wall != 0, wall > self.wall else { return }
        busy = Double(cpu &- self.cpu) / Double(wall - self.wall)
        saturated = saturated ? busy >= threshold - 0.1 : busy >= threshold
    }
}
