internal import BoardAuth
internal import BoardCore
internal import BoardHub
internal import BoardStore
internal import CLibWebSockets
import Foundation
internal import LWSSupport
internal import WebhookDelivery

/// The libwebsockets side of the server: turns lws callbacks into hub events, and hub actions
/// into lws calls. Every session rule lives in the `Hub`; this type knows only what the transport
/// alone can know: frames and fragments, send queues, WRITEABLE, HTTP bodies and response bytes.
///
/// Confined to the service thread: every method runs inside an lws callback or the service loop.
/// Other threads reach it only through `inbox`.
final class Service {
    let config: ServerConfig
    let log: Logger
    /// The budget of log lines clients cause, shared by the parts.
    let clientLog: ClientLog
    let inbox: Inbox<Hub.Event>
    let persister: Persister
    let reader: Reader
    /// Encodes large HTTP answers that need no store (`StoreRead.encodeSnapshot`).
    let encoder: Reader
    /// Webhook delivery's thread, when the store keeps webhooks (Runtime/Service+Webhooks.swift).
    let webhooks: WebhookDelivery?
    /// In a cluster (the store is a `ClusterStore`): the renewal thread.
    let leaseKeeper: LeaseKeeper?
    /// Every session rule. Events reach it only through `handle`; the operations endpoints
    /// (HTTP/Operations.swift) read its state and its metrics registry.
    let hub: Hub
    /// The transport's metric families, in the hub's registry.
    let meters: TransportMeters

    var context: OpaquePointer?
    /// The WebSocket part: connections, framing, feeds, the pacer, the echo endpoint (WebSocket/).
    private(set) var webSockets: WebSockets!
    /// With `--auth-proxy-header`: reads the sign-in proxy's headers (ProxyHeaderReader.swift).
    let proxyHeaders: ProxyHeaderReader?
    /// The relay part: upstreams to boards' owners and the cluster key (Relay/).
    private(set) var relay: Relay!
    /// REST requests relayed to boards' owners (Relay/HTTPForwards.swift).
    private(set) var httpForwards: HTTPForwards!
    /// The HTTP part: exchanges, static files, `/metrics`, `/readyz` (HTTP/).
    private(set) var http: HTTP!
    /// The one buffer raw writes are assembled in (`LWS_PRE` and `--max-write-bytes`): lws has
    /// sent or copied a raw write when `lws_write` returns, so every connection can share it.
    let scratch: UnsafeMutableRawBufferPointer
    /// Accepted connections the hub counts until they upgrade or close (Service+Sockets.swift).
    var sockets = AcceptedSockets()
    /// Which accepted sockets the open-file limit refuses (set once the lws context is made).
    var fileLimit: FileLimit?
    private var nextID: UInt64 = 0
    private var nextSocketID: UInt64 = 0
    /// Set by the hub's `stop`: the service loop ends.
    private(set) var finished = false
    /// The hub said stop while echo connections were still closing.
    private var stopRequested = false
    /// Connections opened and closed since the heap was last trimmed, and since the last tick.
    private var churnSinceTrim = 0
    private var churnSinceTick = 0
    /// True while the hub's actions are being carried out: an event that an lws call made during
    /// them causes (an upstream that failed at once) waits in `later` instead of re-entering the hub.
    private var applying = false
    private var later: [Hub.Event] = []
    /// With the in-memory store: the writes and releases of the event being handled, written by
    /// the service thread itself once its actions are carried out (`Persister.writesInline`).
    private var inlineTasks: [Persister.Task] = []

    #if DEBUG
        var serviceThread: pthread_t?
    #endif

