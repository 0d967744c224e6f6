package import BoardCore

/// Sign-in through a trusted proxy (`--auth-proxy-header`, `--auth-proxy-from`): a company's
/// single sign-on proxy authenticates its people and names them in a header; requests whose
/// socket comes from one of the proxy's addresses are the person the header names.
///
/// The header is believed from the trusted networks only: from any other address it is ignored
/// (anyone can send it), and the request is judged by its token like any other. From a trusted
/// address, a request without the header is judged by its token too (a guest with a share link
/// whom the proxy lets through); without one it gets 401. A header that is there but is not a
/// member id (or a name header that is not a display name) is refused: the proxy is misconfigured
/// or something slipped past it, and guessing who was meant would be worse.
package struct ProxyAuth: Sendable, Equatable {
    /// The longest header value read, in bytes (a longer one is refused, not cut).
    package static let maximumValueBytes = 256

    /// The header naming the member, lower-case (`x-forwarded-user`).
    package var header: String
    /// The header naming the display name, lower-case, or nil: the member id is the name.
    package var nameHeader: String?
    /// The networks whose requests may carry the header (the proxy's addresses).
    package var trusted: [CIDR]
    /// The role a proxy user has on every board without a grant of its own.
    package var role: Role

    /// A proxy setting.
    package init(header: String, nameHeader: String? = nil, trusted: [CIDR], role: Role = .edit) {
        self.header = header.lowercased()
        self.nameHeader = nameHeader?.lowercased()
        self.trusted = trusted
        self.role = role
    }

    /// What a request's proxy headers say.
    package enum Decision: Equatable, Sendable {
        /// Not from a trusted address: whatever the headers say, they are ignored.
        case ignored
        /// From a trusted address without the header: the request stands on its token, if any.
        case missing
        /// From a trusted address: this person.
        case user(ProxyUser)
        /// From a trusted address, with a header that cannot be used (why, for the log: never a
        /// header's bytes, which may be anything).
        case invalid(String)
    }

    /// The decision for a request whose socket's peer is `peer` (as `lws_get_peer_simple` writes
    /// it) with these raw header values (nil: absent).
    package func decide(peer: String, user: [UInt8]?, name: [UInt8]?) -> Decision {
        guard let address = IPAddress.parse(peer), trusted.contains(where: { $0.contains(address) }) else {
            return .ignored
        }
        guard let user else { return .missing }
        guard user.count <= Self.maximumValueBytes else { return .invalid("the \(header) header is too long") }
        let id = Self.trimmed(user)
        guard let member = MemberID(String(decoding: id, as: UTF8.self)), id.allSatisfy({ $0 < 0x80 }) else {
            return .invalid("the \(header) header is not a member id (1-64 of A-Z a-z 0-9 _ -)")
        }
        var display = member.rawValue
        if let nameHeader, let name {
            guard name.count <= Self.maximumValueBytes else { return .invalid("the \(nameHeader) header is too long") }
            guard let text = String(validating: Self.trimmed(name), as: UTF8.self),
                case .success(let clean) = Text.displayName(text)
            else {
                return .invalid("the \(nameHeader) header is not a display name (UTF-8, no control characters)")
            }
            display = clean
        }
        return .user(ProxyUser(member: member, name: display))
    }

    /// `bytes` without leading and trailing spaces and tabs (HTTP's optional white space).
    private static func trimmed(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        var slice = bytes[...]
        while let first = slice.first, first == 0x20 || first == 0x09 { slice.removeFirst() }
        while let last = slice.last, last == 0x20 || last == 0x09 { slice.removeLast() }
        return slice
    }

    /// `text` as a header name to look for (lower-case), or why it cannot be one: 1–64 of the
    /// letters, digits and `-`, not one of the headers the server reads for itself.
    package static func headerName(_ text: String) -> Result<String, ProxyProblem> {
        let name = text.lowercased()
        guard (1...64).contains(name.utf8.count),
            name.utf8.allSatisfy({ c in
                (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-")
            })
        else {
            return .failure(ProxyProblem("a header name is 1-64 letters, digits and '-', such as X-Forwarded-User"))
        }
        let reserved = [
            "host", "authorization", "cookie", "origin", "content-type", "content-length", "transfer-encoding",
            "x-forwarded-for", "connection", "upgrade",
        ]
        guard !reserved.contains(name), !name.hasPrefix("sec-"), !name.hasPrefix("x-shuffleboard-") else {
            return .failure(ProxyProblem("\(name) is a header the server reads for itself; name another"))
        }
        return .success(name)
    }
}

/// Someone a trusted proxy signed in.
package struct ProxyUser: Equatable, Sendable {
    /// Their member id (the header's value).
    package var member: MemberID
    /// Their display name (the name header's value, else the member id).
    package var name: String
}
