internal import BoardCore

/// The board log's rows in PostgreSQL's SQL, every value a bound parameter. Writes whose only
/// answer is success go through `send`, so that a pipelined transaction does not wait for each.
extension PostgresConnection: BoardRows {
    /// The most ops in one INSERT (8 parameters each, below PostgreSQL's 65,535).
    static let opsPerInsert = 500

    func insertBoard(_ board: Board, seq: Seq, created: Int64, ignoringExisting: Bool) throws(StoreError) -> Bool {
        let insert = "INSERT INTO boards \(Self.boardColumns)"
        let values = Self.values(of: board, seq: seq, created: created).map(Self.value)
        return try query(ignoringExisting ? insert + " ON CONFLICT (id) DO NOTHING" : insert, values) == 1
    }

    /// Sent with the rest of the transaction, its answer not waited for: at the first writes of
    /// many boards, one round trip per board was most of a batch.
    func insertNewBoard(_ board: Board, created: Int64) throws(StoreError) {
        try send(
            "INSERT INTO boards (id, title, columns, created, seq, template) VALUES ($1, $2, $3, $4, 0, $5)",
            [
                .text(board.id.rawValue), .utf8(board.title), .int(board.columns), .int(Int(created)),
                .text(board.template?.rawValue ?? ""),
            ])
    }

    func putSnapshot(_ json: [UInt8], of id: BoardID, at seq: Seq) throws(StoreError) {
        try send(
            "INSERT INTO snapshots (board, seq, snapshot) VALUES ($1, $2, $3) "
                + "ON CONFLICT (board, seq) DO UPDATE SET snapshot = EXCLUDED.snapshot",
            [.text(id.rawValue), .int(seq), .bytes(json)])
    }

    /// One INSERT per `opsPerInsert` ops: a round trip to the server costs more than the rows.
    /// The last one also sets the board's seq, in the same statement. The SQL names only
    /// parameter numbers; every value is bound.
    func appendOps(_ ops: [CommittedOp], of id: BoardID) throws(StoreError) {
        guard let last = ops.last else { return }
        var start = ops.startIndex
        while start < ops.endIndex {
            let chunk = ops[start..<min(start + Self.opsPerInsert, ops.endIndex)]
            let final = chunk.endIndex == ops.endIndex
            var values: [PostgresValue] = [.text(id.rawValue), .int(final ? last.seq : 0)]
            var rows: [String] = []
            for op in chunk {
                let n = values.count
                rows.append("($1, $\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4), $\(n + 5), $\(n + 6), $\(n + 7))")
                values += [
                    .int(op.seq), .utf8(op.opID.rawValue), .utf8(op.by.rawValue), .text(op.op.kind),
                    .bytes(op.op.encodedFields(member: op.member)), .int(Int(op.time.milliseconds)),
                    .utf8(op.name ?? ""),
                ]
            }
            // $2 is the new seq; the UPDATE runs only with the last chunk.
            let update =
                final
                ? "WITH seq AS (UPDATE boards SET seq = $2, indexed = $2 WHERE id = $1) " : "WITH seq AS (SELECT $2) "
            try send(
                update + "INSERT INTO ops (board, seq, op_id, \"user\", type, fields, time, name) VALUES "
                    + rows.joined(separator: ", "), values)
            start = chunk.endIndex
        }
    }

    /// Several boards' ops in one INSERT per `opsPerInsert` rows, whatever board each row is of
    /// (one statement per board costs the server a parse, a plan and an executor start each: at
    /// 100 boards a batch, most of its work); the first one also sets every board's seq, with one
    /// UPDATE from two arrays. One board goes the one-board way.
    func appendOps(ofBoards appends: [(id: BoardID, ops: [CommittedOp])]) throws(StoreError) {
        let appends = appends.filter { !$0.ops.isEmpty }
        guard appends.count > 1 else {
            if let only = appends.first { try appendOps(only.ops, of: only.id) }
            return
        }
        let rows = appends.flatMap { append in append.ops.map { (append.id, $0) } }
        var start = rows.startIndex
        while start < rows.endIndex {
            let chunk = rows[start..<min(start + Self.opsPerInsert, rows.endIndex)]
            let first = start == rows.startIndex
            var values: [PostgresValue] =
                first
                ? [.textArray(appends.map(\.id.rawValue)), .intArray(appends.map { $0.ops.last?.seq ?? 0 })] : []
            var tuples: [String] = []
            for (id, op) in chunk {
                let n = values.count
                tuples.append(
                    "($\(n + 1), $\(n + 2), $\(n + 3), $\(n + 4), $\(n + 5), $\(n + 6), $\(n + 7), $\(n + 8))")
                values += [
                    .text(id.rawValue), .int(op.seq), .utf8(op.opID.rawValue), .utf8(op.by.rawValue),
                    .text(op.op.kind), .bytes(op.op.encodedFields(member: op.member)), .int(Int(op.time.milliseconds)),
                    .utf8(op.name ?? ""),
                ]
            }
            let update =
                first
                ? "WITH seq AS (UPDATE boards SET seq = v.seq, indexed = v.seq FROM unnest($1::text[], $2::int8[]) AS v(id, seq) "
                    + "WHERE boards.id = v.id) " : ""
            try send(
                update + "INSERT INTO ops (board, seq, op_id, \"user\", type, fields, time, name) VALUES "
                    + tuples.joined(separator: ", "), values)
            start = chunk.endIndex
        }
    }

    func deleteBoard(_ id: BoardID) throws(StoreError) {
        // Snapshots and ops go with it (ON DELETE CASCADE).
        try send("DELETE FROM boards WHERE id = $1", [.text(id.rawValue)])
    }

    func revokeLinks(of id: BoardID) throws(StoreError) {
        try send(
            "INSERT INTO revocations (id, board, until) SELECT token_id, board, expires FROM links WHERE board = $1 "
                + "ON CONFLICT (id) DO UPDATE SET until = greatest(revocations.until, EXCLUDED.until)",
            [.text(id.rawValue)])
        try send("DELETE FROM links WHERE board = $1", [.text(id.rawValue)])
    }
}