    init(config: ServerConfig, store: any BoardStore, log: Logger) {
        self.config = config
        self.log = log
        inbox = Inbox()
        // What the store can do is said once, by its type: each part that needs a capability is handed it.
        let capabilities = StoreCapabilities(store)
        let webhooks = WebhookDelivery(
            capabilities, allowPrivate: config.hub.webhookAllowPrivate, warn: { log.warning($0) })
        self.webhooks = webhooks
        let answers = inbox
        reader = Reader(store: capabilities, name: "shuffleboard-reader") { id, answer in
            Self.tell(webhooks, answer)
            answers.post(.answered(id, answer))
        }
        encoder = Reader(store: capabilities, inbox: inbox, name: "shuffleboard-encoder")
        scratch = .allocate(byteCount: Int(shuffleboard_lws_pre()) + config.maxWriteBytes, alignment: 16)
        var hubConfig = config.hub
        // A proxy's volume is its clients': no accept-time cap counts its address.
        hubConfig.uncappedAddresses.formUnion(config.trustedProxies)
        let cluster = capabilities.cluster
        persister = Persister(
            capabilities, inbox: inbox, log: log,
            stopRetry: config.shutdownWriteRetry)
        if let cluster {
            // The store holds the leases: its node name and lease are the ones that count.
            hubConfig.cluster = ClusterSettings(
                node: cluster.node, lease: .seconds(cluster.leaseSeconds),
                forwardTimeout: config.forwardTimeout)
            leaseKeeper = LeaseKeeper(store: cluster, inbox: inbox, log: log)
        } else {
            leaseKeeper = nil
        }
        if hubConfig.auth != nil { hubConfig.revoked = Self.revocations(in: capabilities.revocations, log: log) }
        hubConfig.inbox = capabilities.inbox != nil
        if hubConfig.auth != nil { hubConfig.grants = Self.grants(in: capabilities.grants, log: log) }
        proxyHeaders = hubConfig.auth == nil ? nil : ProxyHeaderReader(hubConfig.proxy)
        hub = Hub(config: hubConfig)
        clientLog = ClientLog(log, budget: hub.logBudget)
        meters = TransportMeters(hub.metrics)
        webSockets = WebSockets(config: config, log: log, clientLog: clientLog, meters: meters, runtime: self)
        http = HTTP(config: config, log: log, clientLog: clientLog, meters: meters, runtime: self)
        relay = Relay(
            config: config, clusterKeys: Relay.clusterKeys(config: config, cluster: cluster, log: log), log: log,
            clientLog: clientLog, meters: meters, runtime: self)
        httpForwards = HTTPForwards(
            config: config,
            maxForwards: hubConfig.cluster?.maxHTTPForwards ?? 1, log: log, runtime: self)
    }

    deinit { scratch.deallocate() }

    /// The revocations in force in `store`, read before the server serves (here, on the thread
    /// that makes the server), so that a restarted server refuses a revoked token from its first
    /// connection; the hub reloads them every second afterwards.
    private static func revocations(in store: (any RevocationStore)?, log: Logger) -> [Revocation] {
        guard let revocations = store else { return [] }
        do {
            return try revocations.revocations(now: Int64(Date().timeIntervalSince1970))
        } catch {
            log.error("cannot read the revoked tokens (\(error)); the first reload tries again within a second")
            return []
        }
    }

    func assertOnServiceThread() {
        #if DEBUG
            if let serviceThread {
                precondition(pthread_equal(serviceThread, pthread_self()) != 0, "off the service thread")
            }
        #endif
    }

    func makeID() -> UInt64 {
        nextID += 1
        return nextID
    }

    /// An accepted socket's id: numbered on their own, so that connections' and exchanges' ids
    /// (which logs and tests name) do not depend on how many sockets were accepted.
    func makeSocketID() -> SocketID {
        nextSocketID += 1
        return SocketID(nextSocketID)
    }

    // MARK: Events in

    /// Hands one event to the hub with the current time, and carries out its actions. Called
    /// while actions are being carried out, it runs once they are done.
    func handle(_ event: Hub.Event) {
        guard !applying else { return later.append(event) }
        if case .tick = event { forgetUnbound() }
        if case .durable(let seqs, _) = event, !seqs.isEmpty { webhooks?.committed(seqs) }
        let now = Clock.now()
        // The hub closes its sessions; echo connections are the transport's own.
        if case .shutdown = event { webSockets.shutdown(now: now) }
        applying = true
        if let intercept = config.interceptEvent, let actions = intercept(event) {
            apply(actions)
        } else {
            apply(hub.handle(event, now: now, wall: Clock.wall()))
        }
        applying = false
        if !inlineTasks.isEmpty {
            // What the writer thread would report through the inbox comes next, in order.
            let tasks = inlineTasks
            inlineTasks.removeAll(keepingCapacity: true)
            persister.run(tasks) { later.append($0) }
        }
        if case .tick = event {
            webSockets.tick(now: now)
            http.sweepExchanges()
            relay.tick(now: now)
            httpForwards.tick(now: now)
            trimHeapAfterChurn()
        }
        finishIfStopped(now: now)
        while !later.isEmpty { handle(later.removeFirst()) }
    }

