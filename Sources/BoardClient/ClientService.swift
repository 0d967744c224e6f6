internal import CLibWebSockets
import Foundation
internal import LWSSupport
import Synchronization

/// The libwebsockets client context and the one thread that services it.
///
/// Threads: the service thread owns the `lws_context`, every `struct lws *` and
/// `sessions`; it runs `lws_service` and every lws callback. Other threads reach
/// it only through `post`, which appends to the `Inbox` (LWSSupport) and calls
/// `lws_cancel_service`; the inbox is drained on `LWS_CALLBACK_EVENT_WAIT_CANCELLED`.
///
/// `@unchecked Sendable`: `inbox` is thread-safe; `sessions` and
/// `stopping` are touched only on the service thread (asserted in debug builds);
/// `context`, `protocols` and `thread` are written once in `init`, before the
/// thread starts and before `init` returns, and only read afterwards.
final class ClientService: @unchecked Sendable {
    /// One request from another thread to the service thread.
    enum Command: Sendable {
        case connect(ClientConnection, ConnectRequest)
        case send(UInt64, [OutgoingFrame])
        case close(UInt64, code: UInt16, reason: String)
        case abandon(UInt64)
        case shutdown
    }

    /// Where `ClientLoop.connect` wants to go.
    struct ConnectRequest: Sendable {
        let host: String
        let port: Int
        let path: String
        let subprotocol: String?
    }

    /// Attached once the context exists; `detach()` runs before the context is destroyed, so no
    /// wake-up can touch a dead context.
    private let inbox = Inbox<Command>()
    private let nextConnectionID = Atomic<UInt64>(0)
    /// Entered before the thread starts, left once the context is destroyed.
    private let stopped = DispatchGroup()
    /// `protocols[0]` is the only protocol; lws keeps pointing at this array, so it lives as long as `self`.
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private let protocolName: UnsafeMutablePointer<CChar>
    private var context: OpaquePointer?
    private var thread: Thread?

    // Service thread only.
    private var sessions: [UInt64: Session] = [:]
    private var stopping = false

    init() throws {
        protocolName = strdup("shuffleboard-client")
        protocols = .allocate(capacity: 2)
        protocols.initialize(repeating: lws_protocols(), count: 2)
        protocols[0].name = UnsafePointer(protocolName)
        // A C function pointer cannot capture; the callback finds `self` through the context user pointer.
        protocols[0].callback = { wsi, reason, user, input, length in
            ClientService.callback(wsi, reason, user, input, length)
        }

        // lws logs to stderr by default; the client reports failures through thrown errors instead.
        lws_set_log_level(Int32(LLL_ERR), nil)
        var info = lws_context_creation_info()
        info.port = CONTEXT_PORT_NO_LISTEN
        info.protocols = UnsafePointer(protocols)
        info.user = Unmanaged.passUnretained(self).toOpaque()
        HeaderSlab.install()
        guard let context = lws_create_context(&info) else {
            throw ClientError.contextCreationFailed
        }
        self.context = context
        inbox.attach(context)

        // The thread holds `self` until it has destroyed the context, which keeps the
        // context user pointer valid for every callback.
        stopped.enter()
        let thread = Thread { [self] in run() }
        thread.name = "BoardClient.service"
        self.thread = thread
        thread.start()
    }

    deinit {
        protocols.deinitialize(count: 2)
        protocols.deallocate()
        free(protocolName)
    }

    /// A fresh connection id; ids are never reused, so a late callback for a dead id finds nothing.
    func makeConnectionID() -> UInt64 {
        nextConnectionID.add(1, ordering: .relaxed).newValue
    }

    /// Hands `command` to the service thread; false once the loop is shutting down.
    @discardableResult
    func post(_ command: Command) -> Bool {
        if case .shutdown = command { return inbox.post(command, closing: true) }
        return inbox.post(command)
    }

    /// Closes every connection, stops the thread and destroys the context; returns when done.
    func shutdown() {
        precondition(Thread.current !== thread, "ClientLoop.shutdown() called on its own service thread")
        post(.shutdown)
        stopped.wait()
    }

    // MARK: Service thread

    private func run() {
        guard let context else { return }
        while !stopping {
            if lws_service(context, 0) < 0 { break }
        }
        stopping = true
        let leftovers = inbox.detach()
        for command in leftovers { perform(command) }
        // Closes every wsi; each gets its close callbacks and WSI_DESTROY here.
        lws_context_destroy(context)
        for session in sessions.values { report(session) }
        sessions = [:]
        stopped.leave()
    }

    private func assertOnServiceThread() {
        assert(Thread.current === thread, "lws state touched off the service thread")
    }

    private static func callback(
        _ wsi: OpaquePointer?, _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        guard let wsi, let context = lws_get_context(wsi), let service = lws_context_user(context) else {
            return 0
        }
        return Unmanaged<ClientService>.fromOpaque(service).takeUnretainedValue()
            .handle(wsi, reason, user, input, length)
    }

