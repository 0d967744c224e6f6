internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// REST ops relayed to their board's owner: the transport of `Action.forwardHTTP`.
///
/// **The forwarding node.** Each relayed request is an lws HTTP client connection of its own
/// (from the server's context, so its callbacks come to the one protocol callback, tagged with
/// `WSIID.httpForwardTag`): `POST` to the same path at the owner's advertised `HOST:PORT`, over
/// TLS when this node serves TLS (the owner's certificate must verify, `--cluster-ca`, as for
/// WebSocket forwarding), HTTP/1.1 only. Its headers (CLIENT_APPEND_HANDSHAKE_HEADER) carry the
/// request's `Authorization`, `Content-Type` and `Origin` as they came, `Content-Length`,
/// `x-shuffleboard-forwarded-for: ADDRESS` and the cluster key; the body goes in
/// CLIENT_HTTP_WRITEABLE (one `lws_write`). The owner's status, content type and body
/// (RECEIVE_CLIENT_HTTP_READ, at most `--max-pending-bytes`) go to the hub at
/// COMPLETED_CLIENT_HTTP as `.forwardedAnswer(exchange, response)`; anything else (no
/// connection, an untrusted certificate, a body over the bound, a connection that ends first, no
/// answer within `--forward-timeout`) as `.forwardedAnswer(exchange, nil)`, once.
///
/// **The owner.** A request carrying `x-shuffleboard-forwarded-for` with a valid cluster key
/// counts as that address's (`Relay.forwardedHTTPAddress`) and is never relayed again.
///
/// Confined to the service thread. The hub bounds how many wait (`ClusterSettings.maxHTTPForwards`);
/// so does this table, in case the hub gave up on some that lws has not ended yet.
final class HTTPForwards: TransportPart {
    /// One relayed request.
    final class Forward {
        let id: ForwardID
        let exchange: ExchangeID
        let owner: NodeAddress
        let request: HTTPRequest
        let deadline: Instant
        var wsi: OpaquePointer?
        /// The body to write, after `LWS_PRE` bytes of headroom lws may use.
        var out: [UInt8]
        var status = 0
        var contentType: String?
        var body: [UInt8] = []

        init(id: ForwardID, exchange: ExchangeID, owner: NodeAddress, request: HTTPRequest, deadline: Instant) {
            self.id = id
            self.exchange = exchange
            self.owner = owner
            self.request = request
            self.deadline = deadline
            out = [UInt8](repeating: 0, count: Int(shuffleboard_lws_pre())) + request.body
        }
    }

    /// The most relayed requests lws may hold at once (twice the hub's bound: the hub forgets a
    /// request at its deadline, lws a moment later).
    private let limit: Int
    private(set) var forwards: [ForwardID: Forward] = [:]
    /// The hub's events and ids.
    private unowned let hub: any HubPort
    /// The lws context requests are made on (set once it is made).
    var context: OpaquePointer?

    init(_ shared: Shared, maxForwards: Int, hub: any HubPort) {
        self.hub = hub
        limit = 2 * max(1, maxForwards)
        super.init(shared)
    }

    /// `Action.forwardHTTP`: relays the request to the owner at `advertise`.
    func start(_ exchange: ExchangeID, to advertise: String, _ request: HTTPRequest) {
        guard let owner = NodeAddress(advertise: advertise), let context,
            forwards.count < limit, inet_addr(owner.host) != INADDR_NONE || owner.host.contains(":")
        else {
            // A name would be resolved here, on the service thread: the owner counts as unreachable.
            log.warning("not relaying \(exchange) to \"\(advertise)\": no IP address and port, or too many waiting")
            return hub.handle(.forwardedAnswer(exchange, nil))
        }
        let forward = Forward(
            id: ForwardID(hub.makeID()), exchange: exchange, owner: owner, request: request,
            deadline: Clock.now() + Instant.Span(config.forwardTimeout))
        // The subprotocol binds an HTTP client's wsi to the local protocol of that name too;
        // unbound, lws 4.1.6 swallows the answer's body instead of handing it to
        // RECEIVE_CLIENT_HTTP_READ.
        var connect = ClientConnect.toNode(
            owner, path: Self.pathAndQuery(request), tls: config.tlsCertificate != nil)
        connect.method = "POST"
        connect.alpn = "http/1.1"
        connect.opaqueUserData = WSIID.opaque(forward.id.rawValue | WSIID.httpForwardTag)
        forwards[forward.id] = forward
        guard let wsi = connect.start(on: context) else {
            return finish(forward, nil)
        }
        forward.wsi = wsi
        log.debug("\(exchange) from \(request.peer): relayed to \(advertise) (\(forward.id))")
    }

    /// The request's path (percent-encoded again) and its query.
    static func pathAndQuery(_ request: HTTPRequest) -> String {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
        let path = request.path.addingPercentEncoding(withAllowedCharacters: allowed) ?? "/"
        guard !request.query.isEmpty else { return path }
        let valueAllowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let query = request.query.sorted { $0.key < $1.key }.map { key, value in
            (key.addingPercentEncoding(withAllowedCharacters: valueAllowed) ?? "") + "="
                + (value.addingPercentEncoding(withAllowedCharacters: valueAllowed) ?? "")
        }
        return path + "?" + query.joined(separator: "&")
    }

