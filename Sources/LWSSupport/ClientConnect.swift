internal import CLibWebSockets
import Glibc

/// An lws client connection to start (`lws_client_connect_via_info`): the one place both the
/// Swift client (`ClientService`) and the server's relay (upstreams to boards' owners) fill
/// `lws_client_connect_info`. Only what either needs; the rest stays lws's default.
package struct ClientConnect {
    /// The address to connect to (an IP address: a name is resolved on the calling thread).
    package var address: String
    package var port: Int
    package var path: String
    /// The `Host` header.
    package var host: String
    /// lws 4.1.6 writes `Origin: http://` followed by this; nil sends none.
    package var origin: String?
    /// The subprotocol to ask for.
    package var subprotocol: String?
    /// The per-session user data lws hands every callback (`info.userdata`).
    package var userData: UnsafeMutableRawPointer?
    /// The wsi's opaque user data (`info.opaque_user_data`).
    package var opaqueUserData: UnsafeMutableRawPointer?
    /// An `lws_retry_bo_t` lws keeps pointing at for the connection's life (pings and hang-up).
    package var retryPolicy: UnsafeRawPointer?
    /// The name of the context's own protocol the wsi binds to (`info.local_protocol_name`);
    /// nil: the first one.
    package var localProtocol: String?
    /// Connect with TLS (`wss://`), verifying the server's certificate against the context's
    /// client authorities and `host` (without its port; an IP address there is checked against the
    /// certificate's IP addresses). The context must have been made with
    /// `LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT`.
    package var tls = false
    /// An HTTP method (`POST`) for a plain HTTP request instead of a WebSocket upgrade.
    package var method: String?
    /// The ALPN protocols to offer over TLS (`http/1.1`); nil: lws's default.
    package var alpn: String?

    /// A connection to `address:port` at `path`.
    package init(address: String, port: Int, path: String, host: String) {
        self.address = address
        self.port = port
        self.path = path
        self.host = host
    }

    /// Starts the connection on `context`; its wsi, or nil when lws could not even start it
    /// (reported by this nil, not by a CONNECTION_ERROR callback).
    package func start(on context: OpaquePointer) -> OpaquePointer? {
        // lws copies these strings into the wsi before lws_client_connect_via_info returns.
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { for copy in owned { free(copy) } }
        func cString(_ text: String) -> UnsafePointer<CChar>? {
            guard let copy = strdup(text) else { return nil }
            owned.append(copy)
            return UnsafePointer(copy)
        }
        var info = lws_client_connect_info()
        info.context = context
        info.address = cString(address)
        info.port = Int32(port)
        info.path = cString(path)
        info.host = cString(host)
        info.origin = origin.flatMap(cString)
        info.protocol = subprotocol.flatMap(cString)
        info.userdata = userData
        info.opaque_user_data = opaqueUserData
        info.retry_and_idle_policy = retryPolicy?.assumingMemoryBound(to: lws_retry_bo_t.self)
        info.local_protocol_name = localProtocol.flatMap(cString)
        info.method = method.flatMap(cString)
        info.alpn = alpn.flatMap(cString)
        if tls { info.ssl_connection = Int32(LCCSCF_USE_SSL.rawValue) }
        return lws_client_connect_via_info(&info)
    }
}
