package import BoardCore

/// A board made from Trello's "Export as JSON" (issue 37): what was imported, as an archive
/// the store restores at once, and the report of what was carried and what was not.
///
/// The mapping: the board's `name` is the title; open `lists` by `pos` become list zones; `cards`
/// by `pos` become items (`name` label, `desc` description, `idLabels` tags, `due`, `idMembers`
/// assignees as `trello-USERNAME` with the full name, the card's checklists as one checklist,
/// each entry prefixed with its checklist's name when the card has several); closed cards and
/// the cards of closed lists are archived; `commentCard` actions become comments with their
/// author, text and date. Nothing is cut to fit: a board over one of `BoardLimits` is refused
/// (`Refusal.tooLarge`, naming the limit).
package struct TrelloImport: Equatable, Sendable {
    /// The board at `archive.seq`: one seq per comment (a comment's id is the seq that made it),
    /// and no ops.
    package let archive: BoardArchive
    /// `{"imported": {...}, "dropped": {...}}`, as counts by name.
    package let report: Report

    /// The largest export the import reads: 32 MiB.
    package static let maxBytes = 32 << 20

    /// What was imported and what was dropped, by kind.
    package struct Report: Equatable, Sendable {
        /// Zones, items, tags, checks, comments and archived items made.
        package var imported: [(String, Int)]
        /// Every Trello field that was not carried, with how many there were.
        package var dropped: [(String, Int)]

        package static func == (a: Report, b: Report) -> Bool {
            a.imported.elementsEqual(b.imported, by: ==) && a.dropped.elementsEqual(b.dropped, by: ==)
        }

        /// Writes the report as a JSON object under `key`.
        package func encode(into w: inout JSONWriter, key: String?) {
            w.beginObject(key)
            for (name, part) in [("imported", imported), ("dropped", dropped)] {
                w.beginObject(name)
                for (k, n) in part { w.write(k, n) }
                w.endObject()
            }
            w.endObject()
        }

        /// The count of `name` in `dropped` (0 when absent).
        package func dropped(_ name: String) -> Int { dropped.first { $0.0 == name }?.1 ?? 0 }
        /// The count of `name` in `imported` (0 when absent).
        package func imported(_ name: String) -> Int { imported.first { $0.0 == name }?.1 ?? 0 }
    }

    /// Why an export cannot be imported.
    package enum Refusal: Error, Equatable, Sendable {
        /// Not a Trello board export (HTTP 400), saying what is wrong.
        case notTrello(String)
        /// A Trello board, but over one of our limits (HTTP 413), naming it.
        case tooLarge(String)

        /// The message.
        package var message: String {
            switch self {
            case .notTrello(let m): "not a Trello board export: " + m
            case .tooLarge(let m): "the board is over a limit: " + m
            }
        }
    }

    /// Reads `bytes` as a Trello export for board `id`; `maxBoardBytes` bounds its snapshot.
    package init(json bytes: [UInt8], id: BoardID, maxBoardBytes: Int) throws(Refusal) {
        guard bytes.count <= Self.maxBytes else {
            throw .tooLarge("the export is \(bytes.count) bytes; at most \(Self.maxBytes) are read")
        }
        let json: JSON
        do {
            json = try JSON.parse(bytes)
        } catch {
            throw .notTrello("not JSON: \(error.reason) at byte \(error.offset)")
        }
        var mapper = TrelloMapper(json: json, id: id)
        try mapper.check()
        let made = try mapper.map()
        let archive: BoardArchive
        do {
            archive = try BoardArchive(
                board: made.board, baseSeq: made.comments.count, ops: [], comments: made.comments)
        } catch {
            throw .tooLarge(error.message)
        }
        let bytes = archive.board.encoded().count
        guard bytes <= maxBoardBytes else {
            throw .tooLarge("the board would take \(bytes) bytes as a snapshot; the server's limit is \(maxBoardBytes)")
        }
        self.archive = archive
        report = mapper.report
    }
}

/// The mapping of one export, step by step (kept apart from the value it makes).
struct TrelloMapper {
    let json: JSON
    let id: BoardID
    private var imported: [String: Int] = [:]
    private var dropped: [String: Int] = [:]

