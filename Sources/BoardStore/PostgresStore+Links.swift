package import BoardCore

/// Share links in the database every node of a cluster shares; a revoked link's token goes on
/// the shared revocation list, which every node reloads each second.
extension PostgresStore: LinkStore {
    package func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> LinkAddition in
            try db.transaction { () throws(StoreError) -> LinkAddition in
                // Two nodes adding to one board at once must not both pass the count.
                try db.query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text("links:" + link.board.rawValue)])
                // The board row is held until this commits: a deletion of the board waits, and then
                // revokes this link too (BoardLog.delete); one that went first leaves no row here.
                guard
                    try db.int("SELECT 1 FROM boards WHERE id = $1 FOR SHARE", [.text(link.board.rawValue)]) == 1
                else { return .unknownBoard }
                try db.query("DELETE FROM links WHERE expires <= $1", [.int(Int(now))])
                let live = try db.int("SELECT count(*) FROM links WHERE board = $1", [.text(link.board.rawValue)]) ?? 0
                guard live < maximum else { return .full }
                try db.query(
                    "INSERT INTO links (id, board, role, created, expires, token_id) VALUES ($1, $2, $3, $4, $5, $6)",
                    [
                        .text(link.id), .text(link.board.rawValue), .text(link.role), .int(Int(link.created)),
                        .int(Int(link.expires)), .text(link.tokenID),
                    ])
                return .added
            }
        }
    }

    package func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink]? {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> [ShareLink]? in
            guard try db.boardSeq(of: board) != nil else {
                return nil
            }
            var found: [ShareLink] = []
            try db.query(
                "SELECT id, role, created, expires, token_id FROM links WHERE board = $1 AND expires > $2 "
                    + "ORDER BY created, id", [.text(board.rawValue), .int(Int(now))]
            ) { row in
                found.append(
                    ShareLink(
                        id: row.text(0), board: board, role: row.text(1), created: Int64(row.int(2)),
                        expires: Int64(row.int(3)), tokenID: row.text(4)))
            }
            return found
        }
    }

    package func revokeLink(_ id: String, of board: BoardID, now: Int64) throws(StoreError) -> ShareLink? {
        try onWriter { (db: PostgresConnection) throws(StoreError) -> ShareLink? in
            try db.transaction { () throws(StoreError) -> ShareLink? in
                var found: ShareLink?
                try db.query(
                    "DELETE FROM links WHERE id = $1 AND board = $2 AND expires > $3 "
                        + "RETURNING role, created, expires, token_id",
                    [.text(id), .text(board.rawValue), .int(Int(now))]
                ) { row in
                    found = ShareLink(
                        id: id, board: board, role: row.text(0), created: Int64(row.int(1)),
                        expires: Int64(row.int(2)), tokenID: row.text(3))
                }
                guard let link = found else { return nil }
                try db.query("DELETE FROM revocations WHERE until <= $1", [.int(Int(now))])
                try db.query(
                    "INSERT INTO revocations (id, board, until) VALUES ($1, $2, $3) "
                        + "ON CONFLICT (id) DO UPDATE SET until = greatest(revocations.until, EXCLUDED.until)",
                    [.text(link.tokenID), .text(board.rawValue), .int(Int(link.expires))])
                return link
            }
        }
    }
}
