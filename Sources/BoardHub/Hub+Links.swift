internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// Share links made in the app. With `Config.auth` set, an admin of a board makes a link with
/// `POST /api/boards/{id}/links {"role":"view"|"edit","ttl":"7d"}`: a token for that board and
/// role (its random id names the link), stored by its ids only (ShareLink.swift), answered once
/// with `{"id","role","exp","url","token"}`, where `url` is `/b/ID#token=…` (the token rides in
/// the fragment, which no browser sends to a server). `GET …/links` lists the live ones without
/// their tokens; `DELETE …/links/{linkId}` removes one and puts its token on the revocation list
/// in the same store transaction, so its sessions close here at once and on every other node at
/// its next reload (Hub+Revocations.swift).
extension Hub {
    /// The most live links a board has at once (a `POST` past it gets 507).
    static let maxLinksPerBoard = 100
    /// The shortest and longest life a link may be given, in seconds.
    static let linkLife: ClosedRange<Int64> = 60...(90 * 86_400)

    /// `GET /api/boards/{id}/links`: the board's live links, without their tokens.
    func listLinks(_ id: BoardID, exchange: ExchangeID) {
        guard authority(for: "every page", exchange: exchange) != nil else { return }
        // A board `hello` made is stored with its first op (or its first link): none yet.
        if let host = boards[id], host.unsaved, !isDeleting(id) { return linksListed(id, [], exchange: exchange) }
        let reply = Self.answering(exchange) { $0.linksListed(id, $1, exchange: exchange) }
        read(.links(id, now: wall.milliseconds / 1000, reply), for: exchange)
    }

    /// `POST /api/boards/{id}/links {"role","ttl"}`: a link made, answered once durable.
    func addLink(_ id: BoardID, _ request: HTTPRequest, exchange: ExchangeID) {
        guard let auth = authority(for: "every page", exchange: exchange) else { return }
        let asked: (role: Role, ttl: Int64)
        switch Self.linkRequest(request.body) {
        case .success(let parsed): asked = parsed
        case .failure(let problem): return emit(.respond(exchange, .error(400, "bad_request", problem.message)))
        }
        let nowSeconds = wall.milliseconds / 1000
        let claims = Claims(board: id, role: asked.role, expires: nowSeconds + asked.ttl, id: TokenAuthority.newID())
        let token = auth.mint(claims)
        let link = ShareLink(
            id: claims.id ?? "", board: id, role: asked.role.rawValue, created: nowSeconds,
            expires: claims.expires, tokenID: TokenAuthority.revocationID(of: token))
        log(
            .info,
            "\(request.peer) makes \(asked.role == .edit ? "an" : "a") \(asked.role.rawValue) link \(link.id) for board \(id)"
        )
        let reply = Self.answering(exchange) { $0.linkAdded(link, token: token, $1, exchange: exchange) }
        let read = StoreRead.addLink(link, maximum: Self.maxLinksPerBoard, now: nowSeconds, reply)
        if let host = boards[id], host.unsaved, !isDeleting(id) {
            // The store has only boards it was given: this one is stored now, and the link
            // added once that is durable (a link is made only for a stored board).
            let ticket = storeNow(host)
            return boards.pending.after(ticket, read: read, for: exchange)
        }
        self.read(read, for: exchange)
    }

    /// `DELETE /api/boards/{id}/links/{link}`: the link removed and its token revoked.
    func revokeLink(_ id: BoardID, _ link: LinkID, exchange: ExchangeID) {
        guard authority(for: "every page", exchange: exchange) != nil else { return }
        guard !access.isFull else {
            return refuseFull(
                .revocations, "too_many_revocations", "\(RevocationList.maximum) tokens are revoked already",
                exchange: exchange)
        }
        let reply = Self.answering(exchange) { $0.linkRevoked($1, exchange: exchange) }
        read(.revokeLink(link.rawValue, of: id, now: wall.milliseconds / 1000, reply), for: exchange)
    }

