package import BoardCore

/// What the hub knows of an HTTP request once its body is in.
package struct HTTPRequest: Equatable, Sendable {
    /// The request method.
    package enum Method: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE", options = "OPTIONS"
        case head = "HEAD", other = "OTHER"
    }
    /// The method.
    package var method: Method
    /// The path, URL-decoded, without the query.
    package var path: String
    /// The URL arguments, decoded.
    package var query: [String: String]
    /// The body.
    package var body: [UInt8]
    /// The `Authorization` header, if any.
    package var authorization: String?
    /// The `Content-Type` header, if any.
    package var contentType: String?
    /// The `Origin` header, if any (browsers send it; see `OriginPolicy`).
    package var origin: String?
    /// The client's address, for log lines.
    package var peer: String
    /// The `Last-Event-ID` header, if any (an `EventSource` resuming `GET /api/boards/{id}/events`).
    package var lastEventID: String?
    /// With `Hub.Config.proxy`: the socket's own address and the proxy's headers (Hub+Proxy.swift).
    package var proxy: ProxyHeaders?
    /// Whether another node of the cluster relayed this request (its cluster key checked): such
    /// a request is never relayed again, so that no request goes round between nodes.
    package var forwarded = false

    /// A request.
    package init(
        method: Method, path: String, query: [String: String] = [:], body: [UInt8] = [], authorization: String? = nil,
        contentType: String? = nil, origin: String? = nil, peer: String = "?", lastEventID: String? = nil
    ) {
        self.lastEventID = lastEventID
        self.method = method
        self.path = path
        self.query = query
        self.body = body
        self.authorization = authorization
        self.contentType = contentType
        self.origin = origin
        self.peer = peer
    }

    /// Whether the request asks to change something (and so is checked for cross-site forgery).
    package var writes: Bool {
        switch method {
        case .post, .put, .patch, .delete: true
        case .get, .head, .options, .other: false
        }
    }

    /// Whether `Content-Type` says JSON: `application/json`, in any case, with parameters or not
    /// (`application/json; charset=utf-8`). A browser page on another site can send only
    /// `text/plain`, form and multipart bodies without asking the server first (a CORS preflight,
    /// which this server never grants), so an API write must say JSON.
    package var saysJSON: Bool {
        guard let contentType else { return false }
        return String(contentType.prefix { $0 != ";" }).trimmingWhitespace().lowercased() == "application/json"
    }
}

/// A complete HTTP response, built by a route and written in one piece.
package struct HTTPResponse: Equatable, Sendable {
    /// One header line beyond the common ones.
    package struct Header: Equatable, Sendable {
        /// The name with its colon, as lws wants it (`allow:`).
        package var name: String
        /// The value.
        package var value: String
        /// A header.
        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The status code.
    package var status: Int
    /// The content type.
    package var contentType: String
    /// The body.
    package var body: [UInt8]
    /// Extra headers.
    package var headers: [Header]
    /// The connection closes after this answer (`connection: close`): a refusal that a client
    /// may repeat at once (history reads past their limits) then costs it a new connection,
    /// which the accept-time caps (`--connect-rate`, `--max-pending-per-address`) bound cheaply.
    package var closesConnection = false

    /// A response.
    package init(status: Int, contentType: String, body: [UInt8], headers: [Header] = []) {
        self.status = status
        self.contentType = contentType
        self.body = body
        self.headers = headers
    }

    /// A JSON body built by `build`.
    package static func json(_ status: Int, _ build: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter()
        build(&w)
        return HTTPResponse(status: status, contentType: "application/json", body: w.bytes)
    }

    /// `{"error": code, "message": message}` with `status`.
    package static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        json(status) { w in
            w.beginObject()
            w.write("error", code)
            w.write("message", message)
            w.endObject()
        }
    }

    /// A plain-text body.
    package static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }

    /// 405 with the `allow` header.
    package static func methodNotAllowed(_ allow: String) -> HTTPResponse {
        var response = HTTPResponse.error(405, "method_not_allowed", "allowed: \(allow)")
        response.headers.append(Header("allow:", allow))
        return response
    }
}

extension HTTPResponse {
    /// A JSON object with `status`, its members written by `members`.
    package static func object(_ status: Int = 200, _ members: (inout JSONWriter) -> Void) -> HTTPResponse {
        json(status) { w in
            w.beginObject()
            members(&w)
            w.endObject()
        }
    }

    /// 200 `{…head, key: [an object of each element, its members written by `members`], …tail}`.
    package static func list<Elements: Sequence>(
        _ key: String, _ elements: Elements, head: (inout JSONWriter) -> Void = { _ in },
        tail: (inout JSONWriter) -> Void = { _ in }, members: (inout JSONWriter, Elements.Element) -> Void
    ) -> HTTPResponse {
        object { w in
            head(&w)
            w.beginArray(key)
            for element in elements {
                w.beginObject()
                members(&w, element)
                w.endObject()
            }
            w.endArray()
            tail(&w)
        }
    }
}

/// A query parameter that is not what its route takes: 400 `bad_request`, saying what it must be.
struct BadParameter: Error, Equatable {
    /// What the 400 says.
    var message: String
    /// The answer.
    var response: HTTPResponse { .error(400, "bad_request", message) }
}

extension [String: String] {
    /// The query's `key` as `parse` makes it, nil when the query has none; `BadParameter` saying
    /// "`key` must `must`" when `parse` refuses it.
    func parameter<Parsed>(
        _ key: String, must: @autoclosure () -> String, _ parse: (String) -> Parsed?
    ) throws(BadParameter) -> Parsed? {
        guard let text = self[key] else { return nil }
        guard let value = parse(text) else { throw BadParameter(message: "\(key) must \(must())") }
        return value
    }

    /// The query's `key` as a whole number in `range`, nil when the query has none.
    func number(_ key: String, in range: ClosedRange<Int>, must: @autoclosure () -> String) throws(BadParameter) -> Int?
    {
        try parameter(key, must: must()) { Int($0).flatMap { range.contains($0) ? $0 : nil } }
    }

    /// The query's `limit` of a page: a whole number from 1 to `most`, `fallback` when it has none.
    func limit(default fallback: Int, most: Int) throws(BadParameter) -> Int {
        try number("limit", in: 1...most, must: "be an integer from 1 to \(most)") ?? fallback
    }
}
