internal import BoardCore

extension SQLiteStore: RevocationStore {
    /// Stores the revocation and forgets expired ones, in one transaction on the writer connection.
    package func revoke(_ revocation: Revocation, now: Int64) throws(StoreError) {
        try onWriter { (db: SQLiteConnection) throws(StoreError) in
            try db.transaction(.immediate) { () throws(StoreError) in
                try db.query("DELETE FROM revocations WHERE until <= ?", [.int(Int(now))])
                try db.query(
                    "INSERT INTO revocations (id, board, until) VALUES (?, ?, ?) "
                        + "ON CONFLICT (id) DO UPDATE SET until = max(until, excluded.until)",
                    [
                        .text(revocation.id), revocation.board.map { .text($0.rawValue) } ?? .null,
                        .int(Int(revocation.until)),
                    ])
            }
        }
    }

    /// The revocations still in force at `now`.
    package func revocations(now: Int64) throws(StoreError) -> [Revocation] {
        try onReadOnly { (db: SQLiteConnection) throws(StoreError) -> [Revocation] in
            var found: [Revocation] = []
            try db.query("SELECT id, board, until FROM revocations WHERE until > ? ORDER BY id", [.int(Int(now))]) {
                row in
                found.append(
                    Revocation(
                        id: row.text(0), board: row.isNull(1) ? nil : BoardID(row.text(1)), until: Int64(row.int(2))))
            }
            return found
        }
    }
}
