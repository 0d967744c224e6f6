internal import BoardCore
internal import CLibWebSockets
import Synchronization

/// The only door into the service thread from other threads: post an event, then wake lws.
///
/// Wake-ups through `lws_cancel_service` merge, so the service thread drains everything on
/// each `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
final class Inbox: Sendable {
    enum Event: Sendable {
        /// The store made these boards durable up to these seqs; these tickets are done.
        case durable(seqs: [BoardID: Seq], tickets: [UInt64])
        /// Time passed: expire holds, watch the shutdown deadline.
        case tick
        /// Close everything with 1001 and stop.
        case shutdown
    }

    private let events = Mutex<[Event]>([])
    /// The context to wake. Set once the context exists, cleared before it is destroyed.
    /// Kept as an address: the pointer itself is not Sendable, and only `lws_cancel_service`,
    /// which is safe from any thread, is ever called with it.
    private let context = Mutex<UInt>(0)

    func attach(_ context: OpaquePointer?) {
        let address = context.map { UInt(bitPattern: UnsafeRawPointer($0)) } ?? 0
        self.context.withLock { $0 = address }
    }

    func post(_ event: Event) {
        events.withLock { $0.append(event) }
        // Holding the lock while waking makes detach() wait for a wake in progress.
        context.withLock { address in
            if let pointer = OpaquePointer(bitPattern: address) { lws_cancel_service(pointer) }
        }
    }

    func drain() -> [Event] {
        events.withLock { events in
            defer { events.removeAll(keepingCapacity: true) }
            return events
        }
    }
}
