import BoardHub
import Dispatch
import Synchronization

/// The events a persister or a renewal thread reports, from any thread, as they come.
final class Reports: Sendable {
    private let events = Mutex<[Hub.Event]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func post(_ event: Hub.Event) {
        events.withLock { $0.append(event) }
        arrived.signal()
    }

    /// The next `count` events, or fewer if they do not come within `timeout` seconds.
    func next(_ count: Int, timeout: Double = 10) -> [Hub.Event] {
        let deadline = DispatchTime.now() + timeout
        for _ in 0..<count where arrived.wait(timeout: deadline) == .timedOut { break }
        return events.withLock { events in
            defer { events.removeFirst(min(count, events.count)) }
            return Array(events.prefix(count))
        }
    }

    /// The next event, or nil when none comes within `timeout` seconds.
    func next(timeout: Double = 10) -> Hub.Event? { next(1, timeout: timeout).first }
}
