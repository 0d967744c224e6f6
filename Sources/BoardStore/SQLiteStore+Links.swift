package import BoardCore

extension SQLiteStore: LinkStore {
    package func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition {
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> LinkAddition in
            try db.transaction(.immediate) { () throws(StoreError) -> LinkAddition in
                guard try db.boardSeq(of: link.board) != nil else {
                    return .unknownBoard
                }
                try db.query("DELETE FROM links WHERE expires <= ?", [.int(Int(now))])
                let live = try db.int("SELECT count(*) FROM links WHERE board = ?", [.text(link.board.rawValue)]) ?? 0
                guard live < maximum else { return .full }
                try db.query(
                    "INSERT INTO links (id, board, role, created, expires, token_id) VALUES (?, ?, ?, ?, ?, ?)",
                    [
                        .text(link.id), .text(link.board.rawValue), .text(link.role), .int(Int(link.created)),
                        .int(Int(link.expires)), .text(link.tokenID),
                    ])
                return .added
            }
        }
    }

    package func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink]? {
        try onReadOnly { (db: SQLiteConnection) throws(StoreError) -> [ShareLink]? in
            guard try db.boardSeq(of: board) != nil else {
                return nil
            }
            var found: [ShareLink] = []
            try db.query(
                "SELECT id, role, created, expires, token_id FROM links WHERE board = ? AND expires > ? "
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
        try onWriter { (db: SQLiteConnection) throws(StoreError) -> ShareLink? in
            try db.transaction(.immediate) { () throws(StoreError) -> ShareLink? in
                var found: ShareLink?
                try db.query(
                    "SELECT role, created, expires, token_id FROM links WHERE id = ? AND board = ? AND expires > ?",
                    [.text(id), .text(board.rawValue), .int(Int(now))]
                ) { row in
                    found = ShareLink(
                        id: id, board: board, role: row.text(0), created: Int64(row.int(1)),
                        expires: Int64(row.int(2)), tokenID: row.text(3))
                }
                guard let link = found else { return nil }
                try db.query("DELETE FROM links WHERE id = ?", [.text(id)])
                try db.query("DELETE FROM revocations WHERE until <= ?", [.int(Int(now))])
                try db.query(
                    "INSERT INTO revocations (id, board, until) VALUES (?, ?, ?) "
                        + "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)",
                    [.text(link.tokenID), .text(board.rawValue), .int(Int(link.expires))])
                return link
            }
        }
    }
}