    private func handle(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons,
        _ user: UnsafeMutableRawPointer?, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Int32 {
        switch reason {
        case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
            assertOnServiceThread()
            drainInbox()

        case LWS_CALLBACK_CLIENT_ESTABLISHED:
            guard let session = session(for: user) else { return -1 }
            session.wsi = wsi
            session.established = true
            // false: the connect timed out or was cancelled meanwhile, so drop it.
            guard session.connection.didOpen() else { return -1 }
            if !session.outbox.isEmpty { lws_callback_on_writable(wsi) }

        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            guard let session = session(for: user), !session.reported else { break }
            session.reported = true
            let request = session.request
            let detail = Self.text(input, length) ?? "connection error"
            session.connection.didFail(.connectFailed(host: request.host, port: request.port, reason: detail))

        case LWS_CALLBACK_CLIENT_RECEIVE:
            guard let session = session(for: user) else { break }
            if let input, length > 0 {
                session.incoming.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
            if lws_is_final_fragment(wsi) != 0 {
                let message = String(decoding: session.incoming, as: UTF8.self)
                session.incoming.removeAll(keepingCapacity: session.incoming.count <= 65_536)
                session.connection.didReceive(message)
            }

        case LWS_CALLBACK_CLIENT_WRITEABLE:
            guard let session = session(for: user) else { break }
            return writeNext(session, wsi)

        case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
            // `in` holds the close payload: a 2-byte big-endian status, then the reason.
            guard let session = session(for: user) else { break }
            if let input, length >= 2 {
                let bytes = input.assumingMemoryBound(to: UInt8.self)
                let code = Int(bytes[0]) << 8 | Int(bytes[1])
                let reason = String(decoding: UnsafeBufferPointer(start: bytes + 2, count: length - 2), as: UTF8.self)
                session.peerClose = (code, reason)
            } else {
                session.peerClose = (1005, "")
            }

        case LWS_CALLBACK_CLIENT_CLOSED:
            guard let session = session(for: user) else { break }
            report(session)

        case LWS_CALLBACK_WSI_DESTROY:
            // The last callback that sees this wsi's user data; dropping the session frees it.
            guard let session = session(for: user) else { break }
            sessions.removeValue(forKey: session.connection.id)
            report(session)

        default:
            return lws_callback_http_dummy(wsi, reason, user, input, length)
        }
        return 0
    }

    /// The session whose id is in this wsi's per-session data, if it is still known.
    private func session(for user: UnsafeMutableRawPointer?) -> Session? {
        guard let user else { return nil }
        assertOnServiceThread()
        return sessions[user.load(as: UInt64.self)]
    }

    /// One `lws_write` per WRITEABLE; re-arms while more is queued.
    private func writeNext(_ session: Session, _ wsi: OpaquePointer) -> Int32 {
        session.inFlight = nil
        guard let next = session.outbox.popFirst() else { return 0 }
        switch next {
        case .close(let code, let reason):
            session.localClose = (Int(code), reason)
            LWS.setCloseReason(wsi, code: code, reason: reason)
            return -1
        case .frame(let frame):
            guard LWS.write(wsi, frame.payload, frame.count, lws_write_protocol(rawValue: frame.mode)) else {
                return -1
            }
            session.inFlight = frame
        }
        if !session.outbox.isEmpty { lws_callback_on_writable(wsi) }
        return 0
    }

    /// Tells the connection how its session ended, once.
    private func report(_ session: Session) {
        guard !session.reported else { return }
        session.reported = true
        if session.established {
            let close = session.peerClose ?? session.localClose ?? (1006, "")
            session.connection.didClose(code: close.code, reason: close.reason)
        } else {
            let request = session.request
            let reason = stopping ? "client loop shut down" : "connection closed before the handshake finished"
            session.connection.didFail(.connectFailed(host: request.host, port: request.port, reason: reason))
        }
    }

    private func drainInbox() {
        for command in inbox.drain() { perform(command) }
    }

    private func perform(_ command: Command) {
        switch command {
        case .connect(let connection, let request):
            if stopping {
                connection.didFail(.loopShutDown)
            } else {
                startConnect(connection, request)
            }

        case .send(let id, let frames):
            guard let session = sessions[id], !session.closeQueued else { return }
            session.outbox.append(contentsOf: frames.lazy.map { .frame($0) })
            if session.established, let wsi = session.wsi { lws_callback_on_writable(wsi) }

        case .close(let id, let code, let reason):
            guard let session = sessions[id], !session.closeQueued else { return }
            session.closeQueued = true
            session.outbox.append(.close(code: code, reason: reason))
            if session.established, let wsi = session.wsi { lws_callback_on_writable(wsi) }

        case .abandon(let id):
            guard let session = sessions[id] else { return }
            session.closeQueued = true
            if let wsi = session.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }

        case .shutdown:
            stopping = true
        }
    }

    private func startConnect(_ connection: ClientConnection, _ request: ConnectRequest) {
        guard let context else { return }
        let session = Session(connection: connection, request: request)
        sessions[connection.id] = session

        var connect = ClientConnect(
            address: request.host, port: request.port, path: request.path, host: "\(request.host):\(request.port)")
        // lws 4.1.6 writes `Origin: http://` followed by this (without LWS_SERVER_OPTION_JUST_USE_RAW_ORIGIN).
        connect.origin = "\(request.host):\(request.port)"
        connect.subprotocol = request.subprotocol
        connect.userData = UnsafeMutableRawPointer(session.userData)

        // Failures inside this call are reported by its nil result, not by CONNECTION_ERROR.
        if let wsi = connect.start(on: context) {
            session.wsi = wsi
        } else if sessions.removeValue(forKey: connection.id) != nil {
            session.reported = true
            let reason = "libwebsockets could not start the connection"
            connection.didFail(.connectFailed(host: request.host, port: request.port, reason: reason))
        }
    }

    /// C text from a callback's `in`/`len`, or nil when there is none.
    private static func text(_ input: UnsafeMutableRawPointer?, _ length: Int) -> String? {
        guard let input else { return nil }
        if length > 0 {
            return String(decoding: UnsafeRawBufferPointer(start: input, count: length), as: UTF8.self)
        }
        return String(cString: input.assumingMemoryBound(to: CChar.self))
    }
}
