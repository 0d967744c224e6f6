internal import BoardAuth
internal import BoardHub
internal import BoardStore
internal import CLibWebSockets
import Foundation
internal import LWSSupport

/// Reads what sign-in through a trusted proxy needs of a request (`--auth-proxy-header`,
/// `--auth-proxy-name-header`): the socket's own address, never one a header names (behind
/// `--trusted-proxy` the hub's `peer` is the client's, but only the proxy's socket is trusted
/// here), and the raw bytes of the two headers, at most one byte past
/// `ProxyAuth.maximumValueBytes`. The hub decides what they mean (Hub+Proxy.swift).
struct ProxyHeaderReader {
    /// A header as lws keeps it: one of the headers it knows, or one it does not (by name).
    private enum Header {
        case known(lws_token_indexes)
        /// Lower-case, with the colon, as `lws_hdr_custom_length` wants it.
        case custom(String)

        init(_ name: String) {
            let wanted = name.lowercased() + ":"
            for index in 0..<WSI_TOKEN_COUNT.rawValue {
                let token = lws_token_indexes(rawValue: index)
                if let known = lws_token_to_string(token), String(cString: known) == wanted {
                    self = .known(token)
                    return
                }
            }
            self = .custom(wanted)
        }
    }

    private let user: Header
    private let name: Header?

    /// A reader for `proxy`'s headers, or nil without one.
    init?(_ proxy: ProxyAuth?) {
        guard let proxy else { return nil }
        user = Header(proxy.header)
        name = proxy.nameHeader.map(Header.init)
    }

    /// What the request on `wsi` carries.
    func read(_ wsi: OpaquePointer) -> ProxyHeaders {
        ProxyHeaders(
            socketPeer: LWS.peer(of: wsi), user: Self.bytes(wsi, user), name: name.flatMap { Self.bytes(wsi, $0) })
    }

    /// The header's bytes (at most `ProxyAuth.maximumValueBytes + 1`), or nil when it is absent.
    private static func bytes(_ wsi: OpaquePointer, _ header: Header) -> [UInt8]? {
        let limit = ProxyAuth.maximumValueBytes + 1
        switch header {
        case .known(let token):
            let length = Int(lws_hdr_total_length(wsi, token))
            guard length > 0 else { return nil }
            guard length <= limit else { return [UInt8](repeating: 0x20, count: limit) }
            var buffer = [CChar](repeating: 0, count: length + 1)
            guard lws_hdr_copy(wsi, &buffer, Int32(buffer.count), token) >= 0 else { return nil }
            return buffer.prefix(length).map { UInt8(bitPattern: $0) }
        case .custom(let name):
            return name.withCString { cName -> [UInt8]? in
                let nameLength = Int32(strlen(cName))
                let length = Int(lws_hdr_custom_length(wsi, cName, nameLength))
                guard length >= 0 else { return nil }
                guard length <= limit else { return [UInt8](repeating: 0x20, count: limit) }
                var buffer = [CChar](repeating: 0, count: length + 1)
                guard lws_hdr_custom_copy(wsi, &buffer, Int32(buffer.count), cName, nameLength) >= 0 else { return nil }
                return buffer.prefix(length).map { UInt8(bitPattern: $0) }
            }
        }
    }
}

extension Service {
    /// The grants in the store when the server starts (read before the service thread runs).
    static func grants(in store: (any GrantStore)?, log: Logger) -> [MemberGrant] {
        guard let store else { return [] }
        do {
            return try store.allGrants(limit: GrantTable.maximum)
        } catch {
            log.error("cannot read the members' grants (\(error)); proxy users have the default role until a restart")
            return []
        }
    }
}

/// Who a WebSocket or HTTP client is behind a proxy this server trusts: the address
/// `--trusted-proxy`'s `X-Forwarded-For` names, and the sign-in headers of `--auth-proxy-header`.
/// Made once by the runtime; the WebSocket and HTTP parts each hold a copy.
struct ClientAddresses {
    /// `--trusted-proxy`.
    let trustedProxies: [String]
    /// With `--auth-proxy-header`: reads the sign-in proxy's headers.
    let proxyHeaders: ProxyHeaderReader?
    let clientLog: ClientLog

    /// Behind a proxy in `--trusted-proxy`, the client address it added to `X-Forwarded-For` (the
    /// last one: those before it are whatever the client sent); nil for anyone else, or when the
    /// header is missing or its last entry is not an address.
    func proxied(_ wsi: OpaquePointer, socketPeer: String) -> String? {
        guard trustedProxies.contains(socketPeer),
            let header = LWS.header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        else { return nil }
        let last = header.split(separator: ",").last.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
        guard Relay.isAddress(last) else {
            clientLog.warning(
                "a request through proxy \(socketPeer) names no client address in X-Forwarded-For; using the proxy's")
            return nil
        }
        return last
    }

    /// The sign-in proxy's headers on `wsi`, with `--auth-proxy-header`.
    func proxy(_ wsi: OpaquePointer) -> ProxyHeaders? { proxyHeaders?.read(wsi) }
}
