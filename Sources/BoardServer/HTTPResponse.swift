internal import BoardCore

/// A complete HTTP response, built by a route and written in one piece.
struct HTTPResponse {
    var status: Int
    var contentType: String
    var body: [UInt8]
    var headers: [(String, String)] = []

    static func json(_ status: Int, _ build: (inout JSONWriter) -> Void) -> HTTPResponse {
        var w = JSONWriter()
        build(&w)
        return HTTPResponse(status: status, contentType: "application/json", body: w.bytes)
    }

    /// `{"error": code, "message": message}` with `status`.
    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        json(status) { w in
            w.beginObject()
            w.write("error", code)
            w.write("message", message)
            w.endObject()
        }
    }

    static func text(_ status: Int, _ text: String) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "text/plain; charset=utf-8", body: Array(text.utf8))
    }
}

/// What the server knows of an HTTP request once its body is in.
struct HTTPRequest {
    enum Method: String {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE", options = "OPTIONS", head =
            "HEAD", other
    }
    var method: Method
    var path: String
    var query: [String: String]
    var body: [UInt8] = []
}
