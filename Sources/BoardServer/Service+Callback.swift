internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// The id the server keeps in a wsi's opaque user data: a WebSocket connection's, an HTTP
/// exchange's (0 between requests), or an upstream's with `upstreamTag` set. Per-session data
/// would do as well, but lws allocates it for every connection, a 32-byte heap block for 8 bytes.
enum WSIID {
    /// Set in an upstream's id (Service+Forwarding.swift); never in a connection's or an
    /// exchange's (`makeID` counts from 1).
    static let upstreamTag: UInt64 = 1 << 63

    static func of(_ wsi: OpaquePointer) -> UInt64 { UInt64(UInt(bitPattern: lws_get_opaque_user_data(wsi))) }

    static func set(_ wsi: OpaquePointer, _ id: UInt64) { lws_set_opaque_user_data(wsi, opaque(id)) }

    /// `id` as opaque user data holds it (also for a client connection's `info.opaque_user_data`).
    static func opaque(_ id: UInt64) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(id)) }
}

/// The one lws callback for HTTP and WebSocket. No captures: it finds the service through the
/// context user pointer and the connection through the id in the wsi's opaque user data.
func serviceCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let contextUser = lws_context_user(lws_get_context(wsi)) else { return 0 }
    let service = Unmanaged<Service>.fromOpaque(contextUser).takeUnretainedValue()
    service.assertOnServiceThread()
    let id = WSIID.of(wsi)
    // An upstream to a board's owner (Service+Forwarding.swift). Its callbacks never reach the
    // server's paths below.
    if id & WSIID.upstreamTag != 0 {
        return service.upstreamCallback(wsi, reason, id & ~WSIID.upstreamTag, input, length)
            ?? lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    switch reason {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        // A TCP connection just accepted (`wsi` is the listening socket's): nonzero closes it.
        return service.accept(user) ? 0 : -1

    case LWS_CALLBACK_WSI_CREATE:
        service.socketCreated(wsi)
        return 0

    case LWS_CALLBACK_WSI_DESTROY:
        service.socketDestroyed(wsi)
        return 0

    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // WebSockets only on /ws (and on the echo path when there is one), from allowed origins.
        return service.admitUpgrade(wsi) ? 0 : -1

    case LWS_CALLBACK_ESTABLISHED:
        guard let endpoint = service.endpoint(of: wsi) else { return -1 }
        service.socketUpgraded(wsi)
        WSIID.set(wsi, service.opened(wsi, endpoint: endpoint))
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let connection = service.connections[ConnectionID(id)] else { return 0 }
        service.receive(input, length, wsi: wsi, on: connection)
        return 0

    case LWS_CALLBACK_RECEIVE_PONG:
        guard let connection = service.connections[ConnectionID(id)] else { return 0 }
        service.checkMasked(wsi, on: connection)
        return 0

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        return service.peerClosing(input, length, wsi: wsi, id: id)

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let connection = service.connections[ConnectionID(id)] else { return 0 }
        return connection.writeable(maxFrames: service.config.maxFramesPerWrite, scratch: service.scratch)

    case LWS_CALLBACK_CLOSED:
        LWS.discardUnread(wsi)
        if id != 0 { service.closed(id) }
        return 0

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        service.drainInbox()
        return 0

    case LWS_CALLBACK_HTTP:
        return service.httpRequest(wsi, previous: id)

    case LWS_CALLBACK_HTTP_BODY:
        guard id != 0 else { return 0 }
        return service.httpBody(ExchangeID(id), input, length)

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard id != 0 else { return 0 }
        service.bodyComplete(ExchangeID(id))
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let exchange = service.exchanges[ExchangeID(id)] else { return 0 }
        return service.writeResponse(exchange)

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
        // lws drops the protocol when a transaction completes and before each new request, as
        // well as at close: the exchange ends, and the wsi holds no id until the next request.
        if id != 0 {
            service.exchanges[ExchangeID(id)] = nil
            WSIID.set(wsi, 0)
        }
        return 0

    case LWS_CALLBACK_HTTP_CONFIRM_UPGRADE:
        // Only WebSocket. An `Upgrade: h2c` is answered as plain HTTP/1.1 (RFC 7540 3.2 lets a
        // server ignore it): lws compares this very string after the callback, so blanking its
        // first byte makes lws skip the upgrade. HTTP/2 would bypass every rule in this file.
        guard let input else { return -1 }
        let name = input.assumingMemoryBound(to: CChar.self)
        if strcasecmp(name, "websocket") == 0 { return 0 }
        if strcasecmp(name, "h2c") == 0 {
            name.pointee = CChar(UInt8(ascii: "-"))
            return 0
        }
        return -1

    case LWS_CALLBACK_RAW_RX_FILE:
        // The only raw file is the pacer's timer.
        if wsi == service.pacer?.wsi { service.pacerFired() }
        return 0

    case LWS_CALLBACK_RAW_ADOPT_FILE, LWS_CALLBACK_RAW_CLOSE_FILE:
        return 0

    case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX:
        // lws turns a CONNECT request into a raw socket with no timeout; refuse it.
        return -1

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

extension Service {

    /// The endpoint a WebSocket upgrade asks for, or nil when its path has none.
    func endpoint(of wsi: OpaquePointer) -> Endpoint? {
        let path = LWS.header(wsi, WSI_TOKEN_GET_URI)
        if path == "/ws" { return .board }
        if let echo = config.echoPath, path == echo { return .echo }
        return nil
    }

    /// A piece of a message (a whole frame, or part of a long one; possibly 0 bytes). Checks the
    /// frame, counts the message's bytes against its endpoint's limit, and hands complete
    /// messages on: to the hub from `/ws`, back to the sender from the echo endpoint.
    ///
    /// A frame that breaks the rules closes the connection from the next WRITEABLE (returning -1
    /// here is ignored under permessage-deflate), and everything after it is dropped, even what
    /// lws already read in the same burst.
    func receive(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, on connection: Connection) {
        guard !connection.rxRefused, checkMasked(wsi, on: connection) else { return }
        // lws_frame_is_binary is the opcode of the frame that began the message in progress.
        let binary = lws_frame_is_binary(wsi) != 0
        let limit: Int
        switch connection.endpoint {
        case .board:
            guard !binary else {
                return refuse(connection, 1003, "binary frames are not supported", because: "sent a binary frame")
            }
            limit = config.maxMessageBytes
        case .echo:
            limit = config.echoMaxMessageBytes
        }
        guard connection.rx.count + length <= limit else {
            hub.meters.limitHits.add(.messageSize)
            return refuse(connection, 1009, "message too large", because: "sent a message over \(limit) bytes")
        }
        guard let message = LWS.message(input, length, wsi: wsi, buffer: &connection.rx) else { return }
        switch connection.endpoint {
        case .board: received(message, on: connection)
        case .echo: echo(Frame(payload: message, binary: binary), to: connection)
        }
    }

    /// Closes with 1002 when the frame being delivered was not masked (RFC 6455 5.1), which lws
    /// 4.1.6 does not check itself. Returns false when it did.
    @discardableResult
    func checkMasked(_ wsi: OpaquePointer, on connection: Connection) -> Bool {
        switch shuffleboard_frame_is_masked(wsi) {
        case 0:
            refuse(connection, 1002, "client frames must be masked", because: "sent an unmasked frame")
            return false
        case 1:
            return true
        default:
            warnMaskUnknown()
            return true
        }
    }

    /// The client started the closing handshake. lws echoes its close frame (after replacing
    /// codes that are not allowed on the wire by 1002) when this returns 0; the cases it lets
    /// through are answered with 1002 here, and lws closes when this returns -1.
    func peerClosing(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, id: UInt64) -> Int32 {
        let problem: String?
        if shuffleboard_frame_is_masked(wsi) == 0 {
            problem = "no mask"
        } else if length == 1 {
            problem = "a payload of one byte"
        } else if length >= 2, let input {
            let bytes = input.assumingMemoryBound(to: UInt8.self)
            // lws refuses codes below 1000 and the reserved ones below 3000, but not 5000 and up.
            problem = Int(bytes[0]) << 8 | Int(bytes[1]) >= 5000 ? "a code above 4999" : nil
        } else {
            problem = nil
        }
        let connection = connections[ConnectionID(id)]
        guard let problem else {
            connection?.closing = (Self.closeCode(input, length), Self.closeReason(input, length), false)
            return 0
        }
        clientLog(
            "connection \(id) from \(connection?.peer ?? "?") sent a close frame with \(problem); closing with 1002")
        LWS.setCloseReason(wsi, code: 1002, reason: "bad close frame: \(problem)")
        connection?.closing = (1002, "bad close frame: \(problem)", true)
        return -1
    }

    /// The code of a close frame's payload (1005: none).
    private static func closeCode(_ input: UnsafeMutableRawPointer?, _ length: Int) -> UInt16 {
        guard length >= 2, let input else { return 1005 }
        let bytes = input.assumingMemoryBound(to: UInt8.self)
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// The reason of a close frame's payload (at most 123 bytes; lws checked that it is UTF-8).
    private static func closeReason(_ input: UnsafeMutableRawPointer?, _ length: Int) -> String {
        guard length > 2, let input else { return "" }
        let bytes = UnsafeRawBufferPointer(start: input + 2, count: min(length - 2, LWS.maximumCloseReasonBytes))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Marks the connection refused (what else it sends is dropped) and closes it with `code`.
    private func refuse(_ connection: Connection, _ code: UInt16, _ reason: String, because what: String) {
        connection.rxRefused = true
        connection.rx = []
        clientLog("connection \(connection.id) from \(connection.peer) \(what); closing with \(code)")
        connection.close(code: code, reason: reason)
    }
}
