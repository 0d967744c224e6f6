import Dispatch

/// A one-shot timer for a parked wait, cancellable so that finished waits do
/// not leave timers behind.
///
/// `@unchecked Sendable`: the only stored property is a `let` dispatch source,
/// and dispatch sources are safe to resume and cancel from any thread.
final class Timeout: @unchecked Sendable {
    private let source: DispatchSourceTimer

    /// Creates the timer suspended; call `start()` exactly once, even if it was cancelled.
    init(after duration: Duration, handler: @escaping @Sendable () -> Void) {
        source = DispatchSource.makeTimerSource(queue: .global())
        source.schedule(deadline: .now() + .nanoseconds(Self.nanoseconds(duration)))
        source.setEventHandler(handler: handler)
    }

    /// Arms the timer. A suspended dispatch source must not be released, so this always runs.
    func start() {
        source.resume()
    }

    /// Disarms the timer; its handler will not run.
    func cancel() {
        source.cancel()
    }

    /// `duration` in nanoseconds, clamped to 0...one year so the arithmetic cannot overflow.
    static func nanoseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        if seconds < 0 { return 0 }
        if seconds > 365 * 24 * 3600 { return 365 * 24 * 3600 * 1_000_000_000 }
        return Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
    }
}
