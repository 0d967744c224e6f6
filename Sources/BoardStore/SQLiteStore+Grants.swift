package import BoardCore

extension SQLiteStore: GrantStore {
    package func grant(_ grant: MemberGrant, maximum: Int, boardKnown: Bool) throws(StoreError) -> GrantOutcome {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> GrantOutcome in
            try db.transaction(.immediate) { () throws(StoreError) -> GrantOutcome in
                let board = SQLiteValue.text(grant.board.rawValue)
                if !boardKnown {
                    guard try db.boardSeq(of: grant.board) != nil else {
                        return .unknownBoard
                    }
                }
                let others =
                    try db.int(
                        "SELECT count(*) FROM grants WHERE board = ? AND member <> ?",
                        [board, .text(grant.member.rawValue)]) ?? 0
                guard others < maximum else { return .full }
                try db.query(
                    "INSERT INTO grants (board, member, role, granted) VALUES (?, ?, ?, ?) "
                        + "ON CONFLICT (board, member) DO UPDATE SET role = excluded.role, granted = excluded.granted",
                    [board, .text(grant.member.rawValue), .text(grant.role), .int(Int(grant.granted))])
                return .granted
            }
        }
    }

    package func removeGrant(of member: MemberID, on board: BoardID) throws(StoreError) -> MemberGrant? {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> MemberGrant? in
            try db.transaction(.immediate) { () throws(StoreError) -> MemberGrant? in
                var found: MemberGrant?
                let key: [SQLiteValue] = [.text(board.rawValue), .text(member.rawValue)]
                try db.query("SELECT role, granted FROM grants WHERE board = ? AND member = ?", key) { row in
                    found = MemberGrant(board: board, member: member, role: row.text(0), granted: Int64(row.int(1)))
                }
                if found != nil { try db.query("DELETE FROM grants WHERE board = ? AND member = ?", key) }
                return found
            }
        }
    }

    package func grants(of board: BoardID) throws(StoreError) -> [MemberGrant] {
        try onReadOnly { (db: SQLiteConnection) throws(StoreError) -> [MemberGrant] in
            var found: [MemberGrant] = []
            try db.query(
                "SELECT member, role, granted FROM grants WHERE board = ? ORDER BY member", [.text(board.rawValue)]
            ) { row in
                guard let member = MemberID(row.text(0)) else { return }
                found.append(MemberGrant(board: board, member: member, role: row.text(1), granted: Int64(row.int(2))))
            }
            return found
        }
    }

    package func allGrants(limit: Int) throws(StoreError) -> [MemberGrant] {
        try onReadOnly { (db: SQLiteConnection) throws(StoreError) -> [MemberGrant] in
            var found: [MemberGrant] = []
            try db.query(
                "SELECT g.board, g.member, g.role, g.granted FROM grants g JOIN boards b ON b.id = g.board "
                    + "ORDER BY g.board, g.member LIMIT ?", [.int(limit)]
            ) { row in
                guard let board = BoardID(row.text(0)), let member = MemberID(row.text(1)) else { return }
                found.append(MemberGrant(board: board, member: member, role: row.text(2), granted: Int64(row.int(3))))
            }
            return found
        }
    }
}

extension SQLiteConnection: GrantRows {
    func deleteGrants(of id: BoardID) throws(StoreError) {
        try query("DELETE FROM grants WHERE board = ?1", [.text(id.rawValue)])
    }
}
