internal import BoardAuth
package import BoardCore

/// A share link's id (the random id of its token): `Identifier.isValid`'s rule.
package enum LinkKind: IDKind { package static let expected = "a link id of 1–64 characters [A-Za-z0-9_-]" }
/// A share link's id.
package typealias LinkID = WireID<LinkKind>
/// A webhook's id: `Identifier.isValid`'s rule.
package enum HookKind: IDKind { package static let expected = "a webhook id of 1–64 characters [A-Za-z0-9_-]" }
/// A webhook's id.
package typealias HookID = WireID<HookKind>

/// One operation of the HTTP API (docs/openapi.yaml), with its ids checked: what `match` makes
/// of a request's method and path, and all the hub's router (`Hub.route`) dispatches on. Every
/// path and the methods it takes are written once, in `APIPath.route`; HEAD goes wherever GET
/// does. A request that is no route gets a `Refusal` instead, decided in this order: 404 for a
/// path the API does not have or an id in it that cannot be one (400 for a member id, as
/// documented), then 405 with the path's methods. The hub refuses a cross-site write before it
/// asks (OriginPolicy), and checks the token and the board's state after.
package enum APIRoute: Equatable, Sendable {
    /// `GET /healthz`.
    case health
    /// `GET /api/templates`.
    case templates
    /// `GET /api/cluster` (`Hub.clusterRequest` reads the token).
    case cluster
    /// `GET /api/revocations` (`Access.request` reads the token, with access control).
    case revocations
    /// `POST /api/revocations`.
    case revoke
    /// `GET /api/inbox` (`Hub.inboxRequest` reads the token, with access control).
    case inbox
    /// `POST /api/inbox/read`.
    case markRead
    /// `GET /api/me` (`Hub.meRequest` reads the token after its query).
    case me
    /// A route whose request's claims (a trusted proxy's user, or its bearer token) the hub
    /// reads first, and checks against `ClaimsRoute.access`.
    case claims(ClaimsRoute)

    /// Why a request is no route of the API.
    package enum Refusal: Error, Equatable, Sendable {
        /// 404: the API has no such path.
        case noRoute
        /// 404: the board id in the path cannot be one.
        case notABoard
        /// 404: the item id in the path cannot be one.
        case notAnItem
        /// 404: the link id cannot be one, so the board has no such link.
        case noSuchLink(BoardID)
        /// 404: the webhook id cannot be one, so the board has no such webhook.
        case noSuchWebhook(BoardID)
        /// 400: the member id in the path cannot be one (docs/openapi.yaml documents 400 there).
        case notAMember
        /// 405: the path takes only these methods.
        case method(allow: String)

        /// The answer.
        package var response: HTTPResponse {
            switch self {
            case .noRoute: .error(404, "not_found", "no such API route")
            case .notABoard: .error(404, "not_found", "not a board id")
            case .notAnItem: .error(404, "not_found", "not an item id")
            case .noSuchLink(let board): .error(404, "unknown_link", "board \(board) has no such link")
            case .noSuchWebhook(let board): .error(404, "unknown_webhook", "board \(board) has no such webhook")
            case .notAMember: .error(400, "bad_request", "a member id is 1-64 of A-Z a-z 0-9 _ -")
            case .method(let allow): .methodNotAllowed(allow)
            }
        }
    }

    /// The route `method` takes on `path` (URL-decoded, without its query), or why there is none.
    package static func match(
        _ method: HTTPRequest.Method, _ path: String, query: [String: String] = [:]
    ) -> Result<APIRoute, Refusal> {
        switch APIPath.parse(path) {
        case .failure(let refusal): .failure(refusal)
        case .success(let found):
            if let route = found.route(method, query: query) {
                .success(route)
            } else {
                .failure(.method(allow: found.allow))
            }
        }
    }

}

