internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// One HTTP request on a connection and its answer.
///
/// A connection carries one exchange at a time, and every request gets a new id (kept in the
/// connection's per-session data), so an answer that comes back after its exchange has ended
/// finds nothing and is dropped.
final class HTTPExchange {
    /// Where the exchange is.
    enum Phase {
        /// Headers in; the body (`Content-Length` bytes) is arriving.
        case receiving
        /// Handed to the hub or the file server; the answer is not here yet.
        case waiting
        /// The answer is here; HTTP_WRITEABLE writes it (in one write when it fits in one).
        case answered
        /// The headers went to lws; each HTTP_WRITEABLE writes the next piece of `body`.
        case sending
        /// The answer went to lws (which may still be sending part of it).
        case written
    }

    let id: ExchangeID
    let wsi: OpaquePointer
    var request: HTTPRequest
    var phase: Phase
    /// The body's length, from `Content-Length`.
    let bodyLength: Int
    var response: HTTPResponse?
    /// While `sending`: the body, and how much of it went to lws.
    var body: [UInt8] = []
    var sent = 0
    /// Whether the connection stays open for another request once the answer is out.
    var keepAlive = false
    /// Close the connection after the answer: the request's framing cannot be trusted, or lws
    /// would not know where the next request starts.
    var closeAfter = false
    /// lws is told not to read this connection while the answer is awaited.
    var paused = false
    /// When the whole exchange must be over, the answer sent.
    let deadline: Instant
    /// The bytes of every exchange's answers held for their clients (`--max-http-answer-bytes`).
    private let tally: AnswerTally
    /// This exchange's part of `tally`: its answer, until lws has all of it (or the exchange ends).
    private var held = 0

    init(
        id: ExchangeID, wsi: OpaquePointer, request: HTTPRequest, bodyLength: Int, deadline: Instant,
        tally: AnswerTally
    ) {
        self.id = id
        self.wsi = wsi
        self.request = request
        self.bodyLength = bodyLength
        self.deadline = deadline
        self.tally = tally
        phase = bodyLength > 0 ? .receiving : .waiting
    }

    deinit { tally.bytes -= held }

    /// Counts `bytes` of answer as held for this exchange's client.
    func hold(_ bytes: Int) {
        held += bytes
        tally.bytes += bytes
    }

    /// lws has all of the answer: none of it is held here any more.
    func letGo() {
        tally.bytes -= held
        held = 0
    }
}