    /// The hub hears of the forward once; lws closes its connection (now, or when it is done).
    private func finish(_ forward: Forward, _ response: HTTPResponse?) {
        guard forwards.removeValue(forKey: forward.id) != nil else { return }
        if let wsi = forward.wsi { lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC) }
        hub.handle(.forwardedAnswer(forward.exchange, response))
    }

    /// On every tick: a forward past its deadline ends without an answer.
    func tick(now: Instant) {
        for forward in forwards.values.sorted(by: { $0.id < $1.id }) where now >= forward.deadline {
            log.debug(
                "\(forward.id) of \(forward.exchange) to \(forward.owner): no answer in time")
            finish(forward, nil)
        }
    }

    /// Forgets every forward (after the context is gone).
    func removeAll() { forwards.removeAll() }

    /// The callbacks of forward `id`'s wsi; nil for reasons left to lws's defaults.
    func callback(
        _ wsi: OpaquePointer, _ reason: lws_callback_reasons, _ id: ForwardID, _ input: UnsafeMutableRawPointer?,
        _ length: Int
    ) -> Int32? {
        guard let forward = forwards[id] else {
            switch reason {
            case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER, LWS_CALLBACK_CLIENT_HTTP_WRITEABLE,
                LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP, LWS_CALLBACK_RECEIVE_CLIENT_HTTP,
                LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
                return -1
            default:
                return nil
            }
        }
        switch reason {
        case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER:
            guard appendHeaders(forward, wsi, input, length) else {
                finish(forward, nil)
                return -1
            }
            lws_client_http_body_pending(wsi, 1)
            lws_callback_on_writable(wsi)
            return 0
        case LWS_CALLBACK_CLIENT_HTTP_WRITEABLE:
            let pre = Int(shuffleboard_lws_pre())
            lws_client_http_body_pending(wsi, 0)
            let written = forward.out.withUnsafeMutableBytes { buffer in
                LWS.write(wsi, buffer.baseAddress! + pre, buffer.count - pre, LWS_WRITE_HTTP_FINAL)
            }
            return written ? 0 : -1
        case LWS_CALLBACK_ESTABLISHED_CLIENT_HTTP:
            forward.status = Int(lws_http_client_http_response(wsi))
            forward.contentType = LWS.header(wsi, WSI_TOKEN_HTTP_CONTENT_TYPE)
            return 0
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP:
            // lws_http_client_read calls back with RECEIVE_CLIENT_HTTP_READ for what it read.
            var buffer = [UInt8](repeating: 0, count: Int(shuffleboard_lws_pre()) + 4096)
            return buffer.withUnsafeMutableBytes { raw in
                var start: UnsafeMutablePointer<CChar>? =
                    raw.baseAddress!.assumingMemoryBound(to: CChar.self) + Int(shuffleboard_lws_pre())
                var size = Int32(raw.count - Int(shuffleboard_lws_pre()))
                return lws_http_client_read(wsi, &start, &size) < 0 ? -1 : 0
            }
        case LWS_CALLBACK_RECEIVE_CLIENT_HTTP_READ:
            guard forward.body.count + length <= config.maxPendingBytes else {
                log.warning(
                    "\(forward.id) of \(forward.exchange): the owner's answer is over --max-pending-bytes "
                        + "(\(config.maxPendingBytes)); dropped")
                finish(forward, nil)
                return -1
            }
            if let input, length > 0 {
                forward.body += UnsafeRawBufferPointer(start: input, count: length)
            }
            return 0
        case LWS_CALLBACK_COMPLETED_CLIENT_HTTP:
            finish(forward, answer(forward))
            return 0
        case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
            if let problem = shuffleboard_tls_verify_error(wsi) {
                log.warning(
                    "not relaying to the board owner at \(forward.owner): its TLS certificate does "
                        + "not verify (\(String(cString: problem)))")
            }
            log.debug("\(forward.id) to \(forward.owner) failed")
            forward.wsi = nil
            finish(forward, nil)
            return 0
        case LWS_CALLBACK_CLOSED_CLIENT_HTTP, LWS_CALLBACK_WSI_DESTROY:
            forward.wsi = nil
            finish(forward, nil)
            return nil
        default:
            return nil
        }
    }

    /// The owner's answer as the client gets it: its status, content type and body.
    private func answer(_ forward: Forward) -> HTTPResponse? {
        guard (100...599).contains(forward.status) else { return nil }
        var response = HTTPResponse(
            status: forward.status, contentType: forward.contentType ?? "application/json", body: forward.body)
        // The owner sends `retry-after: 1` with each 429 and 503 (lws does not keep that header for a client).
        if forward.status == 429 || forward.status == 503 {
            response.headers.append(HTTPResponse.Header("retry-after:", "1"))
        }
        return response
    }

    /// The request's headers: its own, the client's address and the cluster key.
    private func appendHeaders(
        _ forward: Forward, _ wsi: OpaquePointer, _ input: UnsafeMutableRawPointer?, _ length: Int
    ) -> Bool {
        guard let input else { return false }
        let p = input.assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self)
        guard let start = p.pointee else { return false }
        let end = start + length
        func add(_ name: String, _ value: String) -> Bool { LWS.addHeader(wsi, name, value, p, end) }
        let request = forward.request
        if let authorization = request.authorization, !add("authorization:", authorization) { return false }
        if let origin = request.origin, !add("origin:", origin) { return false }
        guard add("content-type:", request.contentType ?? "application/json"),
            add("content-length:", String(request.body.count)),
            add(Relay.forwardedForHeader, request.peer)
        else { return false }
        if let clusterKey = keys.presented, !add(Relay.clusterKeyHeader, clusterKey.hex) { return false }
        return true
    }
}
