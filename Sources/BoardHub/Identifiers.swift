/// A WebSocket connection, as the transport numbers it.
package struct ConnectionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number.
    package var rawValue: UInt64
    /// An id.
    package init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// `connection N` in logs.
    package var description: String { "connection \(rawValue)" }
    /// Orders by number.
    package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// An HTTP request and its answer, as the transport numbers them.
package struct ExchangeID: Hashable, Sendable, CustomStringConvertible {
    /// The number.
    package var rawValue: UInt64
    /// An id.
    package init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// `exchange N` in logs.
    package var description: String { "exchange \(rawValue)" }
}

/// A store write whose durability the hub waits for.
package struct Ticket: Hashable, Sendable {
    /// The number.
    package var rawValue: UInt64
    /// A ticket.
    package init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// A store read the hub waits for.
package struct ReadID: Hashable, Sendable {
    /// The number.
    package var rawValue: UInt64
    /// An id.
    package init(_ rawValue: UInt64) { self.rawValue = rawValue }
}

/// An accepted TCP connection, as the transport numbers it, from its accept until it becomes a
/// WebSocket or closes (SocketGate.swift).
package struct SocketID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The number.
    package var rawValue: UInt64
    /// An id.
    package init(_ rawValue: UInt64) { self.rawValue = rawValue }
    /// `socket N` in logs.
    package var description: String { "socket \(rawValue)" }
    /// Orders by number.
    package static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
