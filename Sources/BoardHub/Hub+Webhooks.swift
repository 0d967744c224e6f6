internal import BoardAuth
internal import BoardCore
internal import BoardHooks
internal import BoardStore

/// Webhooks of a board: `POST /api/boards/{id}/webhooks {"url","events","secret"?}` makes one
/// (201 with its secret, generated when none is given, shown only then), `GET …/webhooks` lists
/// them with their cursor and status (never a secret), `DELETE …/webhooks/{hookId}` removes one,
/// `POST …/webhooks/{hookId}/enable` enables one that failing disabled. Each needs `admin` on the
/// board (anyone on a server without access control). The store does the writes on the reader
/// thread; the delivery thread hears of them from the transport (WebhookDelivery).
extension Hub {
    /// The most webhooks one board has (a `POST` past it gets 507).
    static let maxWebhooksPerBoard = 10
    /// The bytes a given secret may have.
    static let webhookSecretBytes = 16...256

    /// `GET /api/boards/{id}/webhooks`: the board's webhooks, never their secrets.
    func listWebhooks(_ id: BoardID, exchange: ExchangeID) {
        read(.webhooks(id, Self.answering(exchange) { $0.webhooksListed($1, exchange: exchange) }), for: exchange)
    }

    /// `POST /api/boards/{id}/webhooks {"url","events","secret"?}`: a webhook made.
    func addWebhook(_ id: BoardID, _ request: HTTPRequest, exchange: ExchangeID) {
        let asked: (url: String, events: [String], secret: String?)
        switch Self.webhookRequest(request.body, allowPrivate: config.webhookAllowPrivate) {
        case .success(let parsed): asked = parsed
        case .failure(let problem): return emit(.respond(exchange, .error(400, "bad_request", problem.message)))
        }
        let hook = Webhook(
            id: TokenAuthority.newID(), board: id, url: asked.url, events: asked.events,
            secret: asked.secret ?? WebhookSignature.newSecret(), created: wall.milliseconds / 1000, delivered: 0)
        log(.info, "\(request.peer) makes webhook \(hook.id) for board \(id)")
        let reply = Self.answering(exchange) { $0.webhookAdded(hook, $1, exchange: exchange) }
        read(.addWebhook(hook, maximum: Self.maxWebhooksPerBoard, reply), for: exchange)
    }

    /// `DELETE /api/boards/{id}/webhooks/{hook}`.
    func removeWebhook(_ id: BoardID, _ hook: HookID, exchange: ExchangeID) {
        let reply = Self.answering(exchange) { $0.webhookRemoved($1, exchange: exchange) }
        read(.removeWebhook(hook.rawValue, of: id, reply), for: exchange)
    }

    /// `POST /api/boards/{id}/webhooks/{hook}/enable`.
    func enableWebhook(_ id: BoardID, _ hook: HookID, exchange: ExchangeID) {
        let reply = Self.answering(exchange) { $0.webhookEnabled($1, exchange: exchange) }
        read(.enableWebhook(hook.rawValue, of: id, reply), for: exchange)
    }