    /// The counts always named in `dropped`, in this order, then any others by name.
    static let droppedKeys = ["attachments", "customFields", "stickers", "votes", "plugins"]

    init(json: JSON, id: BoardID) {
        self.json = json
        self.id = id
    }

    var report: TrelloImport.Report {
        let importedKeys = ["zones", "items", "tags", "checks", "comments", "archived"]
        let others = dropped.keys.filter { !Self.droppedKeys.contains($0) }.sorted()
        return TrelloImport.Report(
            imported: importedKeys.map { ($0, imported[$0] ?? 0) },
            dropped: (Self.droppedKeys + others).map { ($0, dropped[$0] ?? 0) })
    }

    private mutating func drop(_ name: String, _ n: Int = 1) {
        if n > 0 { dropped[name, default: 0] += n }
    }

    /// Throws unless the value has the shape of a Trello board export.
    func check() throws(TrelloImport.Refusal) {
        guard case .object = json else { throw .notTrello("the body must be a JSON object") }
        if json["format"]?.stringValue == BoardArchive.format {
            throw .notTrello("this is a shuffleboard archive; import it with `shuffleboard import`")
        }
        for key in ["lists", "cards"] where json[key]?.arrayValue == nil {
            throw .notTrello("\"\(key)\" must be an array")
        }
        guard json["name"]?.stringValue != nil else { throw .notTrello("\"name\" must be a string") }
        for key in ["labels", "members", "checklists", "actions"] {
            if let value = json[key], value.arrayValue == nil, !value.isNull {
                throw .notTrello("\"\(key)\" must be an array")
            }
        }
        for key in ["lists", "cards", "labels", "members", "checklists", "actions"] {
            for (i, element) in (json[key]?.arrayValue ?? []).enumerated() {
                guard case .object = element else { throw .notTrello("\(key)[\(i)] must be an object") }
            }
        }
    }

    private func array(_ key: String) -> [JSON] { json[key]?.arrayValue ?? [] }

    /// Elements of `key` by their `pos` (stable: equal positions keep the export's order).
    /// (index in the export, element), by `pos`.
    private func byPos(_ values: [JSON]) -> [(offset: Int, element: JSON)] {
        values.enumerated().sorted { a, b in
            let pa = a.element["pos"]?.numberValue ?? 0
            let pb = b.element["pos"]?.numberValue ?? 0
            return pa != pb ? pa < pb : a.offset < b.offset
        }.map { ($0.offset, $0.element) }
    }

    private static func string(_ value: JSON?, _ path: String) throws(TrelloImport.Refusal) -> String {
        guard let s = value?.stringValue else { throw .notTrello("\(path) must be a string") }
        return s
    }

    /// `text` within `limit` (CRLF read as a newline where newlines are allowed), or a 413 naming it.
    private static func text(_ text: String, _ limit: TextLimit, _ what: String) throws(TrelloImport.Refusal)
        -> String
    {
        let text = limit.allowsLineBreaks ? text.replacing("\r\n", with: "\n") : text
        guard limit.allows(text) else {
            // Too long is over a limit (413); empty or with control characters is no Trello text (400).
            let long = text.utf8.count > limit.bytes || text.unicodeScalars.count > limit.scalars
            if long { throw .tooLarge("\(what) must be \(limit.rule)") }
            throw .notTrello("\(what) must be \(limit.rule)")
        }
        return text
    }

