// The JSON form of comments and their ops (docs/protocol.md, "Comments"): a request carries
// `text` and `mentions`; a broadcast, an archive and a stored row carry what the server chose
// (the comment's id, author, name and time; an edit's time).

extension Comment {
    /// Writes `{id, text, member, name, at, mentions}` (and `edited` once edited).
    package func encode(into w: inout JSONWriter, key: String? = nil) {
        w.beginObject(key)
        w.write("id", id.rawValue)
        w.write("text", text)
        w.write("member", member.rawValue)
        w.write("name", name)
        w.write("at", Int(at))
        Comment.writeMentions(mentions, into: &w)
        if let edited { w.write("edited", Int(edited)) }
        w.endObject()
    }

    /// Reads a comment as `encode` writes it (texts as they were accepted: `allows`).
    package init(json: JSON, path: String) throws(JSON.DecodingError) {
        guard case .object = json else { throw JSON.DecodingError("\(path) must be an object") }
        self.init(
            id: try json.read("id", named: "\(path).id", mustBe: "a comment id") {
                $0.stringValue.flatMap(CommentID.init)
            },
            text: try Op.text("text", in: json, named: "\(path).text", limit: BoardLimits.commentText, input: false),
            member: try json.id("member", named: "\(path).member"),
            name: try json.read("name", named: "\(path).name", mustBe: "a name of 1–64 characters") {
                $0.stringValue.flatMap { Assignee.isValidName($0) ? $0 : nil }
            },
            at: Int64(try json.int("at", named: "\(path).at")),
            mentions: try Comment.readMentions(from: json),
            edited: json.hasValue("edited") ? Int64(try json.int("edited", named: "\(path).edited")) : nil)
    }

    package static func writeMentions(_ mentions: [Mention], into w: inout JSONWriter) {
        w.beginArray("mentions")
        for mention in mentions { mention.encode(into: &w) }
        w.endArray()
    }

    /// The optional `mentions` of a comment or an edit: at most `BoardLimits.mentions`, each member once.
    package static func readMentions(from json: JSON) throws(JSON.DecodingError) -> [Mention] {
        guard json.hasValue("mentions") else { return [] }
        let values = try json.array("mentions")
        guard values.count <= BoardLimits.mentions else {
            throw JSON.DecodingError("\"mentions\" must have at most \(BoardLimits.mentions) entries")
        }
        var mentions: [Mention] = []
        for (i, value) in values.enumerated() { mentions.append(try Mention(json: value, path: "\"mentions[\(i)]\"")) }
        guard Set(mentions.map(\.member)).count == mentions.count else {
            throw JSON.DecodingError("\"mentions\" may name a member only once")
        }
        return mentions
    }
}

extension Op {
    /// Writes the members of a comment, editComment or removeComment; with `assigned` false, as
    /// a client sends them (no id, author or times).
    func writeCommentFields(into w: inout JSONWriter, assigned: Bool) {
        switch self {
        case .comment(let item, let comment):
            w.write("item", item.rawValue)
            if assigned {
                comment.encode(into: &w, key: "comment")
            } else {
                w.write("text", comment.text)
                Comment.writeMentions(comment.mentions, into: &w)
            }
        case .editComment(let item, let comment, let text, let mentions, let edited):
            w.write("item", item.rawValue)
            w.write("comment", comment.rawValue)
            w.write("text", text)
            Comment.writeMentions(mentions, into: &w)
            if assigned { w.write("edited", Int(edited)) }
        case .removeComment(let item, let comment):
            w.write("item", item.rawValue)
            w.write("comment", comment.rawValue)
        default:
            break
        }
    }

    /// Reads a comment op of kind `kind` (comment, editComment, removeComment).
    init(commentType kind: Kind, fields: JSON, assigned: Bool) throws(JSON.DecodingError) {
        let item: ItemID = try fields.id("item")
        switch kind {
        case .comment:
            if assigned {
                guard let object = fields["comment"] else { throw JSON.DecodingError("\"comment\" is required") }
                self = .comment(item: item, comment: try Comment(json: object, path: "\"comment\""))
            } else {
                let text = try Self.text("text", in: fields, limit: BoardLimits.commentText, input: true)
                let mentions = try Comment.readMentions(from: fields)
                self = .comment(
                    item: item,
                    comment: Comment(
                        id: .unassigned, text: text, member: MemberID("unassigned")!, name: "unassigned", at: 0,
                        mentions: mentions))
            }
        case .editComment:
            let comment: CommentID = try fields.id("comment")
            let text = try Self.text("text", in: fields, limit: BoardLimits.commentText, input: !assigned)
            let mentions = try Comment.readMentions(from: fields)
            let edited = assigned ? Int64(try fields.int("edited")) : 0
            self = .editComment(item: item, comment: comment, text: text, mentions: mentions, edited: edited)
        default:
            self = .removeComment(item: item, comment: try fields.id("comment"))
        }
    }
}
