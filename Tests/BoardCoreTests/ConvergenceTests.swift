import BoardCore
import TestSupport
import Testing

/// Many replicas send random ops with stale bases; every replica that applies the committed
/// stream in seq order ends identical to the server's board.
@Suite struct ConvergenceTests {
    @Test(arguments: [1, 7, 42, 2026] as [UInt64])
    func replicasApplyingTheCommittedStreamConverge(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let template = Board.defaultTemplate(id: demo)
        var server = Sequencer(board: template, historyLimit: 50)
        let replicaCount = 6
        var replicas = Array(repeating: (board: template, seq: 0), count: replicaCount)
        var stream: [CommittedOp] = []
        var committed = 0
        var rejected = 0

        for step in 0..<3000 {
            let r = Int.random(in: 0..<replicaCount, using: &rng)
            // A replica catches up a random amount: its base lags the server.
            let catchUp = Int.random(in: 0...(stream.count - replicas[r].seq), using: &rng)
            for op in stream[replicas[r].seq..<(replicas[r].seq + catchUp)] { replicas[r].board.apply(op.op) }
            replicas[r].seq += catchUp
            let op = randomOp(on: replicas[r].board, using: &rng)
            let request = OpRequest(opID: OpID("s\(seed)-\(step)")!, base: replicas[r].seq, op: op)
            switch server.submit(
                request, by: UserID(number: UInt64(r)), member: MemberID("m\(r % 2)"), time: wall, holder: { _ in nil })
            {
            case .committed(let c):
                #expect(c.seq == stream.count + 1, "seed \(seed): seq gap")
                stream.append(c)
                committed += 1
            case .rejected:
                rejected += 1
            case .duplicate, .needsBoard:
                Issue.record("seed \(seed): unexpected \(request)")
            }
        }
        for r in 0..<replicaCount {
            for op in stream[replicas[r].seq...] { replicas[r].board.apply(op.op) }
            #expect(replicas[r].board == server.board, "seed \(seed): replica \(r) diverged")
        }
        // Every item is still in exactly one place.
        let placed = server.board.zones.flatMap(\.items)
        #expect(placed.count == 12 && Set(placed).count == 12, "seed \(seed)")
        #expect(committed > 100 && rejected > 10, "seed \(seed): committed \(committed), rejected \(rejected)")
    }

    func randomOp(on board: Board, using rng: inout SplitMix64) -> Op {
        let ids = board.items.map(\.id)
        let a = ids.randomElement(using: &rng)!
        switch Int.random(in: 0..<4, using: &rng) {
        case 0:
            return .swap(a: a, b: ids.randomElement(using: &rng)!)
        case 3:
            // Several cards at once, all or none (issue 36).
            let target = board.zones.randomElement(using: &rng)!
            let some = Array(ids.shuffled(using: &rng).prefix(Int.random(in: 1...4, using: &rng)))
            let before = Bool.random(using: &rng) ? target.items.randomElement(using: &rng) : nil
            return .moveMany(items: some, zone: target.id, before: before)
        case 1:
            let target = board.zones.randomElement(using: &rng)!
            let before = Bool.random(using: &rng) ? target.items.randomElement(using: &rng) : nil
            return .move(item: a, zone: target.id, before: before)
        default:
            return .toggle(item: a, on: Bool.random(using: &rng))
        }
    }
}

