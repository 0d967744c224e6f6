internal import Basics

/// The service thread's record of one connection: the `struct lws *`, the
/// outgoing queue, the message being reassembled and how it closed.
///
/// Not Sendable: created, used and dropped only on the service thread, which
/// reaches it through `ClientService.sessions` by the id in lws' per-session data.
final class Session {
    /// What the WRITEABLE callback sends next: a frame, or the close that ends the queue.
    enum Outgoing {
        case frame(OutgoingFrame)
        case close(code: UInt16, reason: String)
    }

    let connection: ClientConnection
    let request: ClientService.ConnectRequest
    /// The per-session data handed to lws as `userdata`: just the connection id, never a Swift
    /// object pointer. lws does not free user data it did not allocate; `deinit` does, after
    /// `LWS_CALLBACK_WSI_DESTROY`, the last callback that sees it.
    let userData: UnsafeMutablePointer<UInt64>
    var wsi: OpaquePointer?
    var established = false
    /// The connection has been told how this session ended.
    var reported = false
    /// A close (or an abandon) is queued; later sends are dropped.
    var closeQueued = false
    var outbox = FIFO<Outgoing>()
    /// The frame last passed to `lws_write`, kept alive until the next WRITEABLE.
    var inFlight: OutgoingFrame?
    /// Fragments of the message being received.
    var incoming: [UInt8] = []
    var peerClose: (code: Int, reason: String)?
    var localClose: (code: Int, reason: String)?

    init(connection: ClientConnection, request: ClientService.ConnectRequest) {
        self.connection = connection
        self.request = request
        userData = .allocate(capacity: 1)
        userData.initialize(to: connection.id)
    }

    deinit {
        userData.deallocate()
    }
}
