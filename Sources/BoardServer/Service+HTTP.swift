internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// An HTTP exchange in progress: the request as it arrives, then the response waiting for WRITEABLE.
final class HTTPExchange {
    let wsi: OpaquePointer
    var request: HTTPRequest
    var bodyTooLarge = false
    var response: HTTPResponse?

    init(wsi: OpaquePointer, request: HTTPRequest) {
        self.wsi = wsi
        self.request = request
    }

    /// Adds a piece of the body, or drops the body once it is over `limit` bytes.
    func append(_ input: UnsafeMutableRawPointer?, _ length: Int, limit: Int) {
        guard let input, !bodyTooLarge else { return }
        if request.body.count + length > limit {
            bodyTooLarge = true
            request.body = []
        } else {
            request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: length))
        }
    }
}

/// HTTP on the lws side: parsing a request, handing API requests to the hub, serving the web
/// client's files, and writing a response in one piece.
extension Service {
    /// The start of an HTTP request: dispatch it now, or wait for its body.
    func httpRequest(_ wsi: OpaquePointer, session: UnsafeMutablePointer<SessionData>) -> Int32 {
        if session.pointee.id == 0 { session.pointee.id = makeID() }
        let id = ExchangeID(session.pointee.id)
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
        let request = HTTPRequest(
            method: method, path: path, query: LWS.query(wsi),
            authorization: LWS.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION), peer: LWS.peer(of: wsi))
        exchanges[id] = HTTPExchange(wsi: wsi, request: request)
        let contentLength = LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH).flatMap { Int($0) } ?? 0
        if (method == .post || method == .put || method == .patch) && contentLength > 0 {
            return 0  // The body arrives in HTTP_BODY callbacks; dispatched at HTTP_BODY_COMPLETION.
        }
        dispatch(id)
        return 0
    }

    /// The whole body is in.
    func bodyComplete(_ id: ExchangeID) {
        guard let exchange = exchanges[id] else { return }
        if exchange.bodyTooLarge {
            respond(id, .error(413, "too_large", "request body over \(config.maxBodyBytes) bytes"))
        } else {
            dispatch(id)
        }
    }

    /// API requests go to the hub; everything else is a file of the web client.
    private func dispatch(_ id: ExchangeID) {
        guard let request = exchanges[id]?.request else { return }
        if let response = operationsResponse(request) { return respond(id, response) }
        if Hub.routes(request.path) { return handle(.request(id, request)) }
        guard request.method == .get || request.method == .head else {
            return respond(id, .methodNotAllowed("GET"))
        }
        var response = files.response(for: request.path)
        if response.contentType.hasPrefix("text/html") {
            response.headers.append(
                HTTPResponse.Header(
                    "content-security-policy:",
                    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
                ))
        }
        respond(id, response)
    }

    // MARK: Writing

    /// Stores the response and asks for HTTP_WRITEABLE; the exchange may have closed meanwhile.
    func respond(_ exchangeID: ExchangeID, _ response: HTTPResponse) {
        guard let exchange = exchanges[exchangeID] else { return }
        exchange.response = response
        lws_callback_on_writable(exchange.wsi)
    }

    /// Writes headers and body in one write. Returns -1 when lws should close the connection.
    func writeResponse(_ exchange: HTTPExchange) -> Int32 {
        guard let response = exchange.response else { return 0 }
        exchange.response = nil
        let pre = shuffleboard_lws_pre()
        let includeBody = exchange.request.method != .head
        var buffer = [UInt8](repeating: 0, count: pre + 2048 + (includeBody ? response.body.count : 0))
        let status = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            let start = raw.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + 2048
            var headers = response.headers
            headers.append(HTTPResponse.Header("x-content-type-options:", "nosniff"))
            headers.append(HTTPResponse.Header("cache-control:", "no-cache"))
            headers.append(HTTPResponse.Header("referrer-policy:", "no-referrer"))
            guard
                lws_add_http_common_headers(
                    exchange.wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &p,
                    end) == 0
            else { return -1 }
            for header in headers {
                let (name, value) = (header.name, header.value)
                let ok = name.withCString { n in
                    value.withCString { v in
                        lws_add_http_header_by_name(
                            exchange.wsi, UnsafeRawPointer(n).assumingMemoryBound(to: UInt8.self),
                            UnsafeRawPointer(v).assumingMemoryBound(to: UInt8.self), Int32(value.utf8.count), &p, end)
                    }
                }
                guard ok == 0 else { return -1 }
            }
            guard lws_finalize_http_header(exchange.wsi, &p, end) == 0, var q = p else { return -1 }
            if includeBody {
                response.body.withUnsafeBufferPointer { body in
                    if let base = body.baseAddress { q.update(from: base, count: body.count) }
                }
                q += response.body.count
            }
            let length = q - start
            return Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP_FINAL)) == length ? 0 : -1
        }
        meters.httpResponses.add(StatusLabel(status: response.status))
        log.debug("\(exchange.request.method.rawValue) \(exchange.request.path) → \(response.status)")
        if status < 0 { return -1 }
        return lws_http_transaction_completed(exchange.wsi) != 0 ? -1 : 0
    }
}
