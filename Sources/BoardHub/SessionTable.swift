internal import BoardCore

/// Every open WebSocket connection's `Session`, by its id; the connections that have not said
/// `hello` yet, with when they opened; and the numbering of users.
///
/// The session rules (phases, hello, joining and leaving a board) are Hub+Sessions.swift's, the
/// limits Limits.swift's; this owns the table they work on. Iterating it goes through the
/// sessions in no particular order (sort for anything a client sees). Confined to the service
/// thread (with the hub).
final class SessionTable: Sequence {
    private var table: [ConnectionID: Session] = [:]
    /// When each connection that has not sent `hello` yet opened, to close it if it sends none in
    /// time. It holds only those: a connection leaves it with its `hello`, and its storage goes
    /// when it empties, so a server of idle joined connections keeps none of it.
    private var awaitingHello: [ConnectionID: Instant] = [:]
    private var lastUser: UInt64 = 0

    /// The session of a connection, if it is open.
    subscript(id: ConnectionID) -> Session? { table[id] }

    var count: Int { table.count }
    var isEmpty: Bool { table.isEmpty }
    /// The open connections, in no particular order.
    var ids: Dictionary<ConnectionID, Session>.Keys { table.keys }

    func makeIterator() -> Dictionary<ConnectionID, Session>.Iterator { table.makeIterator() }

    /// A connection opened.
    func add(_ session: Session) { table[session.id] = session }

    /// A connection closed: its session, if it was open.
    func remove(_ id: ConnectionID) -> Session? {
        stopAwaitingHello(id)
        return table.removeValue(forKey: id)
    }

    /// The connection opened at `since` and must say `hello` in time.
    func awaitHello(_ id: ConnectionID, since: Instant) { awaitingHello[id] = since }

    /// The connection no longer waits for its `hello` (it sent it, or it is gone).
    func stopAwaitingHello(_ id: ConnectionID) {
        guard awaitingHello.removeValue(forKey: id) != nil, awaitingHello.isEmpty else { return }
        awaitingHello = [:]  // Drops the storage a burst of connections grew.
    }

    /// The connections that opened `timeout` or more before `now` and have not said `hello`, in
    /// connection order; they no longer wait.
    func lateHellos(now: Instant, timeout: Instant.Span) -> [ConnectionID] {
        guard !awaitingHello.isEmpty else { return [] }
        let late = awaitingHello.filter { now >= $0.value + timeout }.keys.sorted()
        for id in late { stopAwaitingHello(id) }
        return late
    }

    /// A new user, numbered after the last, with its number's color.
    func makeUser(name: String, member: MemberID? = nil) -> User {
        lastUser += 1
        return User(
            id: UserID(number: lastUser), name: name, color: User.color(forUserNumber: lastUser), member: member)
    }
}
