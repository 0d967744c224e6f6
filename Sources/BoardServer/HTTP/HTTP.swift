internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// HTTP on the lws side: parsing a request, handing API requests to the hub, serving the web
/// client's files, and writing a response.
///
/// An answer is written as a WebSocket reader's messages are: one `lws_write` of at most
/// `--max-write-bytes` per HTTP_WRITEABLE, re-armed until the body is out, so that a large answer
/// (a page of ops, a board's snapshot: megabytes) never has lws copy the rest of it into its own
/// buffer, and a client that does not read holds only the answer itself. That answer counts
/// against the same send bound (`--max-pending-bytes`): a larger answer to a GET is refused with
/// 503. A client that has not read all of it when the exchange's `--http-timeout` is over is
/// dropped.
///
/// libwebsockets 4.1.6 mishandles a request that it parses from bytes it read earlier with the
/// request before (a pipelined request) when that request has a body: `lws_http_action` feeds the
/// request's own header bytes to the body parser, then re-delivers `HTTP_BODY_COMPLETION` forever
/// without returning to the event loop. It also re-delivers `HTTP_BODY_COMPLETION` on every
/// service pass while a finished body's answer is awaited and more bytes sit unread, and it spins
/// on a readable socket it does not read while it waits to write. So here:
/// - a request is handed on exactly once, when its body is complete;
/// - while its answer is awaited, lws is told not to read the connection (rx flow control);
/// - the connection is kept open for another request only when lws holds no unparsed input,
///   so a pipelined request is never parsed: the first request is answered, with
///   `connection: close`, and the connection closed;
/// - a connection that sends more while part of its answer is still waiting to be sent is
///   dropped, since lws cannot send the rest without spinning on the unread input (checked at
///   the write, on a re-delivered BODY_COMPLETION, and after every service pass meanwhile).
final class HTTP: TransportPart {
    /// The web client's files (`--web-root`, or the built-in page).
    let files: StaticFiles
    /// The exchanges under way, by their id (in their wsi's opaque user data, see `WSIID`).
    var exchanges: [ExchangeID: HTTPExchange] = [:]
    /// Exchanges whose answer is being written in pieces, or that lws has only partly sent
    /// (see `watchFlushing`).
    var flushing: Set<ExchangeID> = []
    /// Bytes of HTTP answers made for their request since the heap was last trimmed
    /// (`trimHeapAfterAnswers`).
    var answeredBytes = 0
    /// The bytes of HTTP answers held for clients (`--max-http-answer-bytes`).
    let answerTally = AnswerTally()
    /// When `watchFlushing` last checked the exchanges sending their answers in pieces (µs).
    var sendingWatched: UInt64 = 0
    /// The hub's events and ids, and the process's state for `/readyz` and `/metrics` (Runtime/Ports.swift).
    unowned let port: any HTTPPort
    /// Clients' addresses behind a trusted proxy.
    let addresses: ClientAddresses
    /// The runtime's one write buffer (`Service.scratch`).
    let scratch: UnsafeMutableRawBufferPointer
    /// The lws context, once it is made (`lwsHoldsUnparsedInput`).
    var context: OpaquePointer?

    init(_ shared: Shared, port: any HTTPPort, addresses: ClientAddresses, scratch: UnsafeMutableRawBufferPointer) {
        self.port = port
        self.addresses = addresses
        self.scratch = scratch
        files = StaticFiles(root: shared.config.webRoot)
        super.init(shared)
        for line in files.skipped { log.log(.warning, "web folder: not served: \(line)") }
    }

    /// The exchange `id` is over (DROP_PROTOCOL, CLOSED_HTTP): forgotten.
    func ended(_ id: ExchangeID) {
        guard let exchange = exchanges.removeValue(forKey: id) else { return }
        streamGone(exchange)
        // Gone before its answer: what the hub was reading for it is of no use now.
        if exchange.isWaiting { port.handle(.abandoned(id)) }
    }

    /// The exchange `id`, while it is under way.
    func exchange(_ id: ExchangeID) -> HTTPExchange? { exchanges[id] }

