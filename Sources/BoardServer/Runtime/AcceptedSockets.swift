internal import BoardHub

/// The accepted connections the hub counts (Hub+Sockets.swift), from their accept until they
/// become WebSockets or close, by their wsi.
///
/// lws 4.1.6 calls FILTER_NETWORK_CONNECTION with the listening socket's wsi and the accepted
/// fd; the accepted connection's own wsi is made right after, in the same call
/// (`lws_adopt_descriptor_vhost`), and its WSI_CREATE is the next one: that binds the socket to
/// its wsi. WSI_DESTROY comes on every path that frees a wsi (after the fd is closed), including
/// an adoption that fails after the wsi was made. An adoption that fails before (out of memory)
/// leaves the socket unbound: the next accept, or the next tick, tells the hub it closed.
struct AcceptedSockets {
    /// The socket just accepted, until its wsi is made.
    var unbound: SocketID?
    /// The socket being accepted while the hub decides (a refusal closes it before its wsi exists).
    var deciding: SocketID?
    var refused = false
    private(set) var byWSI: [OpaquePointer: SocketID] = [:]
    private(set) var wsis: [SocketID: OpaquePointer] = [:]

    /// The wsi's socket, forgotten here.
    mutating func remove(_ wsi: OpaquePointer) -> SocketID? {
        guard let id = byWSI.removeValue(forKey: wsi) else { return nil }
        wsis[id] = nil
        if byWSI.isEmpty {  // Drops the storage a burst of connections grew.
            byWSI = [:]
            wsis = [:]
        }
        return id
    }

    /// Binds `id` to `wsi`; returns the socket the wsi was bound to before (only when lws freed
    /// a wsi without WSI_DESTROY, and made this one at the same address).
    mutating func bind(_ id: SocketID, to wsi: OpaquePointer) -> SocketID? {
        let stale = remove(wsi)
        byWSI[wsi] = id
        wsis[id] = wsi
        return stale
    }

    func wsi(of id: SocketID) -> OpaquePointer? { wsis[id] }
}
