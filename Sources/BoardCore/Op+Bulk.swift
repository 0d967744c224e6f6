// The ops on many cards at once (issue 36): `moveMany`, `archive` and `unarchive`. Each is one
// numbered op, all or nothing: its rules look at every item it names, and it applies whole.

extension Op {
    /// The most items one `moveMany`, `archive` or `unarchive` names.
    package static let maximumBulkItems = 200

    /// Writes the members of a moveMany, archive or unarchive (the same as a client sends them).
    func writeBulkFields(into w: inout JSONWriter) {
        switch self {
        case .moveMany(let items, let zone, let before), .unarchive(let items, let zone, let before):
            Self.writeItems(items, into: &w)
            w.write("zone", zone.rawValue)
            w.write("before", before?.rawValue)
        case .archive(let items):
            Self.writeItems(items, into: &w)
        default:
            break
        }
    }

    private static func writeItems(_ items: [ItemID], into w: inout JSONWriter) {
        w.beginArray("items")
        for item in items { w.write(nil, item.rawValue) }
        w.endArray()
    }

    /// Reads a moveMany, archive or unarchive (`kind`): `items` (1–200 distinct item
    /// ids), and for moveMany and unarchive `zone` and `before` (required: an item id, or null).
    init(bulkType kind: Kind, fields: JSON) throws(JSON.DecodingError) {
        let values = try fields.array("items")
        guard (1...Self.maximumBulkItems).contains(values.count) else {
            throw JSON.DecodingError("\"items\" must name 1–\(Self.maximumBulkItems) items")
        }
        var items: [ItemID] = []
        items.reserveCapacity(values.count)
        for (i, value) in values.enumerated() { items.append(try value.id(named: "\"items[\(i)]\"")) }
        guard Set(items).count == items.count else { throw JSON.DecodingError("\"items\" may name an item only once") }
        if kind == .archive {
            self = .archive(items: items)
            return
        }
        let zone: ZoneID = try fields.id("zone")
        guard fields["before"] != nil else {
            throw JSON.DecodingError("\"before\" is required (an item id, or null to append)")
        }
        let before: ItemID? = try fields.hasValue("before") ? fields.id("before") : nil
        if kind == .moveMany {
            self = .moveMany(items: items, zone: zone, before: before)
        } else {
            self = .unarchive(items: items, zone: zone, before: before)
        }
    }
}

extension Board {
    /// Why a moveMany, archive or unarchive cannot apply, once every id it names is known:
    /// - moveMany: an item is archived (`archived`); `before` is one of the items, or not in
    ///   `zone` (`invalid`);
    /// - archive: an item is archived already (`archived`);
    /// - unarchive: an item is not archived, or `before` is not in `zone` (`invalid`).
    func bulkProblem(applying op: Op) -> OpProblem? {
        switch op {
        case .moveMany(let items, let zone, let before):
            if let archived = items.first(where: isArchived) { return .archivedItem(archived) }
            if let before {
                if items.contains(before) { return .beforeItself(before) }
                if self.zone(zone)?.items.contains(before) != true {
                    return .anchorOutsideZone(anchor: before, zone: zone)
                }
            }
        case .archive(let items):
            if let archived = items.first(where: isArchived) { return .archivedItem(archived) }
        case .unarchive(let items, let zone, let before):
            if let placed = items.first(where: { !isArchived($0) }) { return .notArchived(placed) }
            if let before, self.zone(zone)?.items.contains(before) != true {
                return .anchorOutsideZone(anchor: before, zone: zone)
            }
        default:
            break
        }
        return nil
    }

    /// Applies a moveMany, archive or unarchive that `problem(applying:)` finds nothing wrong with.
    mutating func applyBulk(_ op: Op) {
        switch op {
        case .moveMany(let items, let zone, let before):
            guard hasZone(zone), items.allSatisfy({ item($0) != nil && !isArchived($0) }) else { return }
            takeOut(items)
            put(items, zone: zone, before: before)
        case .archive(let items):
            let known = items.filter { item($0) != nil && !isArchived($0) }
            takeOut(known)
            addToArchive(known)
        case .unarchive(let items, let zone, let before):
            guard hasZone(zone) else { return }
            let known = items.filter(isArchived)
            takeOut(known, fromArchive: true)
            put(known, zone: zone, before: before)
        default:
            break
        }
    }
}