    /// The board and its comments (`n1`…, oldest first).
    mutating func map() throws(TrelloImport.Refusal) -> (board: Board, comments: [ItemComment]) {
        let title = try Self.text(try Self.string(json["name"], "\"name\""), BoardLimits.title, "the board's name")
        countBoardDrops()
        let members = try self.members()
        let tags = try self.tags()
        // Lists: open ones become zones; closed ones only archive their cards.
        var zones: [Zone] = []
        var listZone: [String: Int] = [:]
        var closedLists = Set<String>()
        for (i, list) in byPos(array("lists")) {
            let listID = try Self.string(list["id"], "lists[\(i)].id")
            if list["closed"]?.boolValue == true {
                closedLists.insert(listID)
                drop("closedLists")
                continue
            }
            let name = try Self.string(list["name"], "lists[\(i)].name")
            guard zones.count < BoardLimits.zones else {
                throw .tooLarge("a board has at most \(BoardLimits.zones) zones (open lists)")
            }
            listZone[listID] = zones.count
            zones.append(
                Zone(
                    id: ZoneID("tl\(zones.count + 1)")!, items: [],
                    title: name.isEmpty ? nil : try Self.text(name, BoardLimits.zoneTitle, "list \"\(name)\"'s name"),
                    layout: .list))
        }
        if zones.isEmpty { zones.append(Zone(id: ZoneID("tl1")!, items: [], title: "Cards", layout: .list)) }
        let checklists = try self.checklists()
        var items: [Item] = []
        var archived: [ItemID] = []
        var cardItem: [String: ItemID] = [:]
        var checkCount = 0
        let sortedCards = byPos(array("cards"))
        let cards = sortedCards.map(\.element)
        guard cards.count <= BoardLimits.items else {
            throw .tooLarge("a board has at most \(BoardLimits.items) items; this one has \(cards.count) cards")
        }
        // Closed lists' cards go to the archive after the open ones, in list order.
        let listOrder = Dictionary(
            byPos(array("lists")).enumerated().compactMap { i, l in l.element["id"]?.stringValue.map { ($0, i) } },
            uniquingKeysWith: { a, _ in a })
        for (i, card) in sortedCards {
            let path = "cards[\(i)]"
            let cardID = try Self.string(card["id"], "\(path).id")
            let listID = try Self.string(card["idList"], "\(path).idList")
            guard listZone[listID] != nil || closedLists.contains(listID) else {
                throw .notTrello("\(path).idList names no list of the export")
            }
            let itemID = ItemID("tc\(items.count + 1)")!
            cardItem[cardID] = itemID
            var item = Item(
                id: itemID,
                label: try Self.text(try Self.string(card["name"], "\(path).name"), BoardLimits.label, "\(path).name"),
                color: BoardLimits.defaultColor)
            if let desc = card["desc"]?.stringValue, !desc.isEmpty {
                item.description = try Self.text(desc, BoardLimits.description, "the description of \(path)")
            }
            for label in card["idLabels"]?.arrayValue ?? [] {
                guard let tag = label.stringValue.flatMap({ tags.byTrello[$0] }) else {
                    throw .notTrello("\(path).idLabels names no label of the export")
                }
                if !item.tags.contains(tag) { item.tags.append(tag) }
            }
            for member in card["idMembers"]?.arrayValue ?? [] {
                guard let person = member.stringValue.flatMap({ members[$0] }) else {
                    throw .notTrello("\(path).idMembers names no member of the export")
                }
                if !item.assignees.contains(where: { $0.member == person.member }) { item.assignees.append(person) }
            }
            if let due = card["due"], !due.isNull {
                guard let text = due.stringValue, let date = TrelloDate(text) else {
                    throw .notTrello("\(path).due must be a date like 2026-12-05T12:00:00.000Z")
                }
                item.due = date.dueDate
            }
            let own = checklists[cardID] ?? []
            for list in own {
                for entry in list.entries {
                    checkCount += 1
                    let text = own.count > 1 ? "\(list.name): \(entry.text)" : entry.text
                    item.checklist.append(
                        Check(
                            id: CheckID("tk\(checkCount)")!,
                            text: try Self.text(text, BoardLimits.checkText, "a checklist entry of \(path)"),
                            done: entry.done))
                }
            }
            countCardDrops(card)
            if card["closed"]?.boolValue == true || closedLists.contains(listID) {
                archived.append(itemID)
            } else if let z = listZone[listID] {
                zones[z].items.append(itemID)
            }
            items.append(item)
        }
        // Archive order: by list, then card position (cards are already by position).
        let cardList = Dictionary(
            cards.compactMap { c in
                c["id"]?.stringValue.flatMap { id in cardItem[id].map { ($0, c["idList"]?.stringValue ?? "") } }
            }, uniquingKeysWith: { a, _ in a })
        let archivedOrder = archived.enumerated().sorted { a, b in
            let la = listOrder[cardList[a.element] ?? ""] ?? 0
            let lb = listOrder[cardList[b.element] ?? ""] ?? 0
            return la != lb ? la < lb : a.offset < b.offset
        }.map(\.element)
        let unknownChecklists = checklists.keys.filter { cardItem[$0] == nil }
        drop("checklistsOnMissingCards", unknownChecklists.count)
        let comments = try self.comments(cardItem, members: members)
        guard comments.count <= BoardLimits.comments else {
            throw .tooLarge("a board keeps at most \(BoardLimits.comments) comments; this one has \(comments.count)")
        }
        var perItem: [ItemID: Int] = [:]
        for c in comments { perItem[c.item, default: 0] += 1 }
        if perItem.values.contains(where: { $0 > BoardLimits.commentsPerItem }) {
            throw .tooLarge("a card keeps at most \(BoardLimits.commentsPerItem) comments")
        }
        for i in items.indices { items[i].comments = perItem[items[i].id] ?? 0 }
        var board = Board(
            id: id, title: title, columns: 1, zones: zones, items: items, tags: tags.list, archived: archivedOrder)
        if let problem = Board.validate(
            title: board.title, columns: board.columns, zones: board.zones, items: board.items, tags: board.tags,
            archived: board.archived)
        {
            throw .tooLarge(problem)
        }
        for c in comments { board.commentRefs[c.comment.id] = CommentRef(item: c.item, member: c.comment.member) }
        imported["zones"] = zones.count
        imported["items"] = items.count
        imported["tags"] = tags.list.count
        imported["checks"] = checkCount
        imported["comments"] = comments.count
        imported["archived"] = archived.count
        return (board, comments)
    }

