internal import BoardCore

/// Revocations in the database every node of a cluster shares: a revocation made on one node is
/// seen by the others at their next reload (the hub reloads every second).
extension PostgresStore: RevocationStore {
    /// Stores the revocation and forgets expired ones, in one transaction on the writer connection.
    package func revoke(_ revocation: Revocation, now: Int64) throws(StoreError) {
        try onWriter { (db: PostgresConnection) throws(StoreError) in
            try db.transaction { () throws(StoreError) in
                try db.query("DELETE FROM revocations WHERE until <= $1", [.int(Int(now))])
                try db.query(
                    "INSERT INTO revocations (id, board, until) VALUES ($1, $2, $3) "
                        + "ON CONFLICT (id) DO UPDATE SET until = greatest(revocations.until, EXCLUDED.until)",
                    [.text(revocation.id), .text(revocation.board?.rawValue ?? ""), .int(Int(revocation.until))])
            }
        }
    }

    /// The revocations still in force at `now`.
    package func revocations(now: Int64) throws(StoreError) -> [Revocation] {
        try onReadOnly { (db: PostgresConnection) throws(StoreError) -> [Revocation] in
            var found: [Revocation] = []
            try db.query("SELECT id, board, until FROM revocations WHERE until > $1 ORDER BY id", [.int(Int(now))]) {
                row in
                let board = row.text(1)
                found.append(Revocation(id: row.text(0), board: BoardID(board), until: Int64(row.int(2))))
            }
            return found
        }
    }
}
