/// One frame of the node link, the internal sub-protocol `shuffleboard.node.v1` over which a
/// forwarding node multiplexes all its clients of one board to the board's owner
/// (docs/cluster.md#the-node-link---node-links). Binary WebSocket frames: one kind byte, then big-endian
/// fields, then the payload as it came. A client's bytes are never parsed or spliced into JSON on
/// the way: a length-free tail cannot be made to look like another client's frame.
///
/// | kind | direction | fields |
/// |---|---|---|
/// | `O` open | node → owner | client `u32`, address length `u8`, address, origin (the rest; empty: none) |
/// | `M` message | both | client `u32`, one client message (to the owner) or server message (to the node) |
/// | `L` leave | node → owner | client `u32`, close code `u16` (the client went) |
/// | `B` broadcast | owner → node | except `u32` (0: none), one server message for every joined client but `except` |
/// | `S` some | owner → node | count `u16` (≥ 1), count × client `u32`, one server message for those clients |
/// | `C` close | owner → node | client `u32`, close code `u16`, reason (UTF-8, ≤ 123 bytes) |
///
/// Client numbers are the node's, from 1, never reused on one link.
package enum NodeLinkFrame: Equatable, Sendable {
    /// A client of the node starts: its address (for the owner's per-address limits and logs) and Origin.
    case open(client: UInt32, address: String, origin: String?)
    /// A message of one client (to the owner) or for one client (to the node).
    case message(client: UInt32, [UInt8])
    /// The client went, with its close code.
    case leave(client: UInt32, code: UInt16)
    /// A message for every client of the link that has joined, except one.
    case broadcast(except: UInt32?, [UInt8])
    /// A message for these clients only.
    case some(clients: [UInt32], [UInt8])
    /// The owner closes a client.
    case close(client: UInt32, code: UInt16, reason: String)

    /// The longest address and origin an `open` carries.
    package static let maxAddressBytes = 255
    package static let maxOriginBytes = 1024
    /// The longest reason of a close (a close frame's limit).
    package static let maxReasonBytes = 123

    /// Whether a node sends it (otherwise the owner does).
    package var fromNode: Bool {
        switch self {
        case .open, .leave: true
        case .message: true
        case .broadcast, .some, .close: false
        }
    }

    /// The frame's bytes; nil when a field does not fit (an address or origin too long, no clients).
    package func encoded() -> [UInt8]? {
        var out: [UInt8] = []
        switch self {
        case .open(let client, let address, let origin):
            let address = Array(address.utf8)
            let origin = Array((origin ?? "").utf8)
            guard client > 0, address.count <= Self.maxAddressBytes, origin.count <= Self.maxOriginBytes else {
                return nil
            }
            out = [UInt8(ascii: "O")]
            Self.put(client, &out)
            out.append(UInt8(address.count))
            out += address + origin
        case .message(let client, let payload):
            guard client > 0 else { return nil }
            out = [UInt8(ascii: "M")]
            Self.put(client, &out)
            out += payload
        case .leave(let client, let code):
            guard client > 0 else { return nil }
            out = [UInt8(ascii: "L")]
            Self.put(client, &out)
            Self.put16(code, &out)
        case .broadcast(let except, let payload):
            out = [UInt8(ascii: "B")]
            Self.put(except ?? 0, &out)
            out += payload
        case .some(let clients, let payload):
            guard !clients.isEmpty, clients.count <= Int(UInt16.max), !clients.contains(0) else { return nil }
            out = [UInt8(ascii: "S")]
            Self.put16(UInt16(clients.count), &out)
            for client in clients { Self.put(client, &out) }
            out += payload
        case .close(let client, let code, let reason):
            let reason = Array(reason.utf8)
            guard client > 0, reason.count <= Self.maxReasonBytes else { return nil }
            out = [UInt8(ascii: "C")]
            Self.put(client, &out)
            Self.put16(code, &out)
            out += reason
        }
        return out
    }

    /// The frame in `bytes`, or nil when it is not one: an unknown kind, missing fields, client 0,
    /// text that is not UTF-8, a field over its limit.
    package static func decode(_ bytes: [UInt8]) -> NodeLinkFrame? {
        guard let kind = bytes.first else { return nil }
        var reader = Reader(bytes: bytes, at: 1)
        switch kind {
        case UInt8(ascii: "O"):
            guard let client = reader.u32(), client > 0, let count = reader.u8(),
                let address = reader.take(Int(count)).flatMap(Self.text)
            else { return nil }
            let rest = reader.rest()
            guard rest.count <= maxOriginBytes, let origin = text(rest) else { return nil }
            return .open(client: client, address: address, origin: origin.isEmpty ? nil : origin)
        case UInt8(ascii: "M"):
            guard let client = reader.u32(), client > 0 else { return nil }
            return .message(client: client, reader.rest())
        case UInt8(ascii: "L"):
            guard let client = reader.u32(), client > 0, let code = reader.u16(), reader.isAtEnd else { return nil }
            return .leave(client: client, code: code)
        case UInt8(ascii: "B"):
            guard let except = reader.u32() else { return nil }
            return .broadcast(except: except == 0 ? nil : except, reader.rest())
        case UInt8(ascii: "S"):
            guard let count = reader.u16(), count > 0 else { return nil }
            var clients: [UInt32] = []
            for _ in 0..<count {
                guard let client = reader.u32(), client > 0 else { return nil }
                clients.append(client)
            }
            return .some(clients: clients, reader.rest())
        case UInt8(ascii: "C"):
            guard let client = reader.u32(), client > 0, let code = reader.u16() else { return nil }
            let rest = reader.rest()
            guard rest.count <= maxReasonBytes, let reason = text(rest) else { return nil }
            return .close(client: client, code: code, reason: reason)
        default:
            return nil
        }
    }

    private static func text(_ bytes: some Collection<UInt8>) -> String? {
        String(validating: bytes, as: UTF8.self)
    }

    private static func put(_ value: UInt32, _ out: inout [UInt8]) {
        out += [UInt8(value >> 24), UInt8(value >> 16 & 0xff), UInt8(value >> 8 & 0xff), UInt8(value & 0xff)]
    }

    private static func put16(_ value: UInt16, _ out: inout [UInt8]) {
        out += [UInt8(value >> 8), UInt8(value & 0xff)]
    }

    /// Reads big-endian fields from the front of a frame.
    private struct Reader {
        let bytes: [UInt8]
        var at: Int

        var isAtEnd: Bool { at == bytes.count }

        mutating func take(_ count: Int) -> ArraySlice<UInt8>? {
            guard count >= 0, bytes.count - at >= count else { return nil }
            defer { at += count }
            return bytes[at..<at + count]
        }

        mutating func u8() -> UInt8? { take(1)?.first }

        mutating func u16() -> UInt16? {
            guard let b = take(2) else { return nil }
            return UInt16(b[b.startIndex]) << 8 | UInt16(b[b.startIndex + 1])
        }

        mutating func u32() -> UInt32? {
            guard let b = take(4) else { return nil }
            return b.reduce(0) { $0 << 8 | UInt32($1) }
        }

        mutating func rest() -> [UInt8] {
            defer { at = bytes.count }
            return Array(bytes[at...])
        }
    }
}