    func drainInbox() {
        if let keys = relay.keyInbox.drain().last { relay.useClusterKeys(keys) }
        for event in inbox.drain() { handle(event) }
    }

    /// A connection opened or closed (for `trimHeapAfterChurn`).
    func churned() {
        churnSinceTrim += 1
        churnSinceTick += 1
    }

    /// Once a burst of connections opening or closing (at least 256 of them) has been over for a
    /// tick, gives the freed heap pages back to the kernel (`shuffleboard_trim_heap`): their
    /// handshake buffers are freed, but glibc keeps the pages between the connections that stay.
    /// A trim walks the free lists (a few milliseconds for a heap of thousands of connections),
    /// so it happens only after such a burst.
    private func trimHeapAfterChurn() {
        defer { churnSinceTick = 0 }
        guard churnSinceTrim >= 256, churnSinceTick == 0 else { return }
        let churn = churnSinceTrim
        churnSinceTrim = 0
        let (released, micros) = Clock.timed { shuffleboard_trim_heap() != 0 }
        log.debug(
            "heap trimmed after \(churn) connections opened or closed in \(micros) µs"
                + (released ? "" : " (nothing to release)"))
    }

    /// Ends the loop once the hub has stopped and no echo connection is left (or their grace is over).
    func finishIfStopped(now: Instant) {
        guard stopRequested, !finished else { return }
        if !webSockets.echoClosing(now: now) { finished = true }
    }

    /// Behind a proxy in `--trusted-proxy`, the client address it added to `X-Forwarded-For` (the
    /// last one: those before it are whatever the client sent); nil for anyone else, or when the
    /// header is missing or its last entry is not an address.
    func proxiedAddress(_ wsi: OpaquePointer, socketPeer: String) -> String? {
        guard config.trustedProxies.contains(socketPeer),
            let header = LWS.header(wsi, WSI_TOKEN_X_FORWARDED_FOR)
        else { return nil }
        let last = header.split(separator: ",").last.map { $0.filter { $0 != " " && $0 != "\t" } } ?? ""
        guard Relay.isAddress(last) else {
            clientLog.warning(
                "a request through proxy \(socketPeer) names no client address in X-Forwarded-For; using the proxy's")
            return nil
        }
        return last
    }

    // MARK: Actions out

    private func apply(_ actions: [Hub.Action]) {
        for action in actions {
            switch action {
            case .send(let id, let message):
                webSockets.send(message, to: id)
            case .broadcast(let message, let members, let except):
                webSockets.broadcast(message, to: members, except: except)
            case .refuseSocket(let id):
                refuse(id)
            case .closeIfSilent(let id):
                closeIfSilent(id)
            case .close(let id, let code, let reason, let flush):
                webSockets.close(id, code: code, reason: reason, flush: flush)
            case .persist(let write, let ticket):
                persist(.write((write, ticket)))
            case .read(let id, let request) where request.encodesOnly:
                encoder.submit(request, id: id)
            case .read(let id, let request):
                reader.submit(request, id: id)
            case .cancelRead(let id):
                reader.cancel(id)
                encoder.cancel(id)
            case .respond(let exchange, let response):
                http.respond(exchange, response)
            case .log(let level, let line):
                log.log(level, line)
            case .stop:
                stopRequested = true
            case .forward(let id, let advertise, let messages):
                relay.forward(id, to: advertise, messages: messages)
            case .forwardHTTP(let exchange, let advertise, let request):
                httpForwards.start(exchange, to: advertise, request)
            case .release(let board):
                persist(.release(board))
            case .openStream(let exchange):
                http.openStream(exchange)
            case .stream(let event, let exchanges):
                http.stream(event, to: exchanges)
            case .endStream(let exchanges):
                http.endStreams(exchanges)
            }
        }
    }

    /// A store write or lease release: to the writer thread, or, when the store's writes never
    /// wait, kept for the service thread to run once the event's actions are carried out.
    private func persist(_ task: Persister.Task) {
        if persister.writesInline {
            inlineTasks.append(task)
        } else {
            persister.submit(task)
        }
    }
}
