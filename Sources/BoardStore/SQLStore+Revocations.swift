internal import BoardCore

/// Revocations, the same in SQLite and PostgreSQL but for the upsert (`putRevocation`). In
/// PostgreSQL every node of a cluster shares them: a revocation made on one node is seen by the
/// others at their next reload (the hub reloads every second).
extension SQLStore {
    /// Stores the revocation and forgets expired ones, in one transaction on the writer connection.
    package func revoke(_ revocation: Revocation, now: Int64) throws(StoreError) {
        try onWriter { (db: Connection) throws(StoreError) in
            try db.writing { () throws(StoreError) in
                try db.putRevocation(revocation.id, of: revocation.board, until: revocation.until, now: now)
            }
        }
    }

    /// The revocations still in force at `now`.
    package func revocations(now: Int64) throws(StoreError) -> [Revocation] {
        try onReadOnly { (db: Connection) throws(StoreError) -> [Revocation] in
            var found: [Revocation] = []
            try db.rows("SELECT id, board, until FROM revocations WHERE until > $1 ORDER BY id", [.int(Int(now))]) {
                row in
                // No board: NULL in SQLite, empty in PostgreSQL; neither is a board id.
                found.append(Revocation(id: row.text(0), board: BoardID(row.text(1)), until: Int64(row.int(2))))
            }
            return found
        }
    }
}

extension SQLiteStore: RevocationStore {}

extension PostgresStore: RevocationStore {}
