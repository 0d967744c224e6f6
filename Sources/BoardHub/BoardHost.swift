internal import BoardCore

/// A board in memory and the connections on it.
final class BoardHost {
    /// The board's id, kept here: `room.id` reads the room out of the class first, and a `Room` is
    /// a large value (a copy of it per op showed up in the service thread's profile).
    let id: BoardID
    var room: Room
    /// Made from the template by `hello` and not stored yet: it is stored with its first op, so
    /// a board nobody changed leaves nothing on disk.
    var unsaved = false
    /// When its unpublished ops arrived and its holds began, for the metrics (Hub+Metrics.swift).
    var timings = BoardTimings()
    /// Its event streams (EventStreams.swift, which alone changes them).
    var streams = BoardStreams()
    /// REST ops on the board waiting for their answer (a restore's read, an op's durability):
    /// they keep it in memory, so that their answer is never "no such board" (RESTOps.swift).
    var restOps = 0
    /// The connections on the board, in join order (shared, unchanged, by every broadcast action).
    private(set) var members: [ConnectionID] = []
    private var byUser: [UserID: ConnectionID] = [:]

    init(room: Room, unsaved: Bool = false) {
        id = room.id
        self.room = room
        self.unsaved = unsaved
    }

    func connection(of user: UserID) -> ConnectionID? { byUser[user] }

    func add(_ user: UserID, on connection: ConnectionID) {
        byUser[user] = connection
        members.append(connection)
    }

    /// Removes `user` when `connection` is still theirs; returns whether it was.
    func remove(_ user: UserID, on connection: ConnectionID) -> Bool {
        guard byUser[user] == connection else { return false }
        byUser[user] = nil
        if let index = members.firstIndex(of: connection) { members.remove(at: index) }
        return true
    }
}
