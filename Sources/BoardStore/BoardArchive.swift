package import BoardCore

/// A board as exported and imported: a snapshot at `baseSeq` and the ops after it.
///
/// The JSON form is
/// `{"format":"shuffleboard-board","version":1,"board":{…},"baseSeq":N,"ops":[…]}`, where `board`
/// is a snapshot like `welcome`'s and each op is exactly as it was broadcast plus its `time`.
/// Every value of this type has been validated: the snapshot is sound and each op applies.
package struct BoardArchive: Equatable, Sendable {
    /// The `format` member.
    package static let format = "shuffleboard-board"
    /// The `version` member this code writes and reads.
    package static let version = 1

    /// The board just before the first op.
    package let board: Board
    /// The seq of `board`.
    package let baseSeq: Seq
    /// The ops after `baseSeq`, in order and gapless.
    package let ops: [CommittedOp]
    /// `board` with every op applied.
    package let current: Board
    /// The texts of the comments made by `baseSeq` or before (those of the ops after it are in
    /// the ops), as the store had them: each on a card `board.commentRefs` names.
    package let comments: [ItemComment]

    /// The board id.
    package var id: BoardID { board.id }
    /// The seq of the last op.
    package var seq: Seq { baseSeq + ops.count }

    /// An archive, after checking that the board is sound and the ops follow `baseSeq` and apply.
    package init(board: Board, baseSeq: Seq, ops: [CommittedOp], comments: [ItemComment] = []) throws(StoreError) {
        if let problem = Board.validate(
            title: board.title, columns: board.columns, zones: board.zones, items: board.items, tags: board.tags,
            archived: board.archived)
        {
            throw StoreError("board: \(problem)")
        }
        guard baseSeq >= 0 else { throw StoreError("baseSeq must not be negative") }
        var current = board
        for (i, op) in ops.enumerated() {
            guard op.seq == baseSeq + i + 1 else {
                throw StoreError("ops[\(i)] has seq \(op.seq) where \(baseSeq + i + 1) was expected")
            }
            if let problem = current.problem(applying: op.op) {
                throw StoreError("ops[\(i)] (seq \(op.seq)) does not apply: \(problem)")
            }
            current.apply(op.op)
        }
        guard comments.count <= BoardLimits.comments else {
            throw StoreError("a board keeps at most \(BoardLimits.comments) comments")
        }
        for (i, c) in comments.enumerated() {
            guard let seq = c.comment.id.seq, seq <= baseSeq, board.commentRefs[c.comment.id]?.item == c.item else {
                throw StoreError("comments[\(i)] (\(c.comment.id)) is not a comment of the board by its baseSeq")
            }
        }
        self.board = board
        self.baseSeq = baseSeq
        self.ops = ops
        self.current = current
        self.comments = comments
    }

    /// Parses and validates the JSON form; errors name the member that is wrong.
    package init(json bytes: [UInt8]) throws(StoreError) {
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw StoreError("not JSON: \(error.reason) at byte \(error.offset)")
        }
        guard case .object = json else { throw StoreError("an archive must be a JSON object") }
        guard json["format"]?.stringValue == Self.format else {
            throw StoreError("not a shuffleboard board archive (\"format\" must be \"\(Self.format)\")")
        }
        guard let version = json["version"]?.intValue else { throw StoreError("\"version\" must be an integer") }
        guard version == Self.version else {
            throw StoreError(
                "archive version \(version) is not supported (this shuffleboard reads version \(Self.version))")
        }
        guard let boardJSON = json["board"] else { throw StoreError("\"board\" is missing") }
        let board: Board
        do { board = try Board(json: boardJSON) } catch { throw StoreError(error) }
        guard let baseSeq = json["baseSeq"]?.intValue, baseSeq >= 0 else {
            throw StoreError("\"baseSeq\" must be a non-negative integer")
        }
        guard let opValues = json["ops"]?.arrayValue else { throw StoreError("\"ops\" must be an array") }
        var ops: [CommittedOp] = []
        ops.reserveCapacity(opValues.count)
        for (i, value) in opValues.enumerated() {
            do {
                ops.append(try CommittedOp(json: value))
            } catch {
                throw StoreError(
                    error, context: "ops[\(i)] is not a committed op (type, op, by, seq and the op's fields): ")
            }
        }
        var comments: [ItemComment] = []
        if let values = json["comments"]?.arrayValue {
            for (i, value) in values.enumerated() {
                guard let object = value["comment"], let item = value["item"]?.stringValue.flatMap(ItemID.init) else {
                    throw StoreError("comments[\(i)] must be {item, comment}")
                }
                do throws(JSON.DecodingError) {
                    comments.append(ItemComment(item: item, comment: try Comment(json: object, path: "comment")))
                } catch {
                    throw StoreError(error, context: "comments[\(i)]: ")
                }
            }
        }
        try self.init(board: board, baseSeq: baseSeq, ops: ops, comments: comments)
    }

    /// The JSON form, one op per line.
    package func encoded() -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.write("format", Self.format)
        w.write("version", Self.version)
        board.encode(into: &w, key: "board", stored: true)
        w.write("baseSeq", baseSeq)
        w.beginArray("ops")
        for op in ops {
            // As broadcast, then the time.
            var o = JSONWriter()
            op.encode(into: &o, withTime: true)
            w.writeRaw(nil, [UInt8(ascii: "\n")] + o.bytes)
        }
        w.endArray()
        if !comments.isEmpty {
            w.beginArray("comments")
            for c in comments {
                w.beginObject()
                w.write("item", c.item.rawValue)
                c.comment.encode(into: &w, key: "comment")
                w.endObject()
            }
            w.endArray()
        }
        w.endObject()
        return w.bytes + Array("\n".utf8)
    }

    /// The archive of board `id` in `store`, as JSON.
    package static func export(from store: any BoardStore, id: BoardID) throws(StoreError) -> [UInt8] {
        guard let archive = try store.archive(of: id) else { throw StoreError("there is no board \(id)") }
        return archive.encoded()
    }

    /// Parses `json` and puts the board into `store`; an existing board is only overwritten when `replace`.
    @discardableResult
    package static func restore(_ json: [UInt8], into store: any BoardStore, replace: Bool) throws(StoreError)
        -> BoardArchive
    {
        let archive = try BoardArchive(json: json)
        try store.restore(archive, replace: replace)
        return archive
    }
}
