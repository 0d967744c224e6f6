/// Continuations parked under their owner's lock, oldest first.
///
/// Whoever takes an entry out (a delivery, a timeout, a task cancellation)
/// is the one that resumes it; taking happens under the owner's lock, so each
/// continuation is resumed exactly once. Taking an entry also cancels its
/// timeout timer so timers do not pile up under high message rates.
struct Waiters<Value: Sendable> {
    typealias Continuation = CheckedContinuation<Value, any Error>

    private struct Entry {
        let id: UInt64
        let continuation: Continuation
        let timer: Timeout
    }

    private var entries: [Entry] = []

    var isEmpty: Bool { entries.isEmpty }

    mutating func park(id: UInt64, _ continuation: Continuation, timer: Timeout) {
        entries.append(Entry(id: id, continuation: continuation, timer: timer))
    }

    /// Takes the entry a timeout or cancellation belongs to, if it is still parked.
    mutating func take(id: UInt64) -> Continuation? {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return nil }
        let entry = entries.remove(at: index)
        entry.timer.cancel()
        return entry.continuation
    }

    /// Takes the oldest entry, for a delivery.
    mutating func takeFirst() -> Continuation? {
        guard !entries.isEmpty else { return nil }
        let entry = entries.removeFirst()
        entry.timer.cancel()
        return entry.continuation
    }

    /// Takes every entry, for a final outcome such as a close.
    mutating func takeAll() -> [Continuation] {
        let taken = entries
        entries.removeAll()
        return taken.map {
            $0.timer.cancel()
            return $0.continuation
        }
    }
}