    /// The start of an HTTP request: check its framing, then dispatch it now or wait for its body.
    /// `previous` is the id the wsi still holds, if any (the last exchange normally ended at
    /// DROP_PROTOCOL).
    func httpRequest(_ wsi: OpaquePointer, previous: UInt64) -> Int32 {
        if previous != 0 { exchanges[ExchangeID(previous)] = nil }
        let id = ExchangeID(port.makeID())
        WSIID.set(wsi, id.rawValue)
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
        let socketPeer = LWS.peer(of: wsi)
        // A REST op another node of the cluster relayed (Relay/HTTPForwards.swift) is its client's.
        let relayedFor = keys.forwardedHTTPAddress(wsi, socketPeer: socketPeer)
        var request = HTTPRequest(
            method: method, path: path, query: LWS.query(wsi),
            authorization: LWS.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
            contentType: LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE), origin: LWS.header(wsi, WSI_TOKEN_ORIGIN),
            peer: relayedFor ?? addresses.proxied(wsi, socketPeer: socketPeer) ?? socketPeer,
            lastEventID: Relay.customHeader(wsi, "last-event-id:"))
        request.forwarded = relayedFor != nil
        if relayedFor == nil { request.proxy = addresses.proxy(wsi) }
        var framing = HTTPFraming(
            method: method, contentLength: LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH),
            transferEncoding: LWS.header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING), maxBodyBytes: maxBodyBytes(path),
            expect: LWS.header(wsi, WSI_TOKEN_HTTP_EXPECT))
        if let refusal = largeBodyRefusal(framing) { framing = .refused(refusal) }
        if let header = LWS.headerWithControlByte(wsi) {
            // No header a client means holds one (`Origin: https://allowed.example\0evil`); and
            // the body's framing cannot be trusted either.
            clientLog.warning("HTTP request from \(request.peer) refused: its \(header) header holds a control byte")
            framing = .refused(.error(400, "bad_request", "the \(header) header holds a control character"))
        }
        if LWS.requestLineWasCut(wsi) {
            // No route's path holds a CR or LF; the path lws kept is not the one asked for.
            clientLog.warning(
                "HTTP request from \(request.peer) refused: its request line ends before its HTTP version"
                    + " (a CR or LF in the path)")
            framing = .refused(
                .error(
                    404, "not_found",
                    "the request line ends before its HTTP version: a CR or LF in the path (%0D, %0A) ends it,"
                        + " and no route has one"))
        }
        let now = Clock.now()
        let deadline = now + Instant.Span(config.httpTimeout)
        // lws set its own 5 s timeout just before this callback; the exchange gets the configured one.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(max(1, config.httpTimeout.wholeSeconds)))
        switch framing {
        case .refused(let response):
            // The body's end cannot be known (or is not wanted): answer, then close.
            exchanges[id] = HTTPExchange(
                id: id, wsi: wsi, request: request, bodyLength: 0, deadline: deadline, tally: answerTally,
                closeAfter: true)
            log.debug("\(method.rawValue) \(path): refused with \(response.status) (framing)")
            respond(id, response)
        case .body(let length), .bodyAfterContinue(let length):
            if case .bodyAfterContinue = framing { sendContinue(wsi) }
            exchanges[id] = HTTPExchange(
                id: id, wsi: wsi, request: request, bodyLength: length, deadline: deadline, tally: answerTally)
            // A body arrives in HTTP_BODY callbacks; the request is dispatched at BODY_COMPLETION.
            if length == 0 { dispatch(id) }
        }
        return 0
    }

    /// Tells a client that sent `Expect: 100-continue` to send its body (RFC 9110 §10.1.1), so
    /// that curl and others do not wait a second for it first. Written at once, as the upgrade's
    /// refusals are (WebSocket/Upgrade.swift): 25 bytes to a socket that has sent only its headers,
    /// before lws has anything of its own to write on it.
    private func sendContinue(_ wsi: OpaquePointer) {
        let pre = shuffleboard_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre) + Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let length = buffer.count - pre
        buffer.withUnsafeMutableBytes { raw in
            _ = LWS.write(wsi, raw.baseAddress! + pre, length, LWS_WRITE_HTTP)
        }
    }

    /// A piece of the body. Returns -1 to close the connection.
    func httpBody(_ id: ExchangeID, _ input: UnsafeMutableRawPointer?, _ length: Int) -> Int32 {
        // Dropped (`drop`, e.g. by the tick for a late body): its kill is a timeout of 0, which
        // lws 4.1.6 puts back to its own content timeout when it reads more of the body, so a
        // client that keeps dripping would never be closed. Another piece closes it here.
        guard let exchange = exchanges[id] else { return -1 }
        guard exchange.phase == .receiving else { return 0 }
        if Clock.now().milliseconds > exchange.deadline.milliseconds {
            log.warning(
                "HTTP client \(LWS.peer(of: exchange.wsi)) did not send its request body within \(config.httpTimeout.seconds) s; closing"
            )
            return -1
        }
        guard let input, length > 0 else { return 0 }
        // lws passes at most Content-Length bytes, and that is at most the body limit.
        let room = exchange.bodyLength - exchange.request.body.count
        exchange.request.body.append(contentsOf: UnsafeRawBufferPointer(start: input, count: min(length, room)))
        return 0
    }

    /// lws says the body is complete. It says so again while bytes after the body wait unread.
    func bodyComplete(_ id: ExchangeID) {
        guard let exchange = exchanges[id] else { return }
        switch exchange.handle(.bodyComplete) {
        case .dispatch:
            // lws cleared the exchange's timeout when the body ended; set what is left of it.
            let left = max(1, (exchange.deadline.milliseconds - Clock.now().milliseconds + 999) / 1000)
            lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(left))
            dispatch(id)
        case .drop:
            // The client sent more while part of the answer is still to be sent.
            drop(exchange, "sent more while its answer was still being sent")
        default:
            break
        }
    }

    /// API requests go to the hub; everything else is a file of the web client. HEAD is answered
    /// as GET, without the body.
    private func dispatch(_ id: ExchangeID) {
        guard let exchange = exchanges[id] else { return }
        var request = exchange.request
        if request.method == .head { request.method = .get }
        if let response = operationsResponse(request) {
            respond(id, response, bounded: false)  // Small, and wanted most when the server is loaded.
        } else if Hub.routes(request.path) {
            // The hub hears when a stream's exchange ends, whether or not the stream opened.
            exchange.isStreamRequest = request.method == .get && request.path.hasSuffix("/events")
            port.handle(.request(id, request))
        } else if request.method != .get {
            respond(id, .methodNotAllowed("GET"))
        } else {
            var response = files.response(for: request.path)
            if response.contentType.hasPrefix("text/html") {
                response.headers.append(
                    HTTPResponse.Header(
                        "content-security-policy:",
                        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; base-uri 'none'; frame-ancestors 'none'"
                    ))
            }
            respond(id, response, bounded: false)
        }
        if exchanges[id] === exchange, exchange.handle(.pause) == .pauseReading {
            // The answer comes later (a store read, a durable write). Until then lws must not read
            // this connection: it would re-deliver BODY_COMPLETION, or spin on unread bytes.
            lws_rx_flow_control(exchange.wsi, 0)
        }
    }

    // MARK: Writing

    /// Stores the answer and asks for HTTP_WRITEABLE; the exchange may have ended meanwhile. The
    /// answer to a read (`GET`) made for this request (`bounded`) over the send bound is not held:
    /// the client gets 503 `too_large` instead, as a WebSocket client is closed for a welcome over
    /// it; nor is one that would take the answers held for all clients over
    /// `--max-http-answer-bytes` (503 `busy`, retry after a second). The answer to a write is
    /// always sent (the write took effect; its answer is bounded by the board's own limits), and
    /// so are the web client's files (every exchange shares their copy) and `/metrics`.
    func respond(_ id: ExchangeID, _ response: HTTPResponse, bounded: Bool = true) {
        guard let exchange = exchanges[id], exchange.isWaiting else { return }
        var response = response
        if bounded && exchange.request.method == .get && response.body.count > config.maxPendingBytes {
            port.handle(.transportCounted(.limit(.sendQueue)))
            clientLog.warning(
                "HTTP client \(exchange.request.peer): the answer to \(exchange.request.path) is "
                    + "\(response.body.count) bytes, over the send limit of \(config.maxPendingBytes); answering 503")
            response = .error(
                503, "too_large", "the answer is \(response.body.count) bytes, over the server's send limit")
        }
        let size = bounded && exchange.request.method != .head ? response.body.count : 0
        if bounded && exchange.request.method == .get && config.maxHTTPAnswerBytes > 0
            && answerTally.bytes + size > config.maxHTTPAnswerBytes
        {
            // Memory for answers is spent: the client may ask again in a moment.
            port.handle(.transportCounted(.limit(.httpAnswers)))
            clientLog.warning(
                "HTTP client \(exchange.request.peer): \(answerTally.bytes) bytes of answers are held for clients, "
                    + "the answer to \(exchange.request.path) would take them over \(config.maxHTTPAnswerBytes); answering 503"
            )
            response = .error(503, "busy", "the server holds too many answers for its clients; try again shortly")
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
        } else {
            exchange.hold(size)
        }
        if bounded { answeredBytes += response.body.count }
        guard case .write(let resume) = exchange.handle(.answer(response)) else { return }
        // lws serves neither reads nor writes of an h1 connection under rx flow control.
        if resume { lws_rx_flow_control(exchange.wsi, 1) }
        lws_callback_on_writable(exchange.wsi)
    }

    /// HTTP_WRITEABLE: the headers (with the whole body when it fits in one write), or the next
    /// piece of the body. Returns -1 when lws should close the connection.
    func writeResponse(_ exchange: HTTPExchange) -> Int32 {
        switch exchange.phase {
        case .answered(let response): writeHead(exchange, response)
        case .sending: writePiece(exchange)
        case .streamOpening: writeStreamHead(exchange)
        case .streaming: writeStreamPiece(exchange)
        case .receiving, .waiting, .written: 0
        }
    }

    /// Writes the headers, and the body with them when both fit in one write.
    private func writeHead(_ exchange: HTTPExchange, _ response: HTTPResponse) -> Int32 {
        // Keep the connection for another request only when lws holds no input it has not parsed:
        // a request lws parses from such input (a pipelined one) may hang it (see above).
        let keepAlive = !exchange.closeAfter && !response.closesConnection && !lwsHoldsUnparsedInput()
        let pre = shuffleboard_lws_pre()
        let body = exchange.request.method != .head ? response.body : []
        let whole = body.count <= config.maxWriteBytes
        var buffer = [UInt8](repeating: 0, count: pre + 2048 + (whole ? body.count : 0))
        let status = buffer.withUnsafeMutableBufferPointer { raw -> Int in
            let start = raw.baseAddress! + pre
            var p: UnsafeMutablePointer<UInt8>? = start
            let end = start + 2048
            var headers = response.headers
            headers.append(HTTPResponse.Header("x-content-type-options:", "nosniff"))
            headers.append(HTTPResponse.Header("cache-control:", "no-cache"))
            headers.append(HTTPResponse.Header("referrer-policy:", "no-referrer"))
            if !keepAlive { headers.append(HTTPResponse.Header("connection:", "close")) }
            guard
                lws_add_http_common_headers(
                    exchange.wsi, UInt32(response.status), response.contentType, lws_filepos_t(response.body.count), &p,
                    end) == 0
            else { return -1 }
            for header in headers {
                guard LWS.addHeader(exchange.wsi, header.name, header.value, &p, end) else { return -1 }
            }
            guard lws_finalize_http_header(exchange.wsi, &p, end) == 0, var q = p else { return -1 }
            guard whole else {
                // The body follows in pieces, one per HTTP_WRITEABLE.
                let length = q - start
                return Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP_HEADERS)) == length ? 0 : -1
            }
            body.withUnsafeBufferPointer { body in
                if let base = body.baseAddress { q.update(from: base, count: body.count) }
            }
            q += body.count
            let length = q - start
            return Int(lws_write(exchange.wsi, start, length, LWS_WRITE_HTTP_FINAL)) == length ? 0 : -1
        }
        meters.httpResponses.add(StatusLabel(status: response.status))
        log.debug(
            "\(exchange.request.method.rawValue) \(exchange.request.path) → \(response.status)"
                + "\(keepAlive ? "" : ", closing")")
        if status < 0 { return -1 }
        guard whole else {
            exchange.body = body
            exchange.sent = 0
            _ = exchange.handle(.headWritten(keepAlive: keepAlive, whole: false))
            // Watched after every service pass: lws spins on input it does not read meanwhile.
            flushing.insert(exchange.id)
            // The sweep drops the exchange at its deadline, and says why; lws's own timeout is
            // only the backstop.
            let left = max(1, (exchange.deadline.milliseconds - Clock.now().milliseconds + 999) / 1000)
            lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(left + 2))
            LWS.limitUnsent(exchange.wsi, to: config.unsentBytes, log: log)
            lws_callback_on_writable(exchange.wsi)
            return 0
        }
        _ = exchange.handle(.headWritten(keepAlive: keepAlive, whole: true))
        return finish(exchange)
    }

    /// Writes the next piece of the body (at most `--max-write-bytes`), the last one as the end
    /// of the answer; re-arms while more is left.
    private func writePiece(_ exchange: HTTPExchange) -> Int32 {
        if clientSentMore(exchange) {
            drop(exchange, "sent more while its answer was still being sent")
            return 0
        }
        let pre = shuffleboard_lws_pre()
        let length = min(config.maxWriteBytes, exchange.body.count - exchange.sent)
        let last = exchange.sent + length == exchange.body.count
        let start = scratch.baseAddress!.advanced(by: pre).assumingMemoryBound(to: UInt8.self)
        exchange.body.withUnsafeBufferPointer { body in
            start.update(from: body.baseAddress! + exchange.sent, count: length)
        }
        let written = lws_write(exchange.wsi, start, length, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP)
        guard Int(written) == length else { return -1 }
        exchange.sent += length
        guard last else {
            lws_callback_on_writable(exchange.wsi)
            return 0
        }
        _ = exchange.handle(.bodyWritten)
        return finish(exchange)
    }

    /// The whole answer went to lws: keep the connection for the next request, or close it.
    private func finish(_ exchange: HTTPExchange) -> Int32 {
        if lws_partial_buffered(exchange.wsi) != 0 {
            if clientSentMore(exchange) {
                drop(exchange, "sent more while its answer was still being sent")
                return 0
            }
            flushing.insert(exchange.id)
        }
        // Closing: lws first sends what it still holds of the answer (for at most 5 s).
        guard exchange.keepAlive else { return -1 }
        return lws_http_transaction_completed(exchange.wsi) != 0 ? -1 : 0
    }
}
