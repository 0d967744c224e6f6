package import CLibWebSockets
import Glibc

/// Small helpers on lws calls that both the server and the client make, so each rule is written once.
package enum LWS {
    /// The largest close reason: a close frame's payload is at most 125 bytes, two of them the code.
    package static let maximumCloseReasonBytes = 123

    /// The reason lws gives with CLIENT_CONNECTION_ERROR: text of `length` bytes (a NUL may end
    /// it sooner), at most 200 of them; empty when there is none.
    package static func errorText(_ input: UnsafeMutableRawPointer?, _ length: Int) -> String {
        guard let input else { return "" }
        let bytes = UnsafeRawBufferPointer(start: input, count: max(0, min(length, 200)))
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Adds header `name` (with its colon, as lws wants it: `"origin:"`) and `value` at `*p`,
    /// moving `*p` past it; false when it does not fit before `end`. For answers, handshakes and
    /// requests alike: lws copies the value, so it need not outlive the call.
    package static func addHeader(
        _ wsi: OpaquePointer, _ name: String, _ value: String, _ p: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
        _ end: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        var bytes = Array(value.utf8)
        return name.withCString { cName in
            cName.withMemoryRebound(to: UInt8.self, capacity: name.utf8.count + 1) { name in
                lws_add_http_header_by_name(wsi, name, &bytes, Int32(bytes.count), p, end) == 0
            }
        }
    }

    /// Sets the close code and reason that lws sends when the callback returns -1. The reason is
    /// cut to `maximumCloseReasonBytes`, never inside a UTF-8 sequence.
    package static func setCloseReason(_ wsi: OpaquePointer, code: UInt16, reason: String) {
        var bytes = closeReasonBytes(reason)
        bytes.withUnsafeMutableBufferPointer {
            lws_close_reason(wsi, lws_close_status(rawValue: UInt32(code)), $0.baseAddress, $0.count)
        }
    }

    /// What a WRITEABLE callback returns to close its WebSocket with `code` and `reason`: -1 the
    /// first time, with the close reason set (lws then sends the close frame and waits, at most
    /// 5 s, for the peer's, reading and dropping what comes before it), and 0 every later time.
    /// lws keeps calling WRITEABLE while it waits, and a second -1 would make it drop the socket
    /// at once with the peer's last messages unread: the kernel then resets the connection, and a
    /// peer still sending loses the close frame. `handedOver` remembers the first time.
    ///
    /// Except when the close fails the connection (`failsConnection`: 1002, 1007): then the peer
    /// broke the protocol, RFC 6455 7.1.7 has the server close TCP without waiting for its close
    /// frame, and lws, whose frame parser may be stuck inside the bad frame, would not see one
    /// anyway. The first WRITEABLE after the close frame went out (lws calls it once its close
    /// frame is written) returns -1 again, and lws closes the socket.
    package static func closeFromWriteable(
        _ wsi: OpaquePointer, code: UInt16, reason: String, handedOver: inout Bool
    ) -> Int32 {
        guard !handedOver else { return failsConnection(code) ? -1 : 0 }
        handedOver = true
        setCloseReason(wsi, code: code, reason: reason)
        return -1
    }

    /// True for the close codes that fail the connection for breaking the protocol (RFC 6455
    /// 7.1.7, 7.4.1): 1002 (protocol error) and 1007 (invalid payload data, bad UTF-8). After such
    /// a close frame the server closes TCP at once instead of waiting for the peer's.
    package static func failsConnection(_ code: UInt16) -> Bool {
        code == 1002 || code == 1007
    }

    /// The close code and reason set on a WebSocket for lws to send (`lws_close_reason`), or nil
    /// when none is. lws's own frame parser sets one when it fails the connection (1002 for a
    /// reserved opcode or reserved bits, a bad continuation, a fragmented control frame; 1007 for
    /// text that is not UTF-8); `setCloseReason` sets one too. lws 4.1.6 tells the application
    /// nothing else when it fails a connection: it writes its close frame (no WRITEABLE before
    /// it), leaves POLLOUT on, and so calls WRITEABLE once more after it
    /// (`rops_handle_POLLOUT_ws`, lib/roles/ws/ops-ws.c).
    package static func closeReason(of wsi: OpaquePointer) -> (code: UInt16, reason: String)? {
        let length = Int(lws_get_close_length(wsi))
        guard length >= 2, let payload = lws_get_close_payload(wsi) else { return nil }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        let reason = UnsafeBufferPointer(start: payload + 2, count: min(length - 2, maximumCloseReasonBytes))
        return (code, String(decoding: reason, as: UTF8.self))
    }

    /// `reason` as a close frame carries it: UTF-8, cut to `maximumCloseReasonBytes` between scalars.
    package static func closeReasonBytes(_ reason: String) -> [UInt8] {
        var bytes: [UInt8] = []
        for scalar in reason.unicodeScalars {
            guard bytes.count + UTF8.width(scalar) <= maximumCloseReasonBytes else { break }
            UTF8.encode(scalar) { bytes.append($0) }
        }
        return bytes
    }

    /// One RECEIVE's piece of a message (`length` bytes at `input`; lws may hand over none): on the
    /// message's last piece (`lws_is_final_fragment`), the whole message, and `buffer` is emptied
    /// (not kept for the life of the connection: an idle one holds none); before it, nil, and the
    /// piece waits in `buffer`. A message in one piece is never copied into `buffer`.
    package static func message(
        _ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, buffer: inout [UInt8]
    ) -> [UInt8]? {
        let bytes =
            input.map { UnsafeRawBufferPointer(start: $0, count: length) }
            ?? UnsafeRawBufferPointer(start: nil, count: 0)
        guard lws_is_final_fragment(wsi) != 0 else {
            buffer.append(contentsOf: bytes)
            return nil
        }
        guard !buffer.isEmpty else { return Array(bytes) }
        buffer.append(contentsOf: bytes)
        defer { buffer = [] }
        return buffer
    }

    /// One `lws_write` of `length` bytes at `start` (with `LWS_PRE` of headroom before it).
    /// Returns false when the connection must be closed: lws failed, or took less than all of
    /// it (a raw write that the socket cannot take whole is kept by lws and still counts as taken).
    package static func write(
        _ wsi: OpaquePointer, _ start: UnsafeMutableRawPointer, _ length: Int, _ mode: lws_write_protocol
    ) -> Bool {
        let written = lws_write(wsi, start.assumingMemoryBound(to: UInt8.self), length, mode)
        return written >= 0 && Int(written) >= length
    }

    /// A header's value, or nil when the request has none. All of its bytes: lws copies a value
    /// with `strncpy`, so each byte from a NUL on comes out as NUL, and the value is not cut
    /// there (`https://allowed.example\0evil` must never read as `https://allowed.example`).
    package static func header(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> String? {
        guard let bytes = headerBytes(wsi, token) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A header's bytes as `header` reads them, or nil when the request has none.
    private static func headerBytes(_ wsi: OpaquePointer, _ token: lws_token_indexes) -> [UInt8]? {
        let length = Int(lws_hdr_total_length(wsi, token))
        guard length > 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: length + 1)
        guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
        return buffer.prefix(length).map { UInt8(bitPattern: $0) }
    }

    /// The name of the first request header lws parsed whose value holds a control byte (NUL,
    /// CR or LF that lws let through, any other below 0x20 but tab, or DEL), or nil when none
    /// does. Such a value is no header a browser or HTTP library sends: it is an attempt to make
    /// the server read a value other than a proxy (or a C string) does. The request line's
    /// tokens (the path and its arguments, which lws has URL-decoded) are not headers and are
    /// left to the code that reads them. lws stores a NUL but does not count it in the value's
    /// length: a NUL with bytes after it is found here (they shift into the counted part), one
    /// at a value's very end is not, and is dropped (the value reads as if it were not there).
    package static func headerWithControlByte(_ wsi: OpaquePointer) -> String? {
        let requestLine: [lws_token_indexes] = [
            WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI, WSI_TOKEN_OPTIONS_URI, WSI_TOKEN_PUT_URI, WSI_TOKEN_PATCH_URI,
            WSI_TOKEN_DELETE_URI, WSI_TOKEN_HEAD_URI, WSI_TOKEN_CONNECT, WSI_TOKEN_HTTP_URI_ARGS,
            WSI_TOKEN_HTTP_COLON_PATH,
        ]
        for index in 0..<WSI_TOKEN_COUNT.rawValue {
            let token = lws_token_indexes(rawValue: index)
            guard !requestLine.contains(where: { $0.rawValue == index }), let bytes = headerBytes(wsi, token) else {
                continue
            }
            guard bytes.contains(where: isControl) else { continue }
            guard let name = lws_token_to_string(token) else { return "header \(index)" }
            var text = String(cString: name)
            if text.hasSuffix(":") { text.removeLast() }
            return text

        }
        return nil
    }

    /// True when lws ended the request line before its HTTP version. lws 4.1.6 ends the URI at a
    /// CR or LF even when it decoded it from `%0D` or `%0A`, and reads what followed as header
    /// lines: the path it hands over is a shorter one than the client asked for
    /// (`/webhooks/a%0Ab/enable` arrives as `/webhooks/a`), and it must not be routed as if it
    /// were asked for.
    package static func requestLineWasCut(_ wsi: OpaquePointer) -> Bool {
        lws_hdr_total_length(wsi, WSI_TOKEN_HTTP) <= 0
    }

    /// A control byte in a header value: below 0x20 but horizontal tab, and DEL.
    package static func isControl(_ byte: UInt8) -> Bool {
        (byte < 0x20 && byte != 0x09) || byte == 0x7F
    }

    /// The peer's address, or `?`.
    package static func peer(of wsi: OpaquePointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard lws_get_peer_simple(wsi, &buffer, buffer.count) != nil else { return "?" }
        return text(of: buffer)
    }

    /// Reads and drops, without waiting, at most `limit` bytes that the peer sent and lws has not
    /// read. For LWS_CALLBACK_CLOSED, which lws 4.1.6 calls just before it closes the socket:
    /// reading at most one rx buffer per pass, it can leave input unread there (when the close
    /// handshake timed out, or the peer sent more after its close frame), and its shutdown marks
    /// the socket unusable before the check that would wait for the peer's FIN. A socket closed
    /// with unread input answers with a reset instead of a FIN, and a peer that gets the reset
    /// loses what it had not read yet, a close frame among it.
    package static func discardUnread(_ wsi: OpaquePointer, limit: Int = 65_536) {
        let fd = lws_get_socket_fd(wsi)
        guard fd >= 0 else { return }
        withUnsafeTemporaryAllocation(byteCount: 4096, alignment: 16) { buffer in
            var left = limit
            while left > 0 {
                let n = recv(fd, buffer.baseAddress, min(buffer.count, left), Int32(MSG_DONTWAIT))
                guard n > 0 else { return }
                left -= n
            }
        }
    }

    /// The URL arguments, each `name=value` fragment already decoded by lws.
    package static func query(_ wsi: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        var buffer = [CChar](repeating: 0, count: 512)
        var index: Int32 = 0
        while lws_hdr_copy_fragment(wsi, &buffer, Int32(buffer.count), WSI_TOKEN_HTTP_URI_ARGS, index) > 0 {
            let text = text(of: buffer)
            if let eq = text.firstIndex(of: "=") {
                result[String(text[..<eq])] = String(text[text.index(after: eq)...])
            } else {
                result[text] = ""
            }
            index += 1
        }
        return result
    }

    /// The text of a NUL-terminated buffer that lws filled (invalid UTF-8 repaired).
    package static func text(of buffer: [CChar]) -> String {
        String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
