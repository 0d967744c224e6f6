internal import BoardCore
internal import BoardHub
internal import CLibWebSockets
internal import LWSSupport

/// The framing checks lws 4.1.6 leaves to the server: masks (RFC 6455 5.1), binary frames on
/// `/ws` (1003), message sizes (1009) and close frames' payloads.
extension WebSockets {
    /// A piece of a message (a whole frame, or part of a long one; possibly 0 bytes). Checks the
    /// frame, counts the message's bytes against its endpoint's limit, and hands complete
    /// messages on: to the hub from `/ws`, back to the sender from the echo endpoint.
    ///
    /// A frame that breaks the rules closes the connection from the next WRITEABLE (returning -1
    /// here is ignored under permessage-deflate), and everything after it is dropped, even what
    /// lws already read in the same burst; so is everything after a frame lws failed the
    /// connection for (lws goes on parsing what follows, from inside the bad frame), and after
    /// the client's close frame (RFC 6455 5.5.1).
    func receive(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, on connection: Connection) {
        guard !connection.rxRefused, connection.closing == nil, connection.lwsFailure == nil,
            checkMasked(wsi, on: connection)
        else { return }
        // lws_frame_is_binary is the opcode of the frame that began the message in progress.
        let binary = lws_frame_is_binary(wsi) != 0
        let limit: Int
        switch connection.endpoint {
        case .board:
            guard !binary else {
                return refuse(connection, 1003, "binary frames are not supported", because: "sent a binary frame")
            }
            limit = config.maxMessageBytes
        case .echo:
            limit = config.echoMaxMessageBytes
        case .node:
            guard binary else {
                return refuse(
                    connection, 1003, "a node link sends binary frames", because: "sent a text frame on a link")
            }
            limit = NodeLinks.maxFrameBytes(config)
        }
        guard connection.rx.count + length <= limit else {
            port.handle(.transportCounted(.limit(.messageSize)))
            return refuse(connection, 1009, "message too large", because: "sent a message over \(limit) bytes")
        }
        guard let message = LWS.message(input, length, wsi: wsi, buffer: &connection.rx) else { return }
        switch connection.endpoint {
        case .board: received(message, on: connection)
        case .echo: echo(Frame(payload: message, binary: binary), to: connection)
        case .node: linkReceived(message, on: connection)
        }
    }

    /// Closes with 1002 when the frame being delivered was not masked (RFC 6455 5.1), which lws
    /// 4.1.6 does not check itself. Returns false when it did.
    @discardableResult
    func checkMasked(_ wsi: OpaquePointer, on connection: Connection) -> Bool {
        switch shuffleboard_frame_is_masked(wsi) {
        case 0:
            refuse(connection, 1002, "client frames must be masked", because: "sent an unmasked frame")
            return false
        case 1:
            return true
        default:
            warnMaskUnknown()
            return true
        }
    }

    /// The client started the closing handshake. lws echoes its close frame (after replacing
    /// codes that are not allowed on the wire by 1002) when this returns 0; the cases it lets
    /// through are answered with 1002 here, and lws closes when this returns -1.
    func peerClosing(_ input: UnsafeMutableRawPointer?, _ length: Int, wsi: OpaquePointer, id: UInt64) -> Int32 {
        let problem: String?
        if shuffleboard_frame_is_masked(wsi) == 0 {
            problem = "no mask"
        } else if length == 1 {
            problem = "a payload of one byte"
        } else if length >= 2, let input {
            let bytes = input.assumingMemoryBound(to: UInt8.self)
            // lws refuses codes below 1000 and the reserved ones below 3000, but not 5000 and up.
            problem = Int(bytes[0]) << 8 | Int(bytes[1]) >= 5000 ? "a code above 4999" : nil
        } else {
            problem = nil
        }
        let connection = connections[ConnectionID(id)]
        guard let problem else {
            connection?.closing = (Self.closeCode(input, length), Self.closeReason(input, length), false)
            return 0
        }
        clientLog.warning(
            "connection \(id) from \(connection?.peer ?? "?") sent a close frame with \(problem); closing with 1002")
        LWS.setCloseReason(wsi, code: 1002, reason: "bad close frame: \(problem)")
        connection?.closing = (1002, "bad close frame: \(problem)", true)
        return -1
    }

    /// The code of a close frame's payload (1005: none).
    private static func closeCode(_ input: UnsafeMutableRawPointer?, _ length: Int) -> UInt16 {
        guard length >= 2, let input else { return 1005 }
        let bytes = input.assumingMemoryBound(to: UInt8.self)
        return UInt16(bytes[0]) << 8 | UInt16(bytes[1])
    }

    /// The reason of a close frame's payload (at most 123 bytes; lws checked that it is UTF-8).
    private static func closeReason(_ input: UnsafeMutableRawPointer?, _ length: Int) -> String {
        guard length > 2, let input else { return "" }
        let bytes = UnsafeRawBufferPointer(start: input + 2, count: min(length - 2, LWS.maximumCloseReasonBytes))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Marks the connection refused (what else it sends is dropped) and closes it with `code`.
    private func refuse(_ connection: Connection, _ code: UInt16, _ reason: String, because what: String) {
        connection.rxRefused = true
        connection.rx = []
        clientLog.warning("connection \(connection.id) from \(connection.peer) \(what); closing with \(code)")
        connection.close(code: code, reason: reason)
    }
}