/// The same property with every op: adds, edits and removes of items and zones, retitles and
/// restores mixed with moves; replicas, the server and a replay of the log from the template end
/// identical. A restore the sequencer accepts is read from the log (as the store would) and
/// submitted again with its board.
@Suite struct EditingConvergenceTests {
    @Test(arguments: [3, 11, 19, 2027] as [UInt64])
    func replicasConvergeWithEditingOps(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        let template = Board.defaultTemplate(id: demo)
        var server = Sequencer(board: template, historyLimit: 60)
        let replicaCount = 5
        var replicas = Array(repeating: (board: template, seq: 0), count: replicaCount)
        var stream: [CommittedOp] = []
        var kinds: [String: Int] = [:]
        var rejected = 0

        for step in 0..<4000 {
            let r = Int.random(in: 0..<replicaCount, using: &rng)
            let catchUp = Int.random(in: 0...(stream.count - replicas[r].seq), using: &rng)
            for op in stream[replicas[r].seq..<(replicas[r].seq + catchUp)] { replicas[r].board.apply(op.op) }
            replicas[r].seq += catchUp
            let op = randomOp(on: replicas[r].board, seq: replicas[r].seq, using: &rng)
            var request = OpRequest(opID: OpID("s\(seed)-\(step)")!, base: replicas[r].seq, op: op)
            var outcome = server.submit(
                request, by: UserID(number: UInt64(r)), member: MemberID("m\(r % 2)"), time: wall, holder: { _ in nil })
            if case .needsBoard(let to) = outcome {
                var asOf = template
                for op in stream.prefix(to) { asOf.apply(op.op) }
                request.op = .restore(to: to, board: asOf)
                outcome = server.submit(
                    request, by: UserID(number: UInt64(r)), member: MemberID("m\(r % 2)"), time: wall,
                    holder: { _ in nil })
            }
            switch outcome {
            case .committed(let c):
                #expect(c.seq == stream.count + 1, "seed \(seed): seq gap")
                stream.append(c)
                kinds[c.op.kind, default: 0] += 1
                // The size kept op by op is the snapshot's.
                #expect(server.snapshotBytes() == server.board.encoded().count, "seed \(seed): size after \(c.op.kind)")
            case .rejected:
                rejected += 1
            case .duplicate, .needsBoard:
                Issue.record("seed \(seed): unexpected \(outcome)")
            }
        }
        for r in 0..<replicaCount {
            for op in stream[replicas[r].seq...] { replicas[r].board.apply(op.op) }
            #expect(replicas[r].board == server.board, "seed \(seed): replica \(r) diverged")
        }
        // The log replayed from the template, each op checked as the store's import checks it.
        var replay = template
        for op in stream {
            #expect(replay.problem(applying: op.op) == nil, "seed \(seed): seq \(op.seq) does not replay")
            replay.apply(op.op)
        }
        #expect(replay == server.board, "seed \(seed): replay diverged")
        let b = server.board
        #expect(
            Board.validate(
                title: b.title, columns: b.columns, zones: b.zones, items: b.items, tags: b.tags, archived: b.archived)
                == nil)
        let placed = b.zones.flatMap(\.items) + b.archived
        #expect(placed.count == b.items.count && Set(placed).count == b.items.count, "seed \(seed)")
        for kind in Op.kinds where kind != "swap" {
            #expect(kinds[kind, default: 0] > 5, "seed \(seed): only \(kinds[kind, default: 0]) \(kind) committed")
        }
        #expect(rejected > 50, "seed \(seed): rejected \(rejected)")
    }

    func randomOp(on board: Board, seq: Seq, using rng: inout SplitMix64) -> Op {
        let ids = board.items.map(\.id)
        let target = board.zones.randomElement(using: &rng)!
        let anchor = Bool.random(using: &rng) ? target.items.randomElement(using: &rng) : nil
        let words = ["Plan", "Ship", "Fix", "Test", "Écrire", "レビュー"]
        let colors = ["#e53935", "#43a047", "blue", "rgb(1, 2, 3)"]
        switch Int.random(in: 0..<21, using: &rng) {
        case 0 where ids.count > 1:
            return .swap(a: ids.randomElement(using: &rng)!, b: ids.randomElement(using: &rng)!)
        case 1, 2:
            if let a = ids.randomElement(using: &rng) { return .move(item: a, zone: target.id, before: anchor) }
        case 3:
            if let a = ids.randomElement(using: &rng) { return .toggle(item: a, on: Bool.random(using: &rng)) }
        case 4, 5:
            var item = Item(
                id: .unassigned, label: words.randomElement(using: &rng)!, color: colors.randomElement(using: &rng)!,
                on: Int.random(in: 0..<4, using: &rng) == 0, detail: Bool.random(using: &rng) ? "note" : nil)
            // Some carry content, as the undo of a remove does (a tag maybe removed by then).
            if Int.random(in: 0..<3, using: &rng) == 0 {
                item.description = "**again**"
                item.tags = board.tags.randomElement(using: &rng).map { [$0.id] } ?? []
                item.assignees = [Assignee(member: MemberID("ann")!, name: "Ann")]
                item.due = "2026-12-24"
                item.checklist = (0..<Int.random(in: 0...3, using: &rng)).map {
                    Check(id: .unassigned, text: "C\($0)", done: Bool.random(using: &rng))
                }
            }
            return .add(zone: target.id, before: anchor, item: item)
        case 6, 7:
            if let a = ids.randomElement(using: &rng) {
                var changes = ItemEdit()
                if Bool.random(using: &rng) { changes.label = words.randomElement(using: &rng)! }
                if Bool.random(using: &rng) { changes.color = colors.randomElement(using: &rng)! }
                if changes.isEmpty || Bool.random(using: &rng) {
                    changes.detail = .some(Bool.random(using: &rng) ? "d" : nil)
                }
                return .edit(item: a, changes: changes)
            }
        case 8:
            if let a = ids.randomElement(using: &rng) { return .remove(item: a) }
        case 9:
            let zone = Zone(
                id: .unassigned, items: [], title: words.randomElement(using: &rng)!,
                layout: Zone.Layout.allCases.randomElement(using: &rng)!)
            return .addZone(before: Bool.random(using: &rng) ? target.id : nil, zone: zone)
        case 10:
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return .removeZone(zone: (board.zones.last { $0.items.isEmpty } ?? target).id)
            case 1:
                return .editZone(
                    zone: target.id, changes: ZoneEdit(layout: .grid, columns: Int.random(in: 1...6, using: &rng)))
            case 2: return .editZone(zone: target.id, changes: ZoneEdit(layout: .list))
            default: return .editZone(zone: target.id, changes: ZoneEdit(title: words.randomElement(using: &rng)!))
            }
        case 13...20:
            if let a = ids.randomElement(using: &rng) { return randomContentOp(on: board, item: a, using: &rng) }
        case 11:
            return randomBulkOp(on: board, zone: target, anchor: anchor, using: &rng)
        case 12 where Int.random(in: 0..<3, using: &rng) == 0:
            return .restore(to: Int.random(in: 0...seq, using: &rng), board: nil)
        default:
            return .retitle(title: words.randomElement(using: &rng)!)
        }
        return .retitle(title: "fallback")
    }

    /// A moveMany, archive or unarchive of a few random cards (some archived, some not: the
    /// server refuses what does not fit).
    func randomBulkOp(on board: Board, zone target: Zone, anchor: ItemID?, using rng: inout SplitMix64) -> Op {
        let placed = board.zones.flatMap(\.items).shuffled(using: &rng)
        let some = Array(placed.prefix(Int.random(in: 1...4, using: &rng)))
        switch Int.random(in: 0..<3, using: &rng) {
        case 0 where !some.isEmpty:
            return .moveMany(items: some, zone: target.id, before: anchor)
        case 1 where !some.isEmpty:
            return .archive(items: some)
        default:
            let archived = board.archived.shuffled(using: &rng).prefix(Int.random(in: 1...3, using: &rng))
            if archived.isEmpty { return .retitle(title: "nothing archived") }
            return .unarchive(items: Array(archived), zone: target.id, before: anchor)
        }
    }

    /// An op about a card's content: descriptions, due dates, tags, assignees, checklists.
    func randomContentOp(on board: Board, item a: ItemID, using rng: inout SplitMix64) -> Op {
        let tags = board.tags.map(\.id)
        let checks = board.item(a)!.checklist.map(\.id)
        let people = ["ann", "bo", "cy"].map { Assignee(member: MemberID($0)!, name: $0.capitalized) }
        let comments = board.commentRefs.filter { $0.value.item == a }.keys.sorted { $0.rawValue < $1.rawValue }
        switch Int.random(in: 0..<12, using: &rng) {
        case 8:
            let mentions = Bool.random(using: &rng) ? [people.randomElement(using: &rng)!] : []
            return .comment(
                item: a,
                comment: BoardCore.Comment(
                    id: .unassigned, text: "Note @Ann", member: MemberID("x")!, name: "x", at: 0, mentions: mentions))
        case 9 where !comments.isEmpty, 10 where !comments.isEmpty:
            // Another member's comment is refused `forbidden` (ops come from two members).
            let c = comments.randomElement(using: &rng)!
            return Bool.random(using: &rng)
                ? .editComment(item: a, comment: c, text: "Edited", mentions: [], edited: 0)
                : .removeComment(item: a, comment: c)
        case 0:
            let description: String?? = .some(Bool.random(using: &rng) ? "# Plan\n\n- *one*\n- two" : nil)
            let due: String?? = Bool.random(using: &rng) ? .some(Bool.random(using: &rng) ? "2026-02-28" : nil) : nil
            return .edit(item: a, changes: ItemEdit(description: description, due: due))
        case 1 where !tags.isEmpty:
            let t = tags.randomElement(using: &rng)!
            return Bool.random(using: &rng) ? .tag(item: a, add: [t], remove: []) : .tag(item: a, add: [], remove: [t])
        case 2:
            let p = people.randomElement(using: &rng)!
            return Bool.random(using: &rng)
                ? .assign(item: a, add: [p], remove: []) : .assign(item: a, add: [], remove: [p.member])
        case 3:
            // Some on cards at once, as the undo of a removeTag makes them.
            return .addTag(
                tag: Tag(id: .unassigned, name: ["Bug", "UX", "Ops"].randomElement(using: &rng)!, color: "#123"),
                items: Bool.random(using: &rng) ? [a] : [])
        case 4 where !tags.isEmpty:
            return .editTag(tag: tags.randomElement(using: &rng)!, changes: TagEdit(name: "Renamed"))
        case 5 where !tags.isEmpty:
            return .removeTag(tag: tags.randomElement(using: &rng)!)
        case 6 where !checks.isEmpty:
            let c = checks.randomElement(using: &rng)!
            let changes =
                Bool.random(using: &rng) ? CheckEdit(done: Bool.random(using: &rng)) : CheckEdit(text: "Again")
            return .editCheck(item: a, check: c, changes: changes)
        case 7 where !checks.isEmpty:
            return .removeCheck(item: a, check: checks.randomElement(using: &rng)!)
        default:
            let before = Bool.random(using: &rng) ? checks.randomElement(using: &rng) : nil
            return .addCheck(item: a, before: before, check: Check(id: .unassigned, text: "Step"))
        }
    }
}
