internal import BoardHub
internal import CLibWebSockets
import Glibc
internal import LWSSupport

/// What is checked before a WebSocket upgrade is accepted, and how a refused one is answered.
extension WebSockets {
    /// Whether a WebSocket upgrade may go on (at LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION); when it
    /// may not, its answer is written here and lws must close the connection (return -1).
    /// - A path other than `/ws` (and the echo path): 404.
    /// - A header holding a control byte (`Origin: https://allowed.example\0evil`): 400.
    /// - An `Origin` that `--allow-origin` does not list, or none when it lists some and
    ///   `--allow-no-origin` is not given: 403.
    func admitUpgrade(_ wsi: OpaquePointer) -> Bool {
        // The node links' own protocol is for this node's client connections only: a client that
        // names it as its subprotocol would get its 64 KiB receive buffer.
        if let bound = lws_get_protocol(wsi)?.pointee.name, String(cString: bound) == NodeLinks.localProtocol {
            meters.upgradesRefused.add(.path)
            clientLog.warning("WebSocket upgrade from \(LWS.peer(of: wsi)) refused: it asks for an internal protocol")
            refuseUpgrade(wsi, .error(400, "bad_request", "no such subprotocol"))
            return false
        }
        guard endpoint(of: wsi) != nil else {
            meters.upgradesRefused.add(.path)
            clientLog.warning("WebSocket upgrade from \(LWS.peer(of: wsi)) refused: not on /ws")
            refuseUpgrade(wsi, .error(404, "not_found", "WebSockets are served on /ws"))
            return false
        }
        if let header = LWS.headerWithControlByte(wsi) {
            meters.upgradesRefused.add(.controlByte)
            clientLog.warning(
                "WebSocket upgrade from \(LWS.peer(of: wsi)) refused: its \(header) header holds a control byte")
            refuseUpgrade(wsi, .error(400, "bad_request", "the \(header) header holds a control character"))
            return false
        }
        if endpoint(of: wsi) == .node {
            // Another node: its key, not an Origin, admits it (its clients' Origins come in `open` frames).
            guard keys.presentsClusterKey(wsi) else {
                meters.upgradesRefused.add(.path)
                clientLog.warning("node link from \(LWS.peer(of: wsi)) refused: no valid cluster key")
                refuseUpgrade(wsi, .error(403, "forbidden", "a node link needs the cluster key"))
                return false
            }
            return true
        }
        let origin = LWS.header(wsi, WSI_TOKEN_ORIGIN)
        guard config.hub.origins.allowsUpgrade(from: origin) else {
            meters.upgradesRefused.add(origin == nil ? .noOrigin : .origin)
            clientLog.warning(
                "WebSocket upgrade from \(LWS.peer(of: wsi)) refused: "
                    + (origin.map { "origin \($0) is not allowed" } ?? "no origin (--allow-no-origin is not given)"))
            refuseUpgrade(
                wsi,
                .error(
                    403, "forbidden_origin",
                    origin == nil
                        ? "this server wants an Origin header" : "connections from this origin are not allowed"
                ))
            return false
        }
        return true
    }

    /// Writes `response` as a whole HTTP/1.1 answer with `connection: close`; lws closes the
    /// connection when the filter callback then returns -1. Not `lws_return_http_status`: before
    /// an upgrade lws has not taken the request's HTTP version, and that writes `HTTP/1.0`, which
    /// strict WebSocket clients (Python's `websockets`) cannot read as an answer at all, so they
    /// never see the status.
    private func refuseUpgrade(_ wsi: OpaquePointer, _ response: HTTPResponse) {
        let reason =
            switch response.status {
            case 400: "Bad Request"
            case 403: "Forbidden"
            case 404: "Not Found"
            default: "Refused"
            }
        let head =
            "HTTP/1.1 \(response.status) \(reason)\r\ncontent-type: \(response.contentType)\r\n"
            + "content-length: \(response.body.count)\r\nconnection: close\r\n"
            + "x-content-type-options: nosniff\r\ncache-control: no-cache\r\n\r\n"
        let pre = shuffleboard_lws_pre()
        var buffer = [UInt8](repeating: 0, count: pre)
        buffer += Array(head.utf8) + response.body
        let length = buffer.count - pre
        buffer.withUnsafeMutableBytes { raw in
            // At most a few hundred bytes to a socket that has sent only its request: one write.
            // If the socket took less, lws keeps the rest, and the close that follows drops it.
            _ = LWS.write(wsi, raw.baseAddress! + pre, length, LWS_WRITE_HTTP)
        }
    }
}
