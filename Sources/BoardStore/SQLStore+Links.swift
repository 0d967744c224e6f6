internal import BoardCore

/// Share links, the same in SQLite and PostgreSQL. In PostgreSQL every node of a cluster shares
/// them; a revoked link's token goes on the shared revocation list, which every node reloads
/// each second.
extension SQLStore {
    package func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition {
        try onWriter { (db: Connection) throws(StoreError) -> LinkAddition in
            try db.writing { () throws(StoreError) -> LinkAddition in
                // Two transactions adding to one board at once must not both pass the count.
                try db.lockCount("links", of: link.board)
                guard try db.holdBoard(link.board) else { return .unknownBoard }
                try db.write("DELETE FROM links WHERE expires <= $1", [.int(Int(now))])
                let live = try db.intValue("SELECT count(*) FROM links WHERE board = $1", [.text(link.board.rawValue)])
                guard live ?? 0 < maximum else { return .full }
                try db.write(
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
        try onReadOnly { (db: Connection) throws(StoreError) -> [ShareLink]? in
            guard try db.boardSeq(of: board) != nil else { return nil }
            var found: [ShareLink] = []
            try db.rows(
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
        try onWriter { (db: Connection) throws(StoreError) -> ShareLink? in
            try db.writing { () throws(StoreError) -> ShareLink? in
                var found: ShareLink?
                try db.rows(
                    "DELETE FROM links WHERE id = $1 AND board = $2 AND expires > $3 "
                        + "RETURNING role, created, expires, token_id",
                    [.text(id), .text(board.rawValue), .int(Int(now))]
                ) { row in
                    found = ShareLink(
                        id: id, board: board, role: row.text(0), created: Int64(row.int(1)),
                        expires: Int64(row.int(2)), tokenID: row.text(3))
                }
                guard let link = found else { return nil }
                try db.putRevocation(link.tokenID, of: board, until: link.expires, now: now)
                return link
            }
        }
    }
}

extension SQLiteStore: LinkStore {}

extension PostgresStore: LinkStore {}
