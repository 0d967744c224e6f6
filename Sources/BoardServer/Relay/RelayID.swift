/// What a `RelayID` numbers, and its name in logs.
protocol RelayIDKind {
    static var name: String { get }
}

/// An upstream, a node link or a relayed REST request, as the transport numbers it (`upstream N`,
/// `node link N`, `forward N` in logs). From `Service.makeID`, like a connection's or an
/// exchange's, so never with a tag bit of `WSIID` set; its wsi's opaque user data carries it with
/// `WSIID.upstreamTag` (upstreams and node links) or `WSIID.httpForwardTag` (forwards).
struct RelayID<Kind: RelayIDKind>: Hashable, Comparable, CustomStringConvertible {
    /// The number.
    var rawValue: UInt64
    /// An id.
    init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// `upstream N`, `node link N` or `forward N`.
    var description: String { "\(Kind.name) \(rawValue)" }
    /// Orders by number.
    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// An upstream to a board's owner (Relay/Upstream.swift).
enum UpstreamKind: RelayIDKind { static let name = "upstream" }
typealias UpstreamID = RelayID<UpstreamKind>

/// A node link to a board's owner (Relay/LinkConnection.swift).
enum LinkKind: RelayIDKind { static let name = "node link" }
typealias LinkID = RelayID<LinkKind>

/// A REST request relayed to its board's owner (Relay/HTTPForwards.swift).
enum ForwardKind: RelayIDKind { static let name = "forward" }
typealias ForwardID = RelayID<ForwardKind>
