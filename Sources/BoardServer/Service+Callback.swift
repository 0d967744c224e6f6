internal import BoardCore
internal import CLibWebSockets

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
        return Service.header(wsi, WSI_TOKEN_GET_URI) == "/ws" ? 0 : -1

    case LWS_CALLBACK_ESTABLISHED:
        guard let session else { return -1 }
        session.pointee.id = service.opened(wsi)
        return 0

    case LWS_CALLBACK_RECEIVE:
        guard let session, let connection = service.connections[session.pointee.id] else { return 0 }
        service.receive(input, length, wsi: wsi, on: connection)
        return 0

    case LWS_CALLBACK_SERVER_WRITEABLE:
        guard let session, let connection = service.connections[session.pointee.id] else { return 0 }
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
        guard let session, let exchange = service.exchanges[session.pointee.id] else { return 0 }
        if let input, !exchange.bodyTooLarge {
            if exchange.request.body.count + length > service.config.maxBodyBytes {
                exchange.bodyTooLarge = true
                exchange.request.body = []
            } else {
                exchange.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
            }
        }
        return 0

    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        guard let session, let exchange = service.exchanges[session.pointee.id] else { return 0 }
        if exchange.bodyTooLarge {
            service.respond(
                session.pointee.id, .error(413, "too_large", "request body over \(service.config.maxBodyBytes) bytes"))
        } else if let response = service.route(exchange.request, exchange: session.pointee.id) {
            service.respond(session.pointee.id, response)
        }
        return 0

    case LWS_CALLBACK_HTTP_WRITEABLE:
        guard let session, let exchange = service.exchanges[session.pointee.id] else { return 0 }
        return service.writeResponse(exchange)

    case LWS_CALLBACK_CLOSED_HTTP:
        if let session { service.exchanges[session.pointee.id] = nil }
        return 0

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

    /// The start of an HTTP request: route it now, or wait for its body.
    func httpRequest(_ wsi: OpaquePointer, session: UnsafeMutablePointer<SessionData>) -> Int32 {
        if session.pointee.id == 0 { session.pointee.id = makeID() }
        let id = session.pointee.id
        var uriPointer: UnsafeMutablePointer<CChar>?
        var uriLength: Int32 = 0
        let methodIndex = lws_http_get_uri_and_method(wsi, &uriPointer, &uriLength)
        guard methodIndex >= 0, let uriPointer else { return -1 }
        let path = String(decoding: UnsafeRawBufferPointer(start: uriPointer, count: Int(uriLength)), as: UTF8.self)
        let method: HTTPRequest.Method =
            switch Int(methodIndex) {
            case Int(LWSHUMETH_GET): .get
            case Int(LWSHUMETH_POST): .post
            case Int(LWSHUMETH_OPTIONS): .options
            case Int(LWSHUMETH_PUT): .put
            case Int(LWSHUMETH_PATCH): .patch
            case Int(LWSHUMETH_DELETE): .delete
            case Int(LWSHUMETH_HEAD): .head
            default: .other
            }
        let request = HTTPRequest(method: method, path: path, query: Self.query(wsi))
        let exchange = HTTPExchange(wsi: wsi, request: request)
        exchanges[id] = exchange
        let contentLength = Self.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) } ?? 0
        if (method == .post || method == .put || method == .patch) && contentLength > 0 {
            return 0  // The body arrives in HTTP_BODY callbacks; routed at HTTP_BODY_COMPLETION.
        }
        if let response = route(request, exchange: id) { respond(id, response) }
        return 0
    }

    /// The URL arguments, each `name=value` fragment already decoded by lws.
    static func query(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 512)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) > 0 {
            let text = Self.text(of: buffer)
            if let eq = text.firstIndex(of: "=") {
                result[String(text[..<eq])] = String(text[text.index(after: eq)...])
            } else {
                result[text] = ""
            }
            index += 1
        }
        return result
    }
}