/// The bytes of HTTP answers held for clients, over every exchange: each adds its answer when it
/// comes and takes it off once lws has all of it, or when the exchange ends (its `deinit`).
/// Confined to the service thread, as the exchanges are.
final class AnswerTally {
    var bytes = 0
}

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
extension Service {
    /// The start of an HTTP request: check its framing, then dispatch it now or wait for its body.
    /// `previous` is the id the wsi still holds, if any (the last exchange normally ended at
    /// DROP_PROTOCOL).
    func httpRequest(_ wsi: OpaquePointer, previous: UInt64) -> Int32 {
        if previous != 0 { exchanges[ExchangeID(previous)] = nil }
        let id = ExchangeID(makeID())
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
        let request = HTTPRequest(
            method: method, path: path, query: LWS.query(wsi),
            authorization: LWS.header(wsi, WSI_TOKEN_HTTP_AUTHORIZATION),
            contentType: LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE), origin: LWS.header(wsi, WSI_TOKEN_ORIGIN),
            peer: proxiedAddress(wsi, socketPeer: socketPeer) ?? socketPeer)
        var framing = HTTPFraming(
            method: method, contentLength: LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_LENGTH),
            transferEncoding: LWS.header(wsi, WSI_TOKEN_HTTP_TRANSFER_ENCODING), maxBodyBytes: config.maxBodyBytes,
            expect: LWS.header(wsi, WSI_TOKEN_HTTP_EXPECT))
        if let header = LWS.headerWithControlByte(wsi) {
            // No header a client means holds one (`Origin: https://allowed.example\0evil`); and
            // the body's framing cannot be trusted either.
            clientLog("HTTP request from \(request.peer) refused: its \(header) header holds a control byte")
            framing = .refused(.error(400, "bad_request", "the \(header) header holds a control character"))
        }
        let now = Clock.now()
        let deadline = Instant(milliseconds: now.milliseconds + Int64(config.httpTimeout) * 1000)
        // lws set its own 5 s timeout just before this callback; the exchange gets the configured one.
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(config.httpTimeout))
        switch framing {
        case .refused(let response):
            // The body's end cannot be known (or is not wanted): answer, then close.
            let exchange = HTTPExchange(
                id: id, wsi: wsi, request: request, bodyLength: 0, deadline: deadline, tally: answerTally)
            exchange.closeAfter = true
            exchanges[id] = exchange
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
    /// refusals are (Service+Upgrade.swift): 25 bytes to a socket that has sent only its headers,
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
        guard let exchange = exchanges[id], exchange.phase == .receiving else { return 0 }
        if Clock.now().milliseconds > exchange.deadline.milliseconds {
            log.warning(
                "HTTP client \(LWS.peer(of: exchange.wsi)) did not send its request body within \(config.httpTimeout) s; closing"
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
        switch exchange.phase {
        case .receiving:
            // lws cleared the exchange's timeout when the body ended; set what is left of it.
            let left = max(1, (exchange.deadline.milliseconds - Clock.now().milliseconds + 999) / 1000)
            lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(left))
            dispatch(id)
        case .written, .sending:
            // The client sent more while part of the answer is still to be sent.
            drop(exchange, "sent more while its answer was still being sent")
        case .waiting, .answered:
            break
        }
    }

    /// API requests go to the hub; everything else is a file of the web client. HEAD is answered
    /// as GET, without the body.
    private func dispatch(_ id: ExchangeID) {
        guard let exchange = exchanges[id] else { return }
        exchange.phase = .waiting
        var request = exchange.request
        if request.method == .head { request.method = .get }
        if let response = operationsResponse(request) {
            respond(id, response, bounded: false)  // Small, and wanted most when the server is loaded.
        } else if Hub.routes(request.path) {
            handle(.request(id, request))
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
        if exchange.phase == .waiting, exchanges[id] === exchange {
            // The answer comes later (a store read, a durable write). Until then lws must not read
            // this connection: it would re-deliver BODY_COMPLETION, or spin on unread bytes.
            exchange.paused = true
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
        guard let exchange = exchanges[id], exchange.phase == .waiting else { return }
        var response = response
        if bounded && exchange.request.method == .get && response.body.count > config.maxPendingBytes {
            hub.meters.limitHits.add(.sendQueue)
            clientLog(
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
            hub.meters.limitHits.add(.httpAnswers)
            clientLog(
                "HTTP client \(exchange.request.peer): \(answerTally.bytes) bytes of answers are held for clients, "
                    + "the answer to \(exchange.request.path) would take them over \(config.maxHTTPAnswerBytes); answering 503"
            )
            response = .error(503, "busy", "the server holds too many answers for its clients; try again shortly")
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
        } else {
            exchange.hold(size)
        }
        if bounded { answeredBytes += response.body.count }
        exchange.response = response
        exchange.phase = .answered
        if exchange.paused {
            // lws serves neither reads nor writes of an h1 connection under rx flow control.
            exchange.paused = false
            lws_rx_flow_control(exchange.wsi, 1)
        }
        lws_callback_on_writable(exchange.wsi)
    }

    /// HTTP_WRITEABLE: the headers (with the whole body when it fits in one write), or the next
    /// piece of the body. Returns -1 when lws should close the connection.
    func writeResponse(_ exchange: HTTPExchange) -> Int32 {
        switch exchange.phase {
        case .answered: writeHead(exchange)
        case .sending: writePiece(exchange)
        case .receiving, .waiting, .written: 0
        }
    }

    /// Writes the headers, and the body with them when both fit in one write.
    private func writeHead(_ exchange: HTTPExchange) -> Int32 {
        guard let response = exchange.response else { return 0 }
        exchange.response = nil
        // Keep the connection for another request only when lws holds no input it has not parsed:
        // a request lws parses from such input (a pipelined one) may hang it (see above).
        exchange.keepAlive = !exchange.closeAfter && !lwsHoldsUnparsedInput()
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
            if !exchange.keepAlive { headers.append(HTTPResponse.Header("connection:", "close")) }
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
                + "\(exchange.keepAlive ? "" : ", closing")")
        if status < 0 { return -1 }
        guard whole else {
            exchange.body = body
            exchange.sent = 0
            exchange.phase = .sending
            // Watched after every service pass: lws spins on input it does not read meanwhile.
            flushing.insert(exchange.id)
            // The sweep drops the exchange at its deadline, and says why; lws's own timeout is
            // only the backstop.
            let left = max(1, (exchange.deadline.milliseconds - Clock.now().milliseconds + 999) / 1000)
            lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, Int32(left + 2))
            limitUnsent(exchange.wsi)
            lws_callback_on_writable(exchange.wsi)
            return 0
        }
        exchange.phase = .written
        exchange.letGo()
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
        exchange.body = []
        exchange.phase = .written
        exchange.letGo()
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

    // MARK: Watching

    /// Called on every tick: drops exchanges whose body is late, or whose client has not read
    /// its answer in time. Once a burst of large answers is over, gives their memory back.
    func sweepExchanges() {
        let now = Clock.now().milliseconds
        for exchange in exchanges.values where now > exchange.deadline.milliseconds {
            switch exchange.phase {
            case .receiving:
                drop(exchange, "did not send its request body within \(config.httpTimeout) s")
            case .sending:
                hub.meters.limitHits.add(.sendQueue)
                drop(
                    exchange,
                    "took only \(exchange.sent) of the \(exchange.body.count) bytes of its answer within "
                        + "\(config.httpTimeout) s")
            case .waiting, .answered, .written:
                break
            }
        }
        trimHeapAfterAnswers()
    }

    /// Once the large answers of a burst (16 MiB or more since the last trim) are all sent or
    /// dropped, gives their freed pages back to the kernel (`shuffleboard_trim_heap`): glibc
    /// keeps them, in the service thread's arena and in the reader's and encoder's, where the
    /// answers were encoded.
    private func trimHeapAfterAnswers() {
        guard answeredBytes >= 16 << 20, !exchanges.values.contains(where: { $0.phase == .sending }) else { return }
        let bytes = answeredBytes
        answeredBytes = 0
        let released = shuffleboard_trim_heap() != 0
        log.debug("heap trimmed after \(bytes) bytes of HTTP answers" + (released ? "" : " (nothing to release)"))
    }

    /// Called after every pass of the service loop while lws still holds part of an answer:
    /// drops the connection if its client has sent more (or closed its side). lws would otherwise
    /// poll without waiting, pass after pass, until the whole answer is out.
    ///
    /// An exchange still sending its answer in pieces is checked at most every 50 ms (and at each
    /// of its pieces): a pass can come every few microseconds on a busy server, and a peek per
    /// such exchange per pass would cost more than the pieces themselves.
    func watchFlushing() {
        let now = Clock.microseconds()
        let watchSending = now >= sendingWatched + 50_000
        if watchSending { sendingWatched = now }
        for id in flushing {
            guard let exchange = exchanges[id],
                exchange.phase == .sending || (exchange.phase == .written && lws_partial_buffered(exchange.wsi) != 0)
            else {
                flushing.remove(id)  // Sent, or ended (its lws pointer may be gone: never touch it).
                continue
            }
            guard exchange.phase == .written || watchSending else { continue }
            if clientSentMore(exchange) { drop(exchange, "sent more while its answer was still being sent") }
        }
    }

    /// Closes the connection at once, without sending what lws still holds for it.
    private func drop(_ exchange: HTTPExchange, _ why: String) {
        clientLog("HTTP client \(LWS.peer(of: exchange.wsi)) \(why); dropping the connection")
        exchanges[exchange.id] = nil
        flushing.remove(exchange.id)
        lws_set_timeout(exchange.wsi, PENDING_TIMEOUT_HTTP_CONTENT, LWS_TO_KILL_ASYNC)
    }

    /// True when some connection's input sits in lws unparsed (lws then polls without waiting):
    /// perhaps this one's. Connections under rx flow control do not count.
    private func lwsHoldsUnparsedInput() -> Bool {
        lws_service_adjust_timeout(context, 1, 0) == 0
    }

    /// True when the client has sent bytes (or closed its side) that lws has not parsed: in the
    /// socket, or in lws's own buffer for this connection.
    private func clientSentMore(_ exchange: HTTPExchange) -> Bool {
        var byte: UInt8 = 0
        let peeked = recv(lws_get_socket_fd(exchange.wsi), &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        if peeked >= 0 { return true }  // A byte, or the end of the client's stream.
        guard lwsHoldsUnparsedInput() else { return false }
        // Someone's input is held; whether it is this connection's shows when this one is paused.
        lws_rx_flow_control(exchange.wsi, 0)
        let othersHold = lwsHoldsUnparsedInput()
        lws_rx_flow_control(exchange.wsi, 1)
        return !othersHold
    }
}

/// How a request's body is framed, and whether the server takes it.
enum HTTPFraming: Equatable {
    /// A body of this many bytes follows the headers (0: none).
    case body(Int)
    /// A body of this many bytes (at least one) follows once the client is told `100 Continue`.
    case bodyAfterContinue(Int)
    /// Answer this and close: the body's end is unknown, or the body is too large.
    case refused(HTTPResponse)

    /// The rules: a body only with a valid `Content-Length`, never with `Transfer-Encoding`
    /// (both together is how requests are smuggled past proxies); POST, PUT and PATCH need a
    /// `Content-Length` (lws would otherwise read up to 100 MiB as the body). `Expect` may only
    /// be `100-continue` (417 otherwise); a request that is refused anyway gets its refusal
    /// instead of `100 Continue`, so its client never sends the body.
    init(
        method: HTTPRequest.Method, contentLength: String?, transferEncoding: String?, maxBodyBytes: Int,
        expect: String? = nil
    ) {
        if let expect, expect.trimmingCharacters(in: .whitespaces).lowercased() != "100-continue" {
            self = .refused(.error(417, "expectation_failed", "the only expectation understood is 100-continue"))
            return
        }
        if transferEncoding != nil {
            self =
                contentLength != nil
                ? .refused(.error(400, "bad_request", "Content-Length and Transfer-Encoding together"))
                : .refused(.error(411, "length_required", "send the body with a Content-Length"))
            return
        }
        guard let contentLength else {
            let needsLength = method == .post || method == .put || method == .patch
            self = needsLength ? .refused(.error(411, "length_required", "send a Content-Length")) : .body(0)
            return
        }
        // lws joins repeated headers with commas; only plain digits are one length.
        guard !contentLength.isEmpty, contentLength.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            self = .refused(.error(400, "bad_request", "Content-Length must be one non-negative integer"))
            return
        }
        let digits = contentLength.drop(while: { $0 == "0" })
        guard digits.count <= 12, let length = Int(digits.isEmpty ? "0" : String(digits)), length <= maxBodyBytes
        else {
            self = .refused(.error(413, "too_large", "request body over \(maxBodyBytes) bytes"))
            return
        }
        self = expect != nil && length > 0 ? .bodyAfterContinue(length) : .body(length)
    }
}