/// A route of `APIRoute.claims`: the hub has the request's claims before it answers.
package enum ClaimsRoute: Equatable, Sendable {
    /// `GET /api/search`.
    case search
    /// `GET /api/boards`.
    case listBoards
    /// `POST /api/boards`.
    case createBoard
    /// `POST /api/boards/import/trello`.
    case importTrello
    /// `GET /api/boards/{id}`, and with `?at=` the board as of that seq.
    case board(BoardID, at: String?)
    /// `DELETE /api/boards/{id}`.
    case deleteBoard(BoardID)
    /// `GET /api/boards/{id}/ops`.
    case ops(BoardID)
    /// `POST /api/boards/{id}/ops`.
    case submitOp(BoardID)
    /// `GET /api/boards/{id}/events`.
    case events(BoardID)
    /// `GET /api/boards/{id}/history`.
    case history(BoardID)
    /// `GET /api/boards/{id}/members`: the people a client offers as assignees.
    case people(BoardID)
    /// `GET /api/boards/{id}/export` and `…/export.csv`.
    case export(BoardID, csv: Bool)
    /// `GET /api/boards/{id}/items/{item}/comments`.
    case comments(BoardID, ItemID)
    /// `GET /api/boards/{id}/links`.
    case links(BoardID)
    /// `POST /api/boards/{id}/links`.
    case addLink(BoardID)
    /// `DELETE /api/boards/{id}/links/{link}`.
    case revokeLink(BoardID, LinkID)
    /// `GET /api/boards/{id}/grants`.
    case grants(BoardID)
    /// `GET /api/boards/{id}/members/{member}`.
    case grant(BoardID, MemberID)
    /// `PUT /api/boards/{id}/members/{member}`.
    case setGrant(BoardID, MemberID)
    /// `DELETE /api/boards/{id}/members/{member}`.
    case removeGrant(BoardID, MemberID)
    /// `GET /api/boards/{id}/webhooks`.
    case webhooks(BoardID)
    /// `POST /api/boards/{id}/webhooks`.
    case addWebhook(BoardID)
    /// `DELETE /api/boards/{id}/webhooks/{hook}`.
    case removeWebhook(BoardID, HookID)
    /// `POST /api/boards/{id}/webhooks/{hook}/enable`.
    case enableWebhook(BoardID, HookID)

    /// The board the route is about, the role the claims must have there and what a 403 says
    /// they do not allow; nil for the routes whose handlers check the claims themselves.
    var access: (board: BoardID, role: Role, what: String)? {
        switch self {
        case .search, .listBoards, .createBoard, .importTrello: nil
        case .deleteBoard(let id): (id, .admin, "admin access to board \(id)")
        case .board(let id, _), .ops(let id), .submitOp(let id), .events(let id), .history(let id), .people(let id),
            .export(let id, _), .comments(let id, _):
            (id, .view, "view access to board \(id)")
        case .links(let id), .addLink(let id), .revokeLink(let id, _): (id, .admin, "managing the links of board \(id)")
        case .grants(let id), .grant(let id, _), .setGrant(let id, _), .removeGrant(let id, _):
            (id, .admin, "managing the members of board \(id)")
        case .webhooks(let id), .addWebhook(let id), .removeWebhook(let id, _), .enableWebhook(let id, _):
            (id, .admin, "managing the webhooks of board \(id)")
        }
    }
}

/// A path of the API with its ids checked: the part of a route that does not depend on the method.
enum APIPath: Equatable {
    case health, templates, cluster, revocations, inbox, inboxRead, search, me, boards, importTrello
    case board(BoardID), ops(BoardID), events(BoardID), history(BoardID), members(BoardID), export(BoardID, csv: Bool)
    case comments(BoardID, ItemID)
    case links(BoardID), link(BoardID, LinkID)
    case grants(BoardID), member(BoardID, MemberID)
    case webhooks(BoardID), webhook(BoardID, HookID), enable(BoardID, HookID)

    /// The path, or 404 (400 for a member id) when it is none of the API's: a board's id is
    /// checked before the rest of its path, the other ids after it.
    static func parse(_ path: String) -> Result<APIPath, APIRoute.Refusal> {
        if path == "/healthz" { return .success(.health) }
        guard path.hasPrefix("/api/") else { return .failure(.noRoute) }
        let segments = path.dropFirst(5).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch segments {
        case ["templates"]: return .success(.templates)
        case ["cluster"]: return .success(.cluster)
        case ["revocations"]: return .success(.revocations)
        case ["inbox"]: return .success(.inbox)
        case ["inbox", "read"]: return .success(.inboxRead)
        case ["search"]: return .success(.search)
        case ["me"]: return .success(.me)
        case ["boards"]: return .success(.boards)
        case ["boards", "import", "trello"]: return .success(.importTrello)
        default: break
        }
        guard segments.count >= 2, segments[0] == "boards" else { return .failure(.noRoute) }
        guard let id = BoardID(segments[1]) else { return .failure(.notABoard) }
        let rest = Array(segments.dropFirst(2))
        switch rest {
        case []: return .success(.board(id))
        case ["ops"]: return .success(.ops(id))
        case ["events"]: return .success(.events(id))
        case ["history"]: return .success(.history(id))
        case ["members"]: return .success(.members(id))
        case ["export"]: return .success(.export(id, csv: false))
        case ["export.csv"]: return .success(.export(id, csv: true))
        case ["links"]: return .success(.links(id))
        case ["grants"]: return .success(.grants(id))
        case ["webhooks"]: return .success(.webhooks(id))
        default: break
        }
        switch (rest.first, rest.count) {
        case ("items", 3) where rest[2] == "comments":
            return ItemID(rest[1]).map { .success(.comments(id, $0)) } ?? .failure(.notAnItem)
        case ("links", 2): return LinkID(rest[1]).map { .success(.link(id, $0)) } ?? .failure(.noSuchLink(id))
        case ("members", 2): return MemberID(rest[1]).map { .success(.member(id, $0)) } ?? .failure(.notAMember)
        case ("webhooks", 2): return HookID(rest[1]).map { .success(.webhook(id, $0)) } ?? .failure(.noSuchWebhook(id))
        case ("webhooks", 3) where rest[2] == "enable":
            return HookID(rest[1]).map { .success(.enable(id, $0)) } ?? .failure(.noSuchWebhook(id))
        default: return .failure(.noRoute)
        }
    }