    /// `{"url","events","secret"?}`, strictly: no other member; `url` an http(s) URL with a
    /// public host (`WebhookTarget`); `events` `["*"]` or distinct op types; `secret` 16–256
    /// printable ASCII bytes.
    static func webhookRequest(
        _ body: [UInt8], allowPrivate: Bool
    ) -> Result<(url: String, events: [String], secret: String?), WebhookProblem> {
        guard case .object(let fields)? = try? JSON.parse(body) else {
            return .failure(WebhookProblem(#"send a JSON object: {"url": "https://…", "events": ["*"]}"#))
        }
        guard fields.keys.allSatisfy({ ["url", "events", "secret"].contains($0) }) else {
            return .failure(WebhookProblem("a webhook request has only url, events and secret"))
        }
        guard let url = fields["url"]?.stringValue else { return .failure(WebhookProblem("url must be a string")) }
        if case .failure(let problem) = WebhookTarget.parse(url, allowPrivate: allowPrivate) {
            return .failure(problem)
        }
        let kinds = Set(Op.kinds)
        guard let list = fields["events"]?.arrayValue, !list.isEmpty,
            case let events = list.compactMap(\.stringValue), events.count == list.count,
            Set(events).count == events.count,
            events == ["*"] || events.allSatisfy({ kinds.contains($0) })
        else {
            return .failure(WebhookProblem(#"events must be ["*"] or a list of distinct op types (such as "move")"#))
        }
        var secret: String?
        if let value = fields["secret"] {
            guard let text = value.stringValue, webhookSecretBytes.contains(text.utf8.count),
                text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                return .failure(
                    WebhookProblem(
                        "secret must be \(webhookSecretBytes.lowerBound) to \(webhookSecretBytes.upperBound) "
                            + "printable ASCII bytes without spaces"))
            }
            secret = text
        }
        return .success((url, events, secret))
    }

    /// `POST …/webhooks`: the store added the webhook, or did not.
    private func webhookAdded(_ hook: Webhook, _ added: WebhookAdded, exchange: ExchangeID) {
        switch added {
        case .added:
            let made = HTTPResponse.object(201) { w in
                Self.writeHead(hook, into: &w)
                w.write("secret", hook.secret)
            }
            emit(.respond(exchange, made))
        case .full:
            refuseFull(
                .webhooks, "too_many_webhooks",
                "board \(hook.board) has \(Self.maxWebhooksPerBoard) webhooks; delete one first", exchange: exchange)
        case .unknownBoard:
            emit(.respond(exchange, .error(404, "unknown_board", "there is no stored board \(hook.board)")))
        }
    }

    /// `GET …/webhooks`: the board's webhooks, or nil when the store has no such board.
    private func webhooksListed(_ hooks: [Webhook]?, exchange: ExchangeID) {
        guard let hooks else {
            return emit(
                .respond(exchange, .error(404, "unknown_board", "there is no stored board with these webhooks")))
        }
        emit(
            .respond(
                exchange,
                .json(200) { w in
                    w.beginObject()
                    w.beginArray("webhooks")
                    for hook in hooks { Self.write(hook, into: &w) }
                    w.endArray()
                    w.endObject()
                }))
    }

    /// `DELETE …/webhooks/{hookId}`: the webhook deleted, or nil when there was none.
    private func webhookRemoved(_ hook: Webhook?, exchange: ExchangeID) {
        guard let hook else { return emit(.respond(exchange, Self.unknownWebhook)) }
        log(.info, "webhook \(hook.id) of board \(hook.board) deleted")
        emit(.respond(exchange, .json(200) { w in Self.write(hook, into: &w, deleted: true) }))
    }

    /// `POST …/webhooks/{hookId}/enable`: the webhook enabled, or nil when there was none.
    private func webhookEnabled(_ hook: Webhook?, exchange: ExchangeID) {
        guard let hook else { return emit(.respond(exchange, Self.unknownWebhook)) }
        log(.info, "webhook \(hook.id) of board \(hook.board) enabled")
        emit(.respond(exchange, .json(200) { w in Self.write(hook, into: &w) }))
    }

    private static let unknownWebhook = HTTPResponse.error(404, "unknown_webhook", "the board has no such webhook")

    /// What every answer about a webhook starts with: its id, URL and events.
    private static func writeHead(_ hook: Webhook, into w: inout JSONWriter) {
        w.write("id", hook.id)
        w.write("url", hook.url)
        w.beginArray("events")
        for event in hook.events { w.write(nil, event) }
        w.endArray()
    }

    /// A webhook as `GET …/webhooks` shows it: never its secret.
    private static func write(_ hook: Webhook, into w: inout JSONWriter, deleted: Bool = false) {
        let null = Array("null".utf8)
        w.beginObject()
        writeHead(hook, into: &w)
        w.write("delivered", hook.delivered)
        w.write("failing", hook.status.failingSince != 0)
        if hook.status.failingSince != 0 {
            w.write("failingSince", Int(hook.status.failingSince))
        } else {
            w.writeRaw("failingSince", null)
        }
        if hook.status.lastStatus != 0 {
            w.write("lastStatus", hook.status.lastStatus)
        } else {
            w.writeRaw("lastStatus", null)
        }
        w.write("lastError", hook.status.lastError.isEmpty ? nil : hook.status.lastError)
        if hook.status.lastAttempt != 0 {
            w.write("lastAttempt", Int(hook.status.lastAttempt))
        } else {
            w.writeRaw("lastAttempt", null)
        }
        w.write("disabled", hook.status.disabled)
        if deleted { w.write("deleted", true) }
        w.endObject()
    }
}
