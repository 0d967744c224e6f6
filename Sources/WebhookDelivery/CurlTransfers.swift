internal import BoardAuth
internal import BoardHooks
internal import CCurl
import Glibc

/// The POSTs in flight, on one libcurl multi handle: at most one per webhook (the machine asks
/// for the next only once this one came back). Confined to the delivery thread, except `wake`,
/// which any thread may call (`curl_multi_wakeup` is thread-safe).
///
/// Each connection is checked where libcurl opens its socket (`CURLOPT_OPENSOCKETFUNCTION`), on
/// the address the name resolved to: a loopback, private, link-local or unique-local one is
/// refused there unless `allowPrivate`, so no DNS answer (nor a rebinding between two lookups)
/// can point a webhook inside. No redirect is followed, only http and https are spoken, no
/// proxy from the environment is used, and the answer's body is dropped as it comes.
final class CurlTransfers {
    /// What one transfer needs while it runs, reached from libcurl's callbacks by `CURLOPT_OPENSOCKETDATA`.
    final class Transfer {
        let hook: String
        let allowPrivate: Bool
        var headers: UnsafeMutablePointer<curl_slist>?
        /// Set by the socket callback when it refused the address.
        var refused: String?

        init(hook: String, allowPrivate: Bool) {
            self.hook = hook
            self.allowPrivate = allowPrivate
        }
    }

    /// How long a POST may take, from connecting to the answer's last byte.
    static let timeoutMilliseconds = 10_000

    nonisolated(unsafe) let multi: UnsafeMutableRawPointer
    private let allowPrivate: Bool
    /// Each easy handle's transfer.
    private var running: [UnsafeMutableRawPointer: Transfer] = [:]

    init?(allowPrivate: Bool) {
        guard let multi = curl_multi_init() else { return nil }
        self.multi = multi
        self.allowPrivate = allowPrivate
    }

    deinit {
        for handle in running.keys { finish(handle) }
        curl_multi_cleanup(multi)
    }

    /// How many POSTs are in flight.
    var count: Int { running.count }

    /// Ends `curl_multi_poll` early (from any thread).
    func wake() { curl_multi_wakeup(multi) }

    /// Starts posting `post` for webhook `hook`; false (with why) when libcurl refused to.
    func start(_ post: HookPost, hook: String) -> String? {
        guard let handle = curl_easy_init() else { return "libcurl could not make a transfer" }
        let transfer = Transfer(hook: hook, allowPrivate: allowPrivate)
        let headers = post.headers { secret, timestamp, body in
            WebhookSignature.header(secret: secret, timestamp: timestamp, body: body)
        }
        for line in headers { transfer.headers = curl_slist_append(transfer.headers, line) }
        // Without this, libcurl sends "Expect: 100-continue" for a body over 1 KiB and waits
        // for an interim answer that few receivers send.
        transfer.headers = curl_slist_append(transfer.headers, "Expect:")
        var ok = true
        func check(_ code: CURLcode) { if code != CURLE_OK { ok = false } }
        check(shuffleboard_curl_set_string(handle, CURLOPT_URL, post.url))
        check(shuffleboard_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https"))
        check(shuffleboard_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 0))
        // No proxy, whatever http_proxy says: the address checked must be the receiver's.
        check(shuffleboard_curl_set_string(handle, CURLOPT_PROXY, ""))
        check(shuffleboard_curl_set_long(handle, CURLOPT_NOSIGNAL, 1))
        check(shuffleboard_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Self.timeoutMilliseconds))
        check(shuffleboard_curl_set_long(handle, CURLOPT_POST, 1))
        check(shuffleboard_curl_set_long(handle, CURLOPT_POSTFIELDSIZE, post.body.count))
        check(
            post.body.withUnsafeBytes {
                shuffleboard_curl_set_pointer(
                    handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
            })
        check(shuffleboard_curl_set_pointer(handle, CURLOPT_HTTPHEADER, UnsafeMutableRawPointer(transfer.headers)))
        check(shuffleboard_curl_discard_body(handle))
        check(shuffleboard_curl_set_opensocket(handle, openSocket))
        check(
            shuffleboard_curl_set_pointer(
                handle, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(transfer).toOpaque()))
        guard ok, curl_multi_add_handle(multi, handle) == CURLM_OK else {
            curl_slist_free_all(transfer.headers)
            curl_easy_cleanup(handle)
            return "libcurl refused the request's options"
        }
        running[handle] = transfer
        return nil
    }

    /// Stops the webhook's POST, if one is in flight (the webhook was removed).
    func cancel(hook: String) {
        for (handle, transfer) in running where transfer.hook == hook { finish(handle) }
    }

    /// Moves every transfer along, then waits up to `milliseconds` for a socket or `wake`, and
    /// moves them along again; returns the POSTs that finished, with their outcomes.
    func run(waiting milliseconds: Int) -> [(hook: String, outcome: HookMachine.PostOutcome)] {
        var active: Int32 = 0
        curl_multi_perform(multi, &active)
        curl_multi_poll(multi, nil, 0, Int32(clamping: milliseconds), nil)
        curl_multi_perform(multi, &active)
        var done: [(String, HookMachine.PostOutcome)] = []
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let transfer = running[handle]
            else { continue }
            let result = shuffleboard_curl_message_result(message)
            if result == CURLE_OK {
                var code = 0
                _ = shuffleboard_curl_response_code(handle, &code)
                done.append((transfer.hook, .status(code)))
            } else if let refused = transfer.refused {
                done.append((transfer.hook, .failed(refused)))
            } else {
                done.append((transfer.hook, .failed(String(cString: curl_easy_strerror(result)))))
            }
            finish(handle)
        }
        return done
    }

    private func finish(_ handle: UnsafeMutableRawPointer) {
        curl_multi_remove_handle(multi, handle)
        if let transfer = running.removeValue(forKey: handle) { curl_slist_free_all(transfer.headers) }
        curl_easy_cleanup(handle)
    }
}

/// libcurl's socket callback: refuses (returns `CURL_SOCKET_BAD`, which fails the transfer with
/// "couldn't connect") an address the policy does not allow, and opens the socket otherwise.
private let openSocket: curl_opensocket_callback = { user, _, address in
    guard let user, let address else { return -1 }
    let transfer = Unmanaged<CurlTransfers.Transfer>.fromOpaque(user).takeUnretainedValue()
    var bytes = [UInt8](repeating: 0, count: 16)
    let count = shuffleboard_curl_address(address, &bytes)
    let allowed: Bool
    switch count {
    case 4: allowed = AddressPolicy.allows(ipv4: Array(bytes[0..<4]))
    case 16: allowed = AddressPolicy.allows(ipv6: bytes)
    default: allowed = false
    }
    guard allowed || transfer.allowPrivate else {
        transfer.refused =
            "refused to connect to a loopback, private or reserved address (--webhook-allow-private allows it)"
        return -1
    }
    return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
}
