internal import BoardCore

// `GET /api/boards/{id}/members` (issue 32): the people a client can offer as assignees.

extension Hub {
    /// The most people one answer lists.
    static let membersListed = 200

    /// `GET /api/boards/{id}/members`, the token's claims already checked for viewing: the board
    /// is loaded (as a join or a REST op loads it) and answered from its room.
    func membersRequest(_ id: BoardID, _ request: HTTPRequest, exchange: ExchangeID) {
        guard let host = boardInMemory(id, else: .members(exchange, request), exchange: exchange) else { return }
        answerMembers(host, exchange: exchange)
    }

    /// `{"members":[{"member","name","last"}]}`: everyone who committed one of the ops the room
    /// keeps, or is assigned on the board, newest first, at most `membersListed`.
    func answerMembers(_ host: BoardHost, exchange: ExchangeID) {
        let room = host.room
        let listed = room.sequencer.members.list(on: room.published, count: Self.membersListed)
        let answer = HTTPResponse.list("members", listed) { w, entry in
            w.write("member", entry.member.rawValue)
            w.write("name", entry.name)
            if let last = entry.last {
                w.write("last", Int(last.milliseconds))
            } else {
                w.write("last", nil as String?)
            }
        }
        emit(.respond(exchange, answer))
        evictIfIdle(host)
    }
}
