internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// The per-session data lws allocates for each connection: only our small connection id.
struct SessionData {
    var id: UInt64
}

/// The one lws callback for HTTP and WebSocket. No captures: it finds the service through the
/// context user pointer and the connection through the id in the per-session data.
func serviceCallback(
    _ wsi: OpaquePointer?, _ reason: lws_callback_reasons, _ user: UnsafeMutableRawPointer?,
    _ input: UnsafeMutableRawPointer?, _ length: Int
) -> Int32 {
    guard let wsi, let contextUser = lws_context_user(lws_get_context(wsi)) else { return 0 }
    let service = Unmanaged<Service>.fromOpaque(contextUser).takeUnretainedValue()
    service.assertOnServiceThread()
    let session = user?.assumingMemoryBound(to: SessionData.self)
    switch reason {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        // WebSockets only on /ws.
        return LWS.header(wsi, WSI_TOKEN_GET_URI) == "/ws" ? 0 : -1

    case LWS_CALLBACK_ESTABLISHED:
        guard let session else { return -1 }
        session.pointee.id = service.opened(wsi)
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let session, let connection = service.connections[ConnectionID(session.pointee.id)] else { return 0 }
        service.receive(input, length, wsi: wsi, on: connection)
        return 0

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let session, let connection = service.connections[ConnectionID(session.pointee.id)] else { return 0 }
        return connection.writeable(maxFrames: service.config.maxFramesPerWrite)

    case LWS_CALLBACK_CLOSED:
        if let session { service.closed(session.pointee.id) }
        return 0

    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        service.drainInbox()
        return 0

    case LWS_CALLBACK_HTTP:
        guard let session else { return -1 }
        return service.httpRequest(wsi, session: session)

    case LWS_CALLBACK_HTTP_BODY:
        guard let session else { return 0 }
        return service.httpBody(ExchangeID(session.pointee.id), input, length)

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let session else { return 0 }
        service.bodyComplete(ExchangeID(session.pointee.id))
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let session, let exchange = service.exchanges[ExchangeID(session.pointee.id)] else { return 0 }
        return service.writeResponse(exchange)

    case LWS_CALLBACK_HTTP_DROP_PROTOCOL, LWS_CALLBACK_CLOSED_HTTP:
        // lws drops the protocol (freeing this per-session data, and so the exchange's id) when a
        // transaction completes and before each new request, as well as at close.
        if let session { service.exchanges[ExchangeID(session.pointee.id)] = nil }
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

    case LWS_CALLBACK_RAW_ADOPT, LWS_CALLBACK_RAW_RX:
        // lws turns a CONNECT request into a raw socket with no timeout; refuse it.
        return -1

    default:
        return lws_callback_http_dummy(wsi, reason, user, input, length)
    }
}

extension Service {

    /// A fragment of a message: reassemble, enforce the size bound, and handle complete messages.
    func receive(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, on connection: Connection) {
        let first = connection.rx.isEmpty && !connection.rxTooLarge
        if first { connection.rxBinary = lws_frame_is_binary(wsi) != 0 }
        if !connection.rxTooLarge {
            if connection.rx.count + length > config.maxMessageBytes {
                connection.rxTooLarge = true
                connection.rx = []
            } else if let input, length > 0 {
                connection.rx.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
        }
        guard lws_is_final_fragment(wsi) != 0 else { return }
        if connection.rxTooLarge {
            // Returning -1 here is ignored under permessage-deflate; close from WRITEABLE instead.
            log.warning(
                "connection \(connection.id) sent a message over \(config.maxMessageBytes) bytes; closing with 1009")
            connection.rxTooLarge = false
            connection.close(code: 1009, reason: "message too large")
            return
        }
        let message = connection.rx
        connection.rx.removeAll(keepingCapacity: true)
        received(message, binary: connection.rxBinary, on: connection)
    }
}