    /// Board members by Trello id, as assignees.
    private mutating func members() throws(TrelloImport.Refusal) -> [String: Assignee] {
        var members: [String: Assignee] = [:]
        for (i, m) in array("members").enumerated() {
            let trelloID = try Self.string(m["id"], "members[\(i)].id")
            members[trelloID] = try Self.person(m, "members[\(i)]")
        }
        return members
    }

    /// `trello-USERNAME` and the full name (the username when the full name is not a name).
    static func person(_ m: JSON, _ path: String) throws(TrelloImport.Refusal) -> Assignee {
        let username = try string(m["username"], "\(path).username")
        guard let member = MemberID("trello-" + username) else {
            throw .notTrello("\(path).username must be 1–57 characters of letters, digits, _ and -")
        }
        let full = m["fullName"]?.stringValue ?? ""
        let name = (try? Text.displayName(full).get()) ?? (try? Text.displayName(username).get()) ?? username
        return Assignee(member: member, name: name)
    }

    /// Tags from the labels, by Trello id; an unnamed label is named by its color.
    private func tags() throws(TrelloImport.Refusal) -> (list: [Tag], byTrello: [String: TagID]) {
        var list: [Tag] = []
        var byTrello: [String: TagID] = [:]
        let labels = array("labels")
        guard labels.count <= BoardLimits.tags else {
            throw .tooLarge("a board has at most \(BoardLimits.tags) tags; this one has \(labels.count) labels")
        }
        for (i, label) in labels.enumerated() {
            let trelloID = try Self.string(label["id"], "labels[\(i)].id")
            let color = label["color"]?.stringValue
            var name = label["name"]?.stringValue ?? ""
            if name.isEmpty { name = color.map { $0.replacing("_", with: " ") } ?? "no color" }
            let tag = Tag(
                id: TagID("tt\(list.count + 1)")!,
                name: try Self.text(name, BoardLimits.tagName, "labels[\(i)].name"),
                color: TrelloColor.css(color))
            byTrello[trelloID] = tag.id
            list.append(tag)
        }
        return (list, byTrello)
    }

