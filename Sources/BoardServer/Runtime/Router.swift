internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// The id the server keeps in a wsi's opaque user data: a WebSocket connection's, an HTTP
/// exchange's (0 between requests), or an upstream's with `upstreamTag` set. Per-session data
/// would do as well, but lws allocates it for every connection, a 32-byte heap block for 8 bytes.
enum WSIID {
    /// Set in an upstream's id (Relay/Relay.swift); never in a connection's or an
    /// exchange's (`makeID` counts from 1).
    static let upstreamTag: UInt64 = 1 << 63
    /// Set in a relayed REST request's id (Relay/HTTPForwards.swift), likewise.
    static let httpForwardTag: UInt64 = 1 << 62

    static func of(_ wsi: OpaquePointer) -> UInt64 { UInt64(UInt(bitPattern: lws_get_opaque_user_data(wsi))) }

    static func set(_ wsi: OpaquePointer, _ id: UInt64) { lws_set_opaque_user_data(wsi, opaque(id)) }

    /// `id` as opaque user data holds it (also for a client connection's `info.opaque_user_data`).
    static func opaque(_ id: UInt64) -> UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: UInt(id)) }
}

/// The one lws callback for HTTP and WebSocket. No captures: it finds the service through the
/// context user pointer and the connection through the id in the wsi's opaque user data. It only
/// routes: an upstream's callbacks to the relay, a WebSocket's to the WebSocket part, an HTTP
/// exchange's to the HTTP part, accepts and the inbox to the runtime (docs/architecture.md has
/// the table).
func serviceCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let contextUser = lws_context_user(lws_get_context(wsi)) else { return 0 }
    let service = Unmanaged<Service>.fromOpaque(contextUser).takeUnretainedValue()
    service.assertOnServiceThread()
    let id = WSIID.of(wsi)
    // A REST request relayed to a board's owner (Relay/HTTPForwards.swift).
    if id & WSIID.httpForwardTag != 0 {
        return service.httpForwards.callback(
            wsi, reason, HTTPForwards.ID(rawValue: id & ~WSIID.httpForwardTag), input, length)
            ?? lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    // An upstream to a board's owner (Relay/). Its callbacks never reach the server's paths below.
    if id & WSIID.upstreamTag != 0 {
        return service.relay.upstreamCallback(wsi, reason, id & ~WSIID.upstreamTag, input, length)
            ?? lws_callback_http_dummy(wsi, reason, user, input, length)
    }
    let webSockets = service.webSockets!
    switch reason {
    // The runtime: accepted sockets and the inbox.
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        // A TCP connection just accepted (`wsi` is the listening socket's): nonzero closes it.
        return service.accept(user) ? 0 : -1

    case LWS_CALLBACK_WSI_CREATE:
        service.socketCreated(wsi)
        return 0

    case LWS_CALLBACK_WSI_DESTROY:
        service.socketDestroyed(wsi)
        return 0

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        service.drainInbox()
        return 0

    case LWS_CALLBACK_OPENSSL_LOAD_EXTRA_SERVER_VERIFY_CERTS:
        // The TLS listener's SSL_CTX (`user`), once, as the context is made: no session tickets.
        shuffleboard_tls_no_session_tickets(user)
        return 0

    // The WebSocket part.
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // WebSockets only on /ws (and on the echo path when there is one), from allowed origins.
        return webSockets.admitUpgrade(wsi) ? 0 : -1

    case LWS_CALLBACK_ESTABLISHED:
        guard let endpoint = webSockets.endpoint(of: wsi) else { return -1 }
        service.socketUpgraded(wsi)
        WSIID.set(wsi, webSockets.opened(wsi, endpoint: endpoint))
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let connection = webSockets.connections[ConnectionID(id)] else { return 0 }
        webSockets.receive(input, length, wsi: wsi, on: connection)
        return 0

    case LWS_CALLBACK_RECEIVE_PONG:
        guard let connection = webSockets.connections[ConnectionID(id)] else { return 0 }
        if webSockets.checkMasked(wsi, on: connection) { webSockets.ponged(connection) }
        return 0

    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        return webSockets.peerClosing(input, length, wsi: wsi, id: id)

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let connection = webSockets.connections[ConnectionID(id)] else { return 0 }
        return connection.writeable(maxFrames: service.config.maxFramesPerWrite, scratch: service.scratch)

    case LWS_CALLBACK_CLOSED:
        LWS.discardUnread(wsi)
        if id != 0 { webSockets.closed(id) }
        return 0

    case LWS_CALLBACK_RAW_RX_FILE:
        // The only raw file is the pacer's timer.
        if wsi == webSockets.pacer?.wsi { webSockets.pacerFired() }
        return 0

    case LWS_CALLBACK_RAW_ADOPT_FILE, LWS_CALLBACK_RAW_CLOSE_FILE:
        return 0

    // The HTTP part.
    case LWS_CALLBACK_HTTP:
        return service.http.httpRequest(wsi, previous: id)

    case LWS_CALLBACK_HTTP_BODY:
        guard id != 0 else { return 0 }
        return service.http.httpBody(ExchangeID(id), input, length)

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard id != 0 else { return 0 }
        service.http.bodyComplete(ExchangeID(id))
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let exchange = service.http.exchange(ExchangeID(id)) else { return 0 }
        return service.http.writeResponse(exchange)

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
        // lws drops the protocol when a transaction completes and before each new request, as
        // well as at close: the exchange ends, and the wsi holds no id until the next request.
        if id != 0 {
            service.http.ended(ExchangeID(id))
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

    case LWS_CALLBACK_RAW_ADOPT:
        // CONNECT, or a method lws does not parse (HTTP/UnknownMethods.swift): a raw socket.
        UnknownMethods.adopted(wsi, timeout: service.config.httpTimeout.wholeSeconds)
        return 0

    case LWS_CALLBACK_RAW_RX:
        return UnknownMethods.received(wsi, UnsafeRawBufferPointer(start: input, count: input == nil ? 0 : length))

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}
