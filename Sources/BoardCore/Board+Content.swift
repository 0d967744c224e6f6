// The rules of a card's content: applying the ops that change one item's tags, assignees or
// checklist, and the bounds a whole board keeps (`validateContent`).

extension Item {
    /// Applies an op about this item alone: a toggle, an edit, or a change of its tags,
    /// assignees or checklist (others are ignored).
    mutating func apply(_ op: Op) {
        switch op {
        case .toggle(_, let on):
            self.on = on
        case .edit(_, let changes):
            if let label = changes.label { self.label = label }
            if let color = changes.color { self.color = color }
            if let detail = changes.detail { self.detail = detail }
            if let description = changes.description { self.description = description }
            if let due = changes.due { self.due = due }
        case .tag(_, let add, let remove):
            tags.removeAll { remove.contains($0) }
            for tag in add where !tags.contains(tag) { tags.append(tag) }
        case .assign(_, let add, let remove):
            assignees.removeAll { remove.contains($0.member) }
            for person in add where !assignees.contains(where: { $0.member == person.member }) {
                assignees.append(person)
            }
        case .addCheck(_, let before, let check):
            if let before, let at = checklist.firstIndex(where: { $0.id == before }) {
                checklist.insert(check, at: at)
            } else {
                checklist.append(check)
            }
        case .editCheck(_, let check, let changes):
            guard let c = checklist.firstIndex(where: { $0.id == check }) else { return }
            if let text = changes.text { checklist[c].text = text }
            if let done = changes.done { checklist[c].done = done }
        case .removeCheck(_, let check):
            checklist.removeAll { $0.id == check }
        default:
            break
        }
    }

    /// True when the item has a checklist entry with this id.
    package func hasCheck(_ id: CheckID) -> Bool { checklist.contains { $0.id == id } }
}

extension Board {
    /// The tag with this id.
    package func tag(_ id: TagID) -> Tag? { tags.first { $0.id == id } }

    /// True when some item has a checklist entry with this id.
    package func hasCheck(_ id: CheckID) -> Bool { items.contains { $0.hasCheck(id) } }

    /// Problems with the tags and card contents of a board, or nil: texts, colors and dates
    /// within their bounds, counts within `BoardLimits`, every tag an item carries defined, tag
    /// and check ids unique on the board, each member assigned once per item.
    static func validateContent(items: [Item], tags: [Tag]) -> String? {
        if tags.count > BoardLimits.tags { return "a board has at most \(BoardLimits.tags) tags" }
        var tagIDs = Set<TagID>()
        for tag in tags {
            if !tagIDs.insert(tag.id).inserted { return "duplicate tag id \(tag.id)" }
            if !BoardLimits.tagName.allows(tag.name) {
                return "name of tag \(tag.id) must be \(BoardLimits.tagName.rule)"
            }
            if !isValidColor(tag.color) { return "color of tag \(tag.id) is not a CSS color" }
        }
        var checkIDs = Set<CheckID>()
        for item in items {
            if let description = item.description, !BoardLimits.description.allows(description) {
                return "description of \(item.id) must be \(BoardLimits.description.rule)"
            }
            if let due = item.due, !DueDate.isValid(due) {
                return "due of \(item.id) must be a date YYYY-MM-DD or YYYY-MM-DDTHH:MMZ"
            }
            if item.tags.count > BoardLimits.tagsPerItem {
                return "\(item.id) has more than \(BoardLimits.tagsPerItem) tags"
            }
            if Set(item.tags).count != item.tags.count { return "\(item.id) carries a tag twice" }
            for tag in item.tags where !tagIDs.contains(tag) { return "\(item.id) carries unknown tag \(tag)" }
            if item.assignees.count > BoardLimits.assigneesPerItem {
                return "\(item.id) has more than \(BoardLimits.assigneesPerItem) assignees"
            }
            if Set(item.assignees.map(\.member)).count != item.assignees.count {
                return "\(item.id) has a member assigned twice"
            }
            for person in item.assignees where !Assignee.isValidName(person.name) {
                return
                    "an assignee name of \(item.id) must be 1–64 characters (at most 256 bytes, no control characters)"
            }
            if item.checklist.count > BoardLimits.checksPerItem {
                return "\(item.id) has more than \(BoardLimits.checksPerItem) checklist entries"
            }
            for check in item.checklist {
                if !checkIDs.insert(check.id).inserted { return "duplicate check id \(check.id)" }
                if !BoardLimits.checkText.allows(check.text) {
                    return "text of check \(check.id) must be \(BoardLimits.checkText.rule)"
                }
            }
        }
        return nil
    }

    /// Why an op about tags, assignees or checklists cannot apply, after its ids were found.
    func contentProblem(applying op: Op) -> OpProblem? {
        switch op {
        case .tag(let id, let add, let remove):
            guard let item = item(id) else { return nil }
            let after = item.tags.filter { !remove.contains($0) }
            if Set(after + add).count > BoardLimits.tagsPerItem { return .boardFull }
        case .assign(let id, let add, let remove):
            guard let item = item(id) else { return nil }
            let after = item.assignees.map(\.member).filter { !remove.contains($0) }
            if Set(after + add.map(\.member)).count > BoardLimits.assigneesPerItem { return .boardFull }
        case .addTag(let tag, let tagged):
            if self.tag(tag.id) != nil { return .duplicateTag(tag.id) }
            if tags.count >= BoardLimits.tags { return .boardFull }
            for id in tagged where (item(id)?.tags.count ?? 0) >= BoardLimits.tagsPerItem { return .boardFull }
        case .add(_, _, let item):
            // An add that brings a card back with its content: the counts of one card, and (an
            // add already committed, read from a store) check ids unique on the board.
            if item.tags.count > BoardLimits.tagsPerItem || item.assignees.count > BoardLimits.assigneesPerItem
                || item.checklist.count > BoardLimits.checksPerItem
            {
                return .boardFull
            }
            if let check = item.checklist.first(where: { $0.id != .unassigned && hasCheck($0.id) }) {
                return .duplicateCheck(check.id)
            }
        case .addCheck(let id, _, let check):
            if hasCheck(check.id) { return .duplicateCheck(check.id) }
            if let item = item(id), item.checklist.count >= BoardLimits.checksPerItem { return .boardFull }
        default:
            break
        }
        return nil
    }

    /// The tags an op names that must be on the board.
    func unknownTag(in op: Op) -> TagID? {
        switch op {
        case .tag(_, let add, let remove): (add + remove).first { tag($0) == nil }
        case .add(_, _, let item): item.tags.first { tag($0) == nil }
        case .editTag(let id, _), .removeTag(let id): tag(id) == nil ? id : nil
        default: nil
        }
    }

    /// The checklist entry an op names that must be on its item.
    func unknownCheck(in op: Op) -> CheckID? {
        switch op {
        case .addCheck(let id, let before?, _): item(id)?.hasCheck(before) == false ? before : nil
        case .editCheck(let id, let check, _), .removeCheck(let id, let check):
            item(id)?.hasCheck(check) == false ? check : nil
        default: nil
        }
    }
}

extension Assignee {
    /// Whether `name` is a display name as `Text.displayName` leaves it.
    package static func isValidName(_ name: String) -> Bool {
        (try? Text.displayName(name).get()) == name
    }
}
