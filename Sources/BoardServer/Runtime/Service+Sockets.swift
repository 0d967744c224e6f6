internal import BoardHub
internal import CLibWebSockets
import Glibc
internal import LWSSupport

extension Service {
    /// FILTER_NETWORK_CONNECTION: the hub counts the connection against its address, and says
    /// whether to keep it. `args` is lws's `lws_filter_network_conn_args` (the peer's address).
    /// A socket past the open-file limit's ceiling (`FileLimit`) is refused before the hub hears of it.
    func accept(_ args: UnsafeMutableRawPointer?) -> Bool {
        forgetUnbound()
        guard let args else { return true }
        let filter = args.assumingMemoryBound(to: lws_filter_network_conn_args.self)
        if var limit = fileLimit {
            let now = Clock.now()
            let refused = limit.refuses(filter.pointee.accept_fd)
            if let line = refused ? limit.refused(now: now) : limit.accepted(now: now) { log.warning(line) }
            fileLimit = limit
            if refused {
                handle(.transportCounted(.socketRefused(.fileLimit)))
                return false
            }
        }
        guard let peer = Self.address(filter) else { return true }
        let id = makeSocketID()
        sockets.deciding = id
        sockets.refused = false
        handle(.accepted(id, peer: peer))
        sockets.deciding = nil
        if sockets.refused { return false }
        sockets.unbound = id
        return true
    }

    /// WSI_CREATE: the wsi of the socket just accepted (any other wsi is not counted).
    func socketCreated(_ wsi: OpaquePointer) {
        guard let id = sockets.unbound else { return }
        sockets.unbound = nil
        if let stale = sockets.bind(id, to: wsi) { handle(.socketClosed(stale)) }
    }

    /// ESTABLISHED: the socket is a WebSocket now, and counts as one of its address's sessions.
    func socketUpgraded(_ wsi: OpaquePointer) {
        if let id = sockets.remove(wsi) { handle(.upgraded(id)) }
    }

    /// WSI_DESTROY: the socket is closed.
    func socketDestroyed(_ wsi: OpaquePointer) {
        if let id = sockets.remove(wsi) { handle(.socketClosed(id)) }
    }

    /// A socket accepted whose wsi lws never made is closed (lws closed the fd).
    func forgetUnbound() {
        guard let id = sockets.unbound else { return }
        sockets.unbound = nil
        handle(.socketClosed(id))
    }

    /// The hub refuses the socket: the one being accepted is closed by lws when FILTER returns
    /// nonzero; one accepted earlier (the refusal came late) is closed at the next service.
    func refuse(_ id: SocketID) {
        if id == sockets.deciding {
            sockets.refused = true
        } else if let wsi = sockets.wsi(of: id) {
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
        }
    }

    /// `--first-byte-timeout` is over for the socket: it is closed if the kernel has received no
    /// byte on it (lws may not have read what it received: a connection waiting for a header
    /// buffer is not read at all).
    func closeIfSilent(_ id: SocketID) {
        guard let wsi = sockets.wsi(of: id), shuffleboard_tcp_bytes_received(lws_get_socket_fd(wsi)) == 0 else {
            return
        }
        handle(.transportCounted(.socketRefused(.firstByteTimeout)))
        clientLog.write(
            .debug,
            "a connection from \(LWS.peer(of: wsi)) sent nothing within \(config.hub.firstByteTimeout.seconds) s; closing it"
        )
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC)
    }

    /// The peer's address as `LWS.peer(of:)` writes it, from the accepted socket's address.
    private static func address(_ args: UnsafeMutablePointer<lws_filter_network_conn_args>) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let written: UnsafePointer<CChar>? = withUnsafeMutablePointer(to: &args.pointee.cli_addr) { storage in
            switch Int32(storage.pointee.ss_family) {
            case AF_INET:
                return storage.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    inet_ntop(AF_INET, &$0.pointee.sin_addr, &buffer, socklen_t(buffer.count))
                }
            case AF_INET6:
                return storage.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    inet_ntop(AF_INET6, &$0.pointee.sin6_addr, &buffer, socklen_t(buffer.count))
                }
            default:
                return nil
            }
        }
        guard written != nil else { return nil }
        return LWS.text(of: buffer)
    }
}

extension LWS {
    /// Lets the kernel hold at most `--unsent-bytes` not yet sent to the client
    /// (`TCP_NOTSENT_LOWAT`): lws hears the socket is writable only below that. Without it a
    /// client that stops reading gets megabytes of stale hovers buffered in the kernel (TCP
    /// autotuning grows the send buffer to 4 MiB) before the server sees it as behind and
    /// coalesces them; with it, what a slow reader has not taken stays where the server can
    /// coalesce and bound it.
    static func limitUnsent(_ wsi: OpaquePointer, to unsentBytes: Int, log: Logger) {
        guard unsentBytes > 0 else { return }
        var bytes = Int32(unsentBytes)
        let fd = lws_get_socket_fd(wsi)
        if setsockopt(fd, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &bytes, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            log.debug("TCP_NOTSENT_LOWAT on socket \(fd): errno \(errno)")
        }
    }
}
