internal import CLibWebSockets
import Synchronization

/// The only door into an lws service thread from other threads: post an event, then wake lws.
///
/// Wake-ups through `lws_cancel_service` merge, so the service thread drains everything on
/// each `LWS_CALLBACK_EVENT_WAIT_CANCELLED`. Posting works only while a context is attached:
/// `detach()` takes the lock, so no wake-up can touch a context that is being destroyed.
package final class Inbox<Event: Sendable>: Sendable {
    private struct State: ~Copyable {
        var events: [Event] = []
        /// The context to wake, as an address: the pointer itself is not Sendable, and only
        /// `lws_cancel_service`, which is safe from any thread, is ever called with it.
        var context: UInt = 0
        /// Cleared by a closing post: later posts are refused.
        var open = true
    }

    private let state = Mutex(State())

    /// An inbox with no context yet: posts are refused until `attach`.
    package init() {}

    /// Accepts posts from now on, waking `context`.
    package func attach(_ context: OpaquePointer) {
        state.withLock { $0.context = UInt(bitPattern: UnsafeRawPointer(context)) }
    }

    /// Refuses posts from now on, and returns what was posted but not drained; call before
    /// destroying the context.
    package func detach() -> [Event] {
        state.withLock { state in
            state.context = 0
            state.open = false
            defer { state.events = [] }
            return state.events
        }
    }

    /// Queues `event` and wakes the service thread; false when no context is attached or a
    /// closing post came before. A `closing` post is the last one accepted.
    @discardableResult
    package func post(_ event: sending Event, closing: Bool = false) -> Bool {
        state.withLock { state in
            guard state.open, let context = OpaquePointer(bitPattern: state.context) else { return false }
            if closing { state.open = false }
            state.events.append(event)
            // A non-empty inbox already has a wake-up on its way; lws_cancel_service only writes
            // to a pipe, so calling it under the lock is cheap and cannot deadlock.
            if state.events.count == 1 { lws_cancel_service(context) }
            return true
        }
    }

    /// Everything posted since the last drain, oldest first.
    package func drain() -> [Event] {
        state.withLock { state in
            defer { state.events.removeAll(keepingCapacity: true) }
            return state.events
        }
    }
}
