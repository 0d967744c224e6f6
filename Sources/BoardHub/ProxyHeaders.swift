/// What the transport read of a request for sign-in through a trusted proxy (`Hub.Config.proxy`):
/// the address of the socket itself (never one a header names) and the raw bytes of the proxy's
/// headers, at most one byte past `ProxyAuth.maximumValueBytes` (so that a longer one is seen
/// as too long). A class, so that `Hub.Event.opened` stays small.
package final class ProxyHeaders: Equatable, Sendable {
    /// The socket's peer address, as `lws_get_peer_simple` writes it.
    package let socketPeer: String
    /// The user header's bytes, or nil when the request has none.
    package let user: [UInt8]?
    /// The name header's bytes, or nil.
    package let name: [UInt8]?

    /// Headers.
    package init(socketPeer: String, user: [UInt8]?, name: [UInt8]?) {
        self.socketPeer = socketPeer
        self.user = user
        self.name = name
    }

    /// Same address and bytes.
    package static func == (a: ProxyHeaders, b: ProxyHeaders) -> Bool {
        a.socketPeer == b.socketPeer && a.user == b.user && a.name == b.name
    }
}
