/// The people who committed ops on a board, with the latest name each used and when: what
/// `GET /api/boards/{id}/members` lists (with the board's assignees), so that a client can offer
/// them as assignees. Bounded: past `limit` people, the one whose last op is oldest is forgotten.
package struct Members: Sendable {
    /// One person's latest op.
    package struct Entry: Equatable, Sendable {
        /// Who.
        package var member: MemberID
        /// The name they last committed under (nil when not known).
        package var name: String?
        /// When, by the wall clock; nil for someone only assigned.
        package var last: UnixTime?

        /// They committed an op at `time`, under `name` (nil: the name they had stays).
        mutating func note(name: String?, at time: UnixTime) {
            if let name { self.name = name }
            last = time
        }
    }

    /// The most people remembered.
    package let limit: Int
    private var entries: [MemberID: Entry] = [:]

    /// An empty list remembering at most `limit` people.
    package init(limit: Int = 1000) {
        precondition(limit >= 1, "a members list keeps someone")
        self.limit = limit
    }

    /// `op` was committed: its member's name and time are the newest.
    package mutating func note(_ op: CommittedOp) {
        guard let member = op.member else { return }
        // Changed in place: one lookup of the member per op (this runs for every op).
        let name = op.name
        entries[member, default: Entry(member: member)].note(name: name, at: op.time)
        if entries.count > limit, let oldest = entries.values.min(by: Self.older) {
            entries[oldest.member] = nil
        }
    }

    /// Everyone who committed an op or is assigned on `board`, newest first (the assigned who
    /// never committed last, in board order), at most `count`.
    package func list(on board: Board, count: Int) -> [Entry] {
        var listed = entries.values.sorted { Self.older($1, $0) }
        var seen = Set(listed.map(\.member))
        for item in board.items {
            for person in item.assignees where seen.insert(person.member).inserted {
                listed.append(Entry(member: person.member, name: person.name, last: nil))
            }
        }
        return Array(listed.prefix(count))
    }

    /// Orders by last op, then by id (so that equal times list the same way everywhere).
    private static func older(_ a: Entry, _ b: Entry) -> Bool {
        let (ta, tb) = (a.last?.milliseconds ?? 0, b.last?.milliseconds ?? 0)
        return ta != tb ? ta < tb : a.member.rawValue > b.member.rawValue
    }
}