    /// Each card's checklists by position, with their entries by position.
    private mutating func checklists() throws(TrelloImport.Refusal)
        -> [String: [(name: String, entries: [(text: String, done: Bool)])]]
    {
        var byCard: [String: [(name: String, entries: [(text: String, done: Bool)])]] = [:]
        for (i, list) in byPos(array("checklists")) {
            let card = try Self.string(list["idCard"], "checklists[\(i)].idCard")
            let name = list["name"]?.stringValue ?? "Checklist"
            var entries: [(text: String, done: Bool)] = []
            for (j, entry) in byPos(list["checkItems"]?.arrayValue ?? []) {
                let text = try Self.string(entry["name"], "checklists[\(i)].checkItems[\(j)].name")
                entries.append((text, entry["state"]?.stringValue == "complete"))
                if let due = entry["due"], !due.isNull { drop("checkItemDue") }
                if let member = entry["idMember"], !member.isNull { drop("checkItemMembers") }
            }
            byCard[card, default: []].append((name, entries))
        }
        return byCard
    }

    /// The `commentCard` actions as comments, oldest first, with ids `n1`….
    private mutating func comments(_ cardItem: [String: ItemID], members: [String: Assignee])
        throws(TrelloImport.Refusal) -> [ItemComment]
    {
        var found: [(at: Int64, order: Int, item: ItemID, author: Assignee, text: String, edited: Int64?)] = []
        for (i, action) in array("actions").enumerated() {
            let path = "actions[\(i)]"
            guard action["type"]?.stringValue == "commentCard" else {
                drop("otherActions")
                continue
            }
            let data = action["data"]
            guard let cardID = data?["card"]?["id"]?.stringValue, let item = cardItem[cardID] else {
                drop("commentsOnMissingCards")
                continue
            }
            let text = try Self.text(
                try Self.string(data?["text"], "\(path).data.text"), BoardLimits.commentText, "the text of \(path)")
            guard let dateText = action["date"]?.stringValue, let date = TrelloDate(dateText) else {
                throw .notTrello("\(path).date must be a date like 2026-12-05T12:00:00.000Z")
            }
            let author: Assignee
            if let creator = action["memberCreator"], case .object = creator {
                author = try Self.person(creator, "\(path).memberCreator")
            } else if let known = action["idMemberCreator"]?.stringValue.flatMap({ members[$0] }) {
                author = known
            } else {
                author = Assignee(member: MemberID("trello-unknown")!, name: "Trello user")
            }
            let edited = data?["dateLastEdited"]?.stringValue.flatMap(TrelloDate.init)?.milliseconds
            found.append((date.milliseconds, i, item, author, text, edited))
        }
        // Trello lists actions newest first: ids go oldest first, as the seqs that made them would.
        found.sort { ($0.at, -$0.order) < ($1.at, -$1.order) }
        return found.enumerated().map { n, c in
            ItemComment(
                item: c.item,
                comment: Comment(
                    id: CommentID(seq: n + 1), text: c.text, member: c.author.member, name: c.author.name, at: c.at,
                    edited: c.edited))
        }
    }

    /// Counts what the board itself has that the import does not carry.
    private mutating func countBoardDrops() {
        if let desc = json["desc"]?.stringValue, !desc.isEmpty { drop("boardDescription") }
        drop("plugins", json["pluginData"]?.arrayValue?.count ?? 0)
        drop("plugins", json["boardPlugins"]?.arrayValue?.count ?? 0)
        drop("customFields", json["customFields"]?.arrayValue?.count ?? 0)
        if let prefs = json["prefs"], case .object = prefs { drop("boardPreferences") }
    }

    /// Counts what a card has that the import does not carry.
    private mutating func countCardDrops(_ card: JSON) {
        drop("attachments", card["attachments"]?.arrayValue?.count ?? 0)
        drop("customFields", card["customFieldItems"]?.arrayValue?.count ?? 0)
        drop("stickers", card["stickers"]?.arrayValue?.count ?? 0)
        drop("votes", card["idMembersVoted"]?.arrayValue?.count ?? 0)
        drop("plugins", card["pluginData"]?.arrayValue?.count ?? 0)
        if let start = card["start"], !start.isNull { drop("startDates") }
        if card["dueComplete"]?.boolValue == true { drop("dueComplete") }
        if let cover = card["cover"],
            cover["color"].map({ !$0.isNull }) == true
                || cover["idAttachment"].map({ !$0.isNull }) == true
                || cover["idUploadedBackground"].map({ !$0.isNull }) == true
        {
            drop("covers")
        }
        if let location = card["coordinates"], !location.isNull { drop("locations") }
    }
}