    /// The route `method` takes on this path, or nil (405): each path's methods, written once.
    func route(_ method: HTTPRequest.Method, query: [String: String]) -> APIRoute? {
        switch (self, method == .head ? .get : method) {
        case (.health, .get): .health
        case (.templates, .get): .templates
        case (.revocations, .get): .revocations
        case (.revocations, .post): .revoke
        case (.inbox, .get): .inbox
        case (.inboxRead, .post): .markRead
        case (.me, .get): .me
        case (.cluster, .get): .cluster
        case (.search, .get): .claims(.search)
        case (.boards, .get): .claims(.listBoards)
        case (.boards, .post): .claims(.createBoard)
        case (.importTrello, .post): .claims(.importTrello)
        case (.board(let id), .get): .claims(.board(id, at: query["at"]))
        case (.board(let id), .delete): .claims(.deleteBoard(id))
        case (.ops(let id), .get): .claims(.ops(id))
        case (.ops(let id), .post): .claims(.submitOp(id))
        case (.events(let id), .get): .claims(.events(id))
        case (.history(let id), .get): .claims(.history(id))
        case (.members(let id), .get): .claims(.people(id))
        case (.export(let id, let csv), .get): .claims(.export(id, csv: csv))
        case (.comments(let id, let item), .get): .claims(.comments(id, item))
        case (.links(let id), .get): .claims(.links(id))
        case (.links(let id), .post): .claims(.addLink(id))
        case (.link(let id, let link), .delete): .claims(.revokeLink(id, link))
        case (.grants(let id), .get): .claims(.grants(id))
        case (.member(let id, let member), .get): .claims(.grant(id, member))
        case (.member(let id, let member), .put): .claims(.setGrant(id, member))
        case (.member(let id, let member), .delete): .claims(.removeGrant(id, member))
        case (.webhooks(let id), .get): .claims(.webhooks(id))
        case (.webhooks(let id), .post): .claims(.addWebhook(id))
        case (.webhook(let id, let hook), .delete): .claims(.removeWebhook(id, hook))
        case (.enable(let id, let hook), .post): .claims(.enableWebhook(id, hook))
        default: nil
        }
    }

    /// The methods the path takes, for a 405's `allow` (HEAD goes without saying, with GET).
    var allow: String {
        let methods: [HTTPRequest.Method] = [.get, .post, .put, .patch, .delete]
        return methods.filter { route($0, query: [:]) != nil }.map(\.rawValue).joined(separator: ", ")
    }
}

/// The methods each path of the server takes, for a 405's `allow` header when the request's
/// method is one the server never reads: lws 4.1.6 does not parse TRACE, PROPFIND or any other
/// method it does not know, and turns CONNECT into a raw socket (BoardServer's
/// `UnknownMethods`). The API's paths are `APIPath`'s, so these are the lists its 405s say.
package enum AllowedMethods {
    /// What `path` (without its query) allows, or nil when it is no route of the API (a 404).
    package static func of(_ path: String) -> String? {
        switch path {
        case "/readyz", "/metrics": return "GET"  // The transport's own (HTTP/Operations.swift).
        default: break
        }
        guard Hub.routes(path) else { return "GET" }  // the web client's files
        return try? APIPath.parse(path).get().allow
    }
}
