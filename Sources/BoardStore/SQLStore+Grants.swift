internal import BoardCore

/// Grants, the same in SQLite and PostgreSQL. In PostgreSQL every node of a cluster shares them
/// and reloads them (Hub+Grants.swift).
extension SQLStore {
    package func grant(_ grant: MemberGrant, maximum: Int, boardKnown: Bool) throws(StoreError) -> GrantOutcome {
        try onWriter { (db: Connection) throws(StoreError) -> GrantOutcome in
            try db.writing { () throws(StoreError) -> GrantOutcome in
                let board = SQLValue.text(grant.board.rawValue)
                // Two transactions granting on one board at once must not both pass the count.
                try db.lockCount("grants", of: grant.board)
                if !boardKnown {
                    guard try db.boardSeq(of: grant.board) != nil else { return .unknownBoard }
                }
                let others = try db.intValue(
                    "SELECT count(*) FROM grants WHERE board = $1 AND member <> $2",
                    [board, .text(grant.member.rawValue)])
                guard others ?? 0 < maximum else { return .full }
                try db.write(
                    "INSERT INTO grants (board, member, role, granted) VALUES ($1, $2, $3, $4) "
                        + "ON CONFLICT (board, member) DO UPDATE SET role = excluded.role, granted = excluded.granted",
                    [board, .text(grant.member.rawValue), .text(grant.role), .int(Int(grant.granted))])
                return .granted
            }
        }
    }

    package func removeGrant(of member: MemberID, on board: BoardID) throws(StoreError) -> MemberGrant? {
        try onWriter { (db: Connection) throws(StoreError) -> MemberGrant? in
            try db.writing { () throws(StoreError) -> MemberGrant? in
                var found: MemberGrant?
                try db.rows(
                    "DELETE FROM grants WHERE board = $1 AND member = $2 RETURNING role, granted",
                    [.text(board.rawValue), .text(member.rawValue)]
                ) { row in
                    found = MemberGrant(board: board, member: member, role: row.text(0), granted: Int64(row.int(1)))
                }
                return found
            }
        }
    }

    package func grants(of board: BoardID) throws(StoreError) -> [MemberGrant] {
        try onReadOnly { (db: Connection) throws(StoreError) -> [MemberGrant] in
            var found: [MemberGrant] = []
            try db.rows(
                "SELECT member, role, granted FROM grants WHERE board = $1 ORDER BY member", [.text(board.rawValue)]
            ) { row in
                guard let member = MemberID(row.text(0)) else { return }
                found.append(MemberGrant(board: board, member: member, role: row.text(1), granted: Int64(row.int(2))))
            }
            return found
        }
    }

    package func allGrants(limit: Int) throws(StoreError) -> [MemberGrant] {
        try onReadOnly { (db: Connection) throws(StoreError) -> [MemberGrant] in
            var found: [MemberGrant] = []
            try db.rows(
                "SELECT g.board, g.member, g.role, g.granted FROM grants g JOIN boards b ON b.id = g.board "
                    + "ORDER BY g.board, g.member LIMIT $1", [.int(limit)]
            ) { row in
                guard let board = BoardID(row.text(0)), let member = MemberID(row.text(1)) else { return }
                found.append(MemberGrant(board: board, member: member, role: row.text(2), granted: Int64(row.int(3))))
            }
            return found
        }
    }
}

extension SQLConnection {
    func deleteGrants(of id: BoardID) throws(StoreError) {
        try write("DELETE FROM grants WHERE board = $1", [.text(id.rawValue)])
    }
}

extension SQLiteStore: GrantStore {}

extension PostgresStore: GrantStore {}

extension SQLiteConnection: GrantRows {}

extension PostgresConnection: GrantRows {}
