// libFuzzer target: `ClientMessage.parse` on arbitrary bytes, as the server runs it on every
// complete client frame.
//
// Checks: no crash (AddressSanitizer); every accepted message keeps the protocol's text rules
// (names are already display names: no control or invisible characters, 1–64 scalars, at most
// 256 bytes; op ids valid; seqs not negative); every refusal, sent back as an `error`, is valid
// JSON of bounded size, whatever the frame held.

import BoardCore

/// The most bytes an `error` answer may have: what the server says back about a bad frame must
/// not grow with the frame (it also goes into the log).
let maximumErrorBytes = 2560

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : size)
    switch ClientMessage.parse(bytes) {
    case .success(let message):
        trace("accepted: \(message)")
        check(message)
    case .failure(let error):
        trace("refused: \(error.code.rawValue): \(error.message)")
        let encoded = ServerMessage.error(error).encoded()
        require(encoded.count <= maximumErrorBytes, "an error answer of \(encoded.count) bytes: \(error)")
        do {
            _ = try JSON.parse(encoded)
        } catch {
            violated("an error answer that is not JSON: \(String(decoding: encoded, as: UTF8.self))")
        }
    }
    return 0
}

private func check(_ message: ClientMessage) {
    switch message {
    case .hello(_, let name, let since, _, _):
        require(Text.displayName(name) == .success(name), "a name that is not a display name: \(name.debugDescription)")
        require(!name.unicodeScalars.contains(where: Text.isControl), "a control character in a name")
        require(!name.unicodeScalars.contains(where: Text.isInvisible), "an invisible character in a name")
        require((1...Text.maximumNameScalars).contains(name.unicodeScalars.count), "a name of the wrong length")
        require(name.utf8.count <= Text.maximumNameBytes, "a name of \(name.utf8.count) bytes")
        require(since.map { $0 >= 0 } ?? true, "a negative since")
    case .op(let request):
        check(request)
    case .drop(_, let action?):
        check(action)
    case .auth(let token):
        require(token.utf8.count <= 2048, "a token of \(token.utf8.count) bytes")
    case .dragStart, .hover, .drop, .ping:
        break
    }
}

private func check(_ request: OpRequest) {
    require(Text.isValidOpID(request.opID.rawValue), "an invalid op id: \(request.opID.rawValue.debugDescription)")
    require(request.opID.rawValue.utf8.count <= Text.maximumOpIDBytes, "an op id over the byte bound")
    require(request.base >= 0, "a negative base")
    // Every text an editing op carries is within its bound, scalars and bytes, holds no control
    // character, and shows something (unless empty where that is allowed).
    func text(_ s: String, _ limit: TextLimit, _ what: String) {
        require(
            limit.accepts(s),
            "\(what) over its bound, with a control character or nothing visible: \(s.debugDescription)")
    }
    switch request.op {
    case .add(_, _, let item):
        require(item.id == .unassigned && !item.on, "a request that chose its own item id or paint")
        text(item.label, BoardLimits.label, "a label")
        item.detail.map { text($0, BoardLimits.detail, "a detail") }
        require(Board.isValidColor(item.color), "a bad color")
    case .edit(_, let changes):
        require(!changes.isEmpty, "an empty edit")
        changes.label.map { text($0, BoardLimits.label, "a label") }
        changes.color.map { require(Board.isValidColor($0), "a bad color") }
        changes.detail?.map { text($0, BoardLimits.detail, "a detail") }
        changes.description?.map { text($0, BoardLimits.description, "a description") }
        changes.due?.map { require(DueDate.isValid($0), "a due date that is not a day") }
    case .tag(_, let add, let remove):
        require(!(add.isEmpty && remove.isEmpty) && Set(add + remove).count == add.count + remove.count, "a bad tag op")
    case .assign(_, let add, let remove):
        require(!(add.isEmpty && remove.isEmpty), "an empty assign")
        for person in add { require(Assignee.isValidName(person.name), "an assignee's bad name") }
    case .addTag(let tag, let items):
        require(
            tag.id == .unassigned && Board.isValidColor(tag.color), "a request that chose its tag id, or a bad color")
        text(tag.name, BoardLimits.tagName, "a tag name")
        require(Set(items).count == items.count && items.count <= BoardLimits.items, "an item named twice, or too many")
    case .editTag(_, let changes):
        require(!changes.isEmpty, "an empty tag edit")
        changes.name.map { text($0, BoardLimits.tagName, "a tag name") }
    case .addCheck(_, _, let check):
        require(check.id == .unassigned && !check.done, "a request that chose its check id")
        text(check.text, BoardLimits.checkText, "a check text")
    case .editCheck(_, _, let changes):
        require(!changes.isEmpty, "an empty check edit")
        changes.text.map { text($0, BoardLimits.checkText, "a check text") }
    case .removeTag, .removeCheck, .removeComment:
        break
    case .comment(_, let comment):
        require(
            comment.id == .unassigned && comment.mentions.count <= BoardLimits.mentions,
            "a chosen id, or too many mentions")
        text(comment.text, BoardLimits.commentText, "a comment text")
    case .editComment(_, _, let words, let mentions, _):
        require(mentions.count <= BoardLimits.mentions, "too many mentions")
        text(words, BoardLimits.commentText, "a comment text")
    case .moveMany(let items, _, _), .archive(let items), .unarchive(let items, _, _):
        require((1...Op.maximumBulkItems).contains(items.count) && Set(items).count == items.count, "a bad item list")
    case .addZone(_, let zone):
        require(zone.id == .unassigned && zone.items.isEmpty, "a request that chose its own zone id or items")
        text(zone.title ?? "", BoardLimits.zoneTitle, "a zone title")
        require(zone.columns == nil || zone.layout == .grid, "columns on a zone that is not a grid")
    case .editZone(_, let changes):
        require(!changes.isEmpty, "an empty zone edit")
        changes.title.map { text($0, BoardLimits.zoneTitle, "a zone title") }
        require(changes.columns.map { (1...BoardLimits.columns).contains($0) } ?? true, "columns out of range")
    case .retitle(let title):
        text(title, BoardLimits.title, "a title")
    case .restore(_, let board):
        require(board == nil, "a restore request that carried its own board")
    case .swap, .move, .toggle, .remove, .removeZone:
        break
    }
}
