internal import BoardHub
import Foundation

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
