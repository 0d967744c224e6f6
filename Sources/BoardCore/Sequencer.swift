package import Basics

/// An op as a client submits it: what to do, against which seq, under which op id.
package struct OpRequest: Equatable, Sendable {
    /// The client-chosen op id.
    package var opID: OpID
    /// The last seq the client had applied.
    package var base: Seq
    /// The change.
    package var op: Op

    /// A request.
    package init(opID: OpID, base: Seq, op: Op) {
        self.opID = opID
        self.base = base
        self.op = op
    }
}

/// Orders ops on one board: checks them against the conflict rules, numbers and applies them.
///
/// It keeps the last `historyLimit` committed ops (to check conflicts against stale bases and to
/// serve `since` resumes) and the op ids of those ops (to answer resends with `ack`).
package struct Sequencer: Sendable {
    /// The board with every committed op applied.
    package private(set) var board: Board
    /// The seq of the last committed op (0 before any).
    package private(set) var seq: Seq
    /// How many committed ops are kept.
    package let historyLimit: Int
    /// The most bytes the board's JSON snapshot may take (`--max-board-bytes`): an op that would
    /// grow it past this is refused `board_full`. Moves, swaps and toggles never are (they change
    /// the size by a byte or two, and a full board must still be sortable).
    package var maxBoardBytes = BoardLimits.defaultMaxBoardBytes
    /// The people who committed the ops this sequencer has seen (`GET …/members`).
    package private(set) var members = Members()
    /// The size of `board` as a snapshot, once an op has needed it; kept up to date op by op.
    private var boardBytes: Int?

    private var history = FIFO<CommittedOp>()
    private var opSeqs: [OpID: Seq] = [:]

    /// A committed op that changed something a later op's conflict rule looks at.
    private struct Touch: Sendable {
        var seq: Seq
        var by: UserID
    }

    /// What committed ops last changed about one item.
    private struct ItemTouches: Sendable {
        /// Its place or paint state (swap, move, toggle; add, or an anchor of a move).
        var place: Touch?
        /// Each field an edit changed.
        var fields: [ItemField: Touch] = [:]
        /// Its tags, assignees or checklist (tag, assign, addCheck, editCheck, removeCheck).
        var content: Touch?
        /// Each field an editCheck changed, per entry of its checklist.
        var checks: [CheckID: [CheckField: Touch]] = [:]

        /// The newest touch of any kind.
        var newest: Touch? {
            ([place, content].compactMap { $0 } + fields.values).max { $0.seq < $1.seq }
        }
    }

    // The conflict rules in O(1) per named item, zone or field. Entries for removed items and
    // zones go once the remove leaves the history (a base before it is `stale` by then), so
    // these tables are bounded by the board plus the history.
    private var itemTouches: [ItemID: ItemTouches] = [:]
    private var zoneTouches: [ZoneID: [ZoneField: Touch]] = [:]
    private var titleTouch: Touch?
    private var removedItems: [ItemID: Touch] = [:]
    private var removedZones: [ZoneID: Touch] = [:]
    private var tagTouches: [TagID: [TagField: Touch]] = [:]
    private var removedTags: [TagID: Touch] = [:]
    private var removedChecks: [CheckID: Touch] = [:]
    /// The newest edit of each comment, and the removes of comments (their conflict rules).
    private var commentEdits: [CommentID: Touch] = [:]
    private var removedComments: [CommentID: Touch] = [:]
    /// The newest restore: every op whose base is before it conflicts (the board it was made
    /// against is gone), and the tables above start over with it.
    private var restoreTouch: Touch?

    /// What became of a submitted op.
    package enum Outcome: Equatable, Sendable {
        /// Committed with the next seq.
        case committed(CommittedOp)
        /// The op id was committed before, with this seq.
        case duplicate(Seq)
        /// Refused.
        case rejected(Rejection)
        /// A restore (without its board) that passes every rule so far: read the board as of
        /// this seq from the store and submit the restore again with it.
        case needsBoard(Seq)
    }

    /// A sequencer for `board` at `seq`, optionally seeded with the most recent committed ops.
    package init(board: Board, seq: Seq = 0, recent: [CommittedOp] = [], historyLimit: Int = 1000) {
        precondition(historyLimit >= 1, "history must keep at least one op")
        self.board = board
        self.seq = seq
        self.historyLimit = historyLimit
        for op in recent.suffix(historyLimit) where op.seq <= seq { remember(op) }
    }

    /// The size of `board` as a JSON snapshot, in bytes (what `maxBoardBytes` bounds).
    package mutating func snapshotBytes() -> Int {
        if let boardBytes { return boardBytes }
        let bytes = board.encoded().count
        boardBytes = bytes
        return bytes
    }

    /// The oldest seq still in the history, or `seq + 1` when it is empty.
    package var oldestHeldSeq: Seq { history.first?.seq ?? seq + 1 }

    /// The committed ops with seq greater than `since`, or nil when some were already forgotten.
    /// A restore after `since` also makes it nil: the history keeps a restore without its board
    /// (one may be megabytes, and ten thousand of them would be gigabytes), so a resume across
    /// one gets the board instead.
    package func ops(after since: Seq) -> FIFO<CommittedOp>.SubSequence? {
        guard since <= seq, since >= oldestHeldSeq - 1 else { return nil }
        if let restoreTouch, restoreTouch.seq > since { return nil }
        return history[(since - (oldestHeldSeq - 1))...]
    }

    /// The seq under which `opID` was committed, if it is still remembered.
    package func committedSeq(of opID: OpID) -> Seq? { opSeqs[opID] }

    /// The reject of an op that names an id the board does not have: `conflict` when an op after
    /// `base` removed it (`removed`, the remove of that id, if remembered) or a restore after
    /// `base` replaced the board, since the client could not have known; else `reason`.
    private func rejectUnknown(_ reason: RejectReason, _ removed: Touch?, _ base: Seq, _ opID: OpID) -> Outcome {
        if base <= seq, let removed = removed ?? restoreTouch, removed.seq > base {
            return .rejected(Rejection(.conflict, by: removed.by, opID: opID))
        }
        return .rejected(Rejection(reason, by: nil, opID: opID))
    }

    /// Checks `request` against the conflict rules in their documented order and commits it if it passes.
    ///
    /// `holder` says which user's drag holds an item, if any. An add or addZone is committed
    /// with a fresh id for what it creates. A restore without its board that passes the rules
    /// comes back as `needsBoard`; with its board (read after that), it is checked again and
    /// committed. `name` is the sender's name, kept with the committed op for history lists.
    /// `admin`: the sender may remove anyone's comment.
    package mutating func submit(
        _ request: OpRequest, by user: UserID, name: String? = nil, member: MemberID? = nil, admin: Bool = false,
        time: UnixTime, holder: (ItemID) -> UserID?
    ) -> Outcome {
        if let earlier = opSeqs[request.opID] { return .duplicate(earlier) }
        let reject = { (reason: RejectReason, by: UserID?) in
            Outcome.rejected(Rejection(reason, by: by, opID: request.opID))
        }
        // As `User.member`: without a member, the user id stands for one.
        let author = member ?? MemberID(user.rawValue) ?? MemberID("unknown")!
        var op = withFreshIDs(request.op, author: author, name: name, time: time)
        let base = request.base
        // Unknown ids now; an op that is meaningless on the current board only after the base,
        // hold and conflict rules, in the documented order. An id removed after `base` is a
        // conflict: the client could not have known.
        let problem = board.problem(applying: op)
        switch problem {
        case .unknownItem(let item)?: return rejectUnknown(.unknownItem, removedItems[item], base, request.opID)
        case .unknownZone(let zone)?: return rejectUnknown(.unknownZone, removedZones[zone], base, request.opID)
        case .unknownTag(let tag)?: return rejectUnknown(.unknownTag, removedTags[tag], base, request.opID)
        case .unknownCheck(let check)?: return rejectUnknown(.unknownCheck, removedChecks[check], base, request.opID)
        case .unknownComment(let comment)?:
            return rejectUnknown(.unknownComment, removedComments[comment], base, request.opID)
        default:
            break
        }
        // Only its author edits a comment; its author or an admin removes it.
        switch op {
        case .editComment(_, let id, _, _, _) where board.commentRefs[id]?.member != author:
            return reject(.forbidden, nil)
        case .removeComment(_, let id) where board.commentRefs[id]?.member != author && !admin:
            return reject(.forbidden, nil)
        default:
            break
        }
        // Base.
        if base > seq { return reject(.badBase, nil) }
        if base < oldestHeldSeq - 1 { return reject(.stale, nil) }
        // Holds by other users.
        for item in op.holdsEveryItem ? board.items.map(\.id) : op.heldItems {
            if let h = holder(item), h != user { return reject(.held, h) }
        }
        // Anything committed after base that changed what this op is about; after a restore,
        // everything did.
        if let touch = restoreTouch, touch.seq > base { return reject(.conflict, touch.by) }
        if let touch = conflict(op), touch.seq > base { return reject(.conflict, touch.by) }
        // Meaningless on the current board.
        if let problem { return reject(problem.reason, nil) }
        if case .restore(let to, let restored) = op {
            // The sender restores a seq it has seen; the board then comes from the store.
            if to > base { return reject(.invalid, nil) }
            guard var restored else { return .needsBoard(to) }
            // A restore deletes no comment: the board it carries (what every client replaces its
            // board with) keeps every comment, and its cards show their counts.
            restored.commentRefs = board.commentRefs
            restored.recountComments()
            op = .restore(to: to, board: restored)
        }
        // Too big: the board's snapshot would pass `maxBoardBytes`.
        let bytes = boardBytes ?? board.encoded().count
        let after = SnapshotSize.after(op, on: board, bytes: bytes)
        if after > bytes && after > maxBoardBytes && !op.onlyPlacesOrPaints {
            boardBytes = bytes
            return reject(.boardFull, nil)
        }
        seq += 1
        let committed = CommittedOp(
            seq: seq, opID: request.opID, by: user, op: op, time: time, name: name, member: member)
        board.apply(op)
        boardBytes = after
        remember(committed)
        return .committed(committed)
    }

    /// The newest committed op that changed what `op` is about (docs/conflicts.md):
    /// - swap, move, toggle, moveMany, archive, unarchive: the place or paint of any item they
    ///   name, anchors included (not its texts);
    /// - add: the place of its anchor;
    /// - edit: the same fields of the same item (not its place);
    /// - remove: anything about the item;
    /// - editZone: the same fields of the zone; removeZone: any field of the zone;
    /// - retitle: the title; addZone: nothing;
    /// - editTag, editCheck: the same fields of the same tag or entry; removeTag, removeCheck:
    ///   any field of it; tag, assign, addTag, addCheck: nothing.
    private func conflict(_ op: Op) -> Touch? {
        func newest(_ touches: [Touch?]) -> Touch? { touches.compactMap { $0 }.max { $0.seq < $1.seq } }
        switch op {
        case .swap, .move, .toggle, .add, .moveMany, .archive, .unarchive:
            // Every op takes this way: no array of touches is made for it.
            var latest: Touch?
            for item in op.involvedItems {
                if let touch = itemTouches[item]?.place, touch.seq > latest?.seq ?? Seq.min { latest = touch }
            }
            return latest
        case .edit(let item, let changes):
            return newest(changes.fields.map { itemTouches[item]?.fields[$0] })
        case .editTag(let tag, let changes):
            return newest(changes.fields.map { tagTouches[tag]?[$0] })
        case .removeTag(let tag):
            return newest(tagTouches[tag].map { Array($0.values) } ?? [])
        case .editCheck(let item, let check, let changes):
            return newest(changes.fields.map { itemTouches[item]?.checks[check]?[$0] })
        case .removeCheck(let item, let check):
            return newest(itemTouches[item]?.checks[check].map { Array($0.values) } ?? [])
        case .tag, .assign, .addTag, .addCheck, .comment:
            // Set changes commute, and adds do not lock their anchor; comments add up.
            return nil
        case .editComment(_, let comment, _, _, _), .removeComment(_, let comment):
            return commentEdits[comment]
        case .remove(let item):
            return itemTouches[item]?.newest
        case .editZone(let zone, let changes):
            return newest(changes.fields.map { zoneTouches[zone]?[$0] })
        case .removeZone(let zone):
            return newest(zoneTouches[zone].map { Array($0.values) } ?? [])
        case .retitle:
            return titleTouch
        case .addZone, .restore:
            // A restore conflicts only with another restore, checked before (`restoreTouch`).
            return nil
        }
    }

    /// `op` with the ids of what it creates assigned: `c<seq>` for an item, `z<seq>` for a zone
    /// (seqs are never reused), with a suffix in the rare case an imported board already used it;
    /// a comment `n<seq>` with its author, name and time, an edit of one its time.
    private func withFreshIDs(_ op: Op, author: MemberID, name: String?, time: UnixTime) -> Op {
        switch op {
        case .comment(let item, var comment):
            comment.id = CommentID(seq: seq + 1)
            comment.member = author
            comment.name = name.flatMap { Assignee.isValidName($0) ? $0 : nil } ?? author.rawValue
            comment.at = time.milliseconds
            comment.edited = nil
            return .comment(item: item, comment: comment)
        case .editComment(let item, let comment, let text, let mentions, _):
            return .editComment(item: item, comment: comment, text: text, mentions: mentions, edited: time.milliseconds)
        case .add(let zone, let before, var item):
            item.id = freshID("c") { board.item($0) != nil || removedItems[$0] != nil }
            // Its checks (an undone remove brings them back) get fresh ids, as addCheck's do.
            var taken = Set<CheckID>()
            for i in item.checklist.indices {
                let check: CheckID = freshID("k") {
                    board.hasCheck($0) || removedChecks[$0] != nil || taken.contains($0)
                }
                taken.insert(check)
                item.checklist[i].id = check
            }
            return .add(zone: zone, before: before, item: item)
        case .addZone(let before, var zone):
            zone.id = freshID("z") { board.hasZone($0) || removedZones[$0] != nil }
            zone.items = []
            return .addZone(before: before, zone: zone)
        case .addTag(var tag, let items):
            tag.id = freshID("g") { board.tag($0) != nil || removedTags[$0] != nil }
            return .addTag(tag: tag, items: items)
        case .addCheck(let item, let before, var check):
            check.id = freshID("k") { board.hasCheck($0) || removedChecks[$0] != nil }
            check.done = false
            return .addCheck(item: item, before: before, check: check)
        default:
            return op
        }
    }

    /// The id `<prefix><seq + 1>` of what the next op creates, or in the rare case `taken` says an
    /// imported board already used it, the first free one of `<prefix><seq + 1>-2`, `-3`, ….
    private func freshID<Kind>(_ prefix: String, taken: (WireID<Kind>) -> Bool) -> WireID<Kind> {
        var id = WireID<Kind>("\(prefix)\(seq + 1)")!
        var n = 1
        while taken(id) {
            n += 1
            id = WireID<Kind>("\(prefix)\(seq + 1)-\(n)")!
        }
        return id
    }

    private mutating func remember(_ op: CommittedOp) {
        opSeqs[op.opID] = op.seq
        members.note(op)
        let touch = Touch(seq: op.seq, by: op.by)
        if case .restore(let to, _) = op.op {
            // Kept without its board (see `ops(after:)`). Every op based before it conflicts
            // from now on, so what the tables say about earlier ops is never asked again.
            var hollow = op
            hollow.op = .restore(to: to, board: nil)
            history.append(hollow)
            itemTouches = [:]
            zoneTouches = [:]
            titleTouch = nil
            removedItems = [:]
            removedZones = [:]
            tagTouches = [:]
            removedTags = [:]
            removedChecks = [:]
            commentEdits = [:]
            removedComments = [:]
            restoreTouch = touch
            if history.count > historyLimit, let forgotten = history.popFirst() { forget(forgotten) }
            return
        }
        history.append(op)
        switch op.op {
        case .swap, .move, .toggle, .moveMany, .archive, .unarchive:
            for item in op.op.involvedItems { itemTouches[item, default: ItemTouches()].place = touch }
        case .add(_, _, let item):
            itemTouches[item.id, default: ItemTouches()].place = touch
        case .edit(let item, let changes):
            for field in changes.fields { itemTouches[item, default: ItemTouches()].fields[field] = touch }
        case .remove(let item):
            Self.noteRemove(item, touch, touches: &itemTouches, removes: &removedItems)
        case .addZone:
            break
        case .editZone(let zone, let changes):
            for field in changes.fields { zoneTouches[zone, default: [:]][field] = touch }
        case .removeZone(let zone):
            Self.noteRemove(zone, touch, touches: &zoneTouches, removes: &removedZones)
        case .retitle:
            titleTouch = touch
        case .tag(let item, _, _), .assign(let item, _, _), .addCheck(let item, _, _):
            itemTouches[item, default: ItemTouches()].content = touch
        case .editCheck(let item, let check, let changes):
            itemTouches[item, default: ItemTouches()].content = touch
            for field in changes.fields {
                itemTouches[item, default: ItemTouches()].checks[check, default: [:]][field] = touch
            }
        case .removeCheck(let item, let check):
            itemTouches[item, default: ItemTouches()].content = touch
            itemTouches[item]?.checks[check] = nil
            removedChecks[check] = touch
        case .addTag(_, let items):
            // Tagging cards at once (the undo of a removeTag) changes them as a `tag` does.
            for item in items { itemTouches[item, default: ItemTouches()].content = touch }
        case .editTag(let tag, let changes):
            for field in changes.fields { tagTouches[tag, default: [:]][field] = touch }
        case .removeTag(let tag):
            Self.noteRemove(tag, touch, touches: &tagTouches, removes: &removedTags)
        case .comment:
            break
        case .editComment(_, let comment, _, _, _):
            commentEdits[comment] = touch
        case .removeComment(_, let comment):
            Self.noteRemove(comment, touch, touches: &commentEdits, removes: &removedComments)
        case .restore:
            break
        }
        if history.count > historyLimit, let forgotten = history.popFirst() { forget(forgotten) }
    }

    /// `op` left the history: its op id and what only it remembered go with it.
    private mutating func forget(_ op: CommittedOp) {
        opSeqs[op.opID] = nil
        switch op.op {
        case .remove(let item): Self.forget(item, madeBy: op.seq, in: &removedItems)
        case .removeZone(let zone): Self.forget(zone, madeBy: op.seq, in: &removedZones)
        case .removeTag(let tag): Self.forget(tag, madeBy: op.seq, in: &removedTags)
        case .removeCheck(_, let check): Self.forget(check, madeBy: op.seq, in: &removedChecks)
        case .removeComment(_, let comment): Self.forget(comment, madeBy: op.seq, in: &removedComments)
        case .editComment(_, let comment, _, _, _): Self.forget(comment, madeBy: op.seq, in: &commentEdits)
        default: break
        }
    }

    /// The remove of `key` committed as `touch`: what the touch table said of it goes, and the
    /// remove is kept in `removes` (an op that names `key` with an earlier base is a conflict).
    private static func noteRemove<Key: Hashable, Value>(
        _ key: Key, _ touch: Touch, touches: inout [Key: Value], removes: inout [Key: Touch]
    ) {
        touches[key] = nil
        removes[key] = touch
    }

    /// Drops `key`'s entry of `table` when the op `seq`, leaving the history, made it (a later
    /// op's entry stays).
    private static func forget<Key: Hashable>(_ key: Key, madeBy seq: Seq, in table: inout [Key: Touch]) {
        if table[key]?.seq == seq { table[key] = nil }
    }
}