    /// `{"role":"view"|"edit","ttl":"…"}`, strictly: no other member, `ttl` a positive whole
    /// number of `s`, `m`, `h` or `d` within `linkLife` (`7d` when left out).
    static func linkRequest(_ body: [UInt8]) -> Result<(role: Role, ttl: Int64), LinkProblem> {
        guard case .object(let fields)? = try? JSON.parse(body) else {
            return .failure(LinkProblem(#"send a JSON object: {"role": "view" or "edit", "ttl": "7d"}"#))
        }
        guard fields.keys.allSatisfy({ $0 == "role" || $0 == "ttl" }) else {
            return .failure(LinkProblem("a link request has only role and ttl"))
        }
        guard let text = fields["role"]?.stringValue, let role = Role(rawValue: text), role != .admin else {
            return .failure(LinkProblem(#"role must be "view" or "edit""#))
        }
        var ttl: Int64 = 7 * 86_400
        if let value = fields["ttl"] {
            guard let text = value.stringValue, let seconds = linkTTL(text), linkLife.contains(seconds) else {
                return .failure(
                    LinkProblem(
                        "ttl must be a duration such as 30m, 12h or 7d, from 1m to \(linkLife.upperBound / 86_400)d"))
            }
            ttl = seconds
        }
        return .success((role, ttl))
    }

    /// `text` in seconds: 1–7 digits without a sign or leading zero, then `s`, `m`, `h` or `d`.
    static func linkTTL(_ text: String) -> Int64? {
        let digits = text.utf8.dropLast()
        guard let unit = text.utf8.last, (1...7).contains(digits.count), digits.first != UInt8(ascii: "0"),
            digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let n = Int64(String(decoding: digits, as: UTF8.self))
        else { return nil }
        switch unit {
        case UInt8(ascii: "s"): return n
        case UInt8(ascii: "m"): return n * 60
        case UInt8(ascii: "h"): return n * 3600
        case UInt8(ascii: "d"): return n * 86_400
        default: return nil
        }
    }

    /// `POST …/links`: the store added the link (answered with its token, never stored), or did not.
    private func linkAdded(_ link: ShareLink, token: String, _ added: LinkAddition, exchange: ExchangeID) {
        switch added {
        case .added:
            let made = HTTPResponse.object(201) { w in
                Self.write(link, into: &w)
                w.write("url", "/b/\(link.board.rawValue)#token=\(token)")
                w.write("token", token)
            }
            emit(.respond(exchange, made))
        case .full:
            refuseFull(
                .shareLinks, "too_many_links",
                "board \(link.board) has \(Self.maxLinksPerBoard) live links; revoke one or let one expire",
                exchange: exchange)
        case .unknownBoard:
            // The token minted for it is forgotten: it was never answered, and names no link.
            emit(.respond(exchange, Self.unknownBoard(link.board)))
        }
    }

    /// `GET …/links`: the board's live links, or nil when there is no such board.
    private func linksListed(_ board: BoardID, _ links: [ShareLink]?, exchange: ExchangeID) {
        guard let links else { return emit(.respond(exchange, Self.unknownBoard(board))) }
        emit(.respond(exchange, .list("links", links) { w, link in Self.write(link, into: &w) }))
    }

    /// `DELETE …/links/{linkId}`: the link removed and its token revoked, or nil when there was none.
    private func linkRevoked(_ link: ShareLink?, exchange: ExchangeID) {
        guard let link else {
            return emit(.respond(exchange, .error(404, "unknown_link", "the board has no such live link")))
        }
        log(.info, "link \(link.id) of board \(link.board) revoked")
        access.made(link.revocation)
        closeRevokedSessions()
        emit(
            .respond(
                exchange,
                .object { w in
                    Self.write(link, into: &w)
                    w.write("revoked", true)
                }))
    }

    /// A link's `"id","role","created","exp"`.
    private static func write(_ link: ShareLink, into w: inout JSONWriter) {
        w.write("id", link.id)
        w.write("role", link.role)
        w.write("created", Int(link.created))
        w.write("exp", Int(link.expires))
    }
}

/// Why a link request is refused (400).
struct LinkProblem: Error {
    var message: String
    init(_ message: String) { self.message = message }
}
