internal import BoardHub
package import BoardStore
internal import CLibWebSockets
import Dispatch
import Foundation
internal import LWSSupport
import Synchronization

/// Why the server could not start.
package struct ServerError: Error, CustomStringConvertible, Sendable {
    /// What went wrong.
    package var description: String
}

/// The shuffleboard server: one libwebsockets service thread owning every connection and board,
/// plus the store's writer thread and a ticker.
package final class Server: Sendable {
    private let config: ServerConfig
    private let log: Logger
    /// Touched by the service thread only, except for `inbox` (thread-safe) during start and stop.
    private nonisolated(unsafe) let service: Service
    private let started = DispatchSemaphore(value: 0)
    private let stopped = DispatchSemaphore(value: 0)
    private let state = Mutex<(port: Int?, error: String?, running: Bool)>((nil, nil, false))
    /// Configured in `start()` before it runs; afterwards only cancelled, by the service thread.
    private nonisolated(unsafe) let ticker: DispatchSourceTimer
    /// The relay's door for new cluster keys (thread-safe), taken from it once, here.
    private let keyInbox: Inbox<[String]>

    /// A server for `config` over `store`; call `start()`. With a `ClusterStore` the server is a
    /// node of that cluster: its hub claims boards instead of loading them, and a renewal thread
    /// keeps its leases (`LeaseKeeper`).
    package init(config: ServerConfig, store: any BoardStore) {
        self.config = config
        log = Logger(level: config.hub.logLevel, format: config.logFormat)
        service = Service(config: config, store: store, log: log)
        keyInbox = service.relay.keyInbox
        ticker = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
        // Resumed at once, with no schedule (so it never fires until `start` gives one): libdispatch
        // traps when a source that was never resumed is released, and a server that fails to
        // start (or never starts) is released.
        let inbox = service.inbox
        ticker.setEventHandler { inbox.post(Hub.Event.tick) }
        ticker.resume()
    }

    /// The port the server listens on, once started.
    package var port: Int? { state.withLock { $0.port } }

    /// Starts listening and returns the port (the chosen one when the config says 0).
    @discardableResult
    package func start() throws(ServerError) -> Int {
        if config.echoPath != nil && config.deflate {
            // Deflate connections send text frames only; the echo endpoint must send binary too.
            throw ServerError(description: "the echo endpoint cannot be combined with permessage-deflate")
        }
        let thread = Thread { [self] in serviceThread() }
        thread.name = "shuffleboard-service"
        thread.stackSize = 4 << 20
        thread.start()
        started.wait()
        let (port, error) = state.withLock { ($0.port, $0.error) }
        guard let port else { throw ServerError(description: error ?? "the server did not start") }
        ticker.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        return port
    }

    /// Closes every connection with 1001 and stops; returns once the service thread has ended.
    package func stop() {
        let running = state.withLock { $0.running }
        guard running else { return }
        service.inbox.post(Hub.Event.shutdown)
        waitUntilStopped()
    }

    /// Like `stop()`, but gives up after `timeout`; false if the server had not stopped by then.
    package func stop(within timeout: Duration) -> Bool {
        let running = state.withLock { $0.running }
        guard running else { return true }
        service.inbox.post(Hub.Event.shutdown)
        guard stopped.wait(timeout: .now() + .nanoseconds(timeout.nanoseconds)) == .success else { return false }
        stopped.signal()  // Let other waiters through too.
        return true
    }

    /// In a cluster started with `--cluster-key`: uses `keys` (hex, the presented one first) from
    /// now on, for new connections (from any thread: SIGHUP re-reads the file). False when the
    /// server is not running.
    @discardableResult
    package func useClusterKeys(_ keys: [String]) -> Bool {
        guard !keys.isEmpty else { return false }
        return keyInbox.post(keys)
    }

    /// Blocks until the server has stopped (after `stop()`, from any thread).
    package func waitUntilStopped() {
        stopped.wait()
        stopped.signal()  // Let other waiters through too.
    }

    /// Creates the lws context with a per-thread fd limit `FileLimit.reserve` (64) below the
    /// open-file limit, and with its fd table sized to that same limit; returns the context and
    /// the open-file limit. lws 4.1.6 sizes the table from the soft limit
    /// (`sysconf(_SC_OPEN_MAX)`), and a per-thread limit below the table's size makes it find the
    /// connection of every socket event by a linear search of the whole table (`wsi_from_fd` with
    /// `max_fds_unrelated_to_ulimit`): 6% of the server's time with 500 clients, O(connections)
    /// per event. So the soft limit is lowered by the reserve while the context is made and raised
    /// again after: the table is indexed by fd, and the descriptors above it stay for the store,
    /// the log and the sockets accepted only to be refused (lws drops a socket whose number is past
    /// its table). The service refuses accepted sockets a little below the table's top
    /// (`FileLimit`), counted and logged, so that lws never meets its own limit: at
    /// `fd_limit_per_thread - 1` sockets it would stop polling the listener and leave new
    /// connections waiting in the listen backlog without a word.
    private static func createContext(_ info: inout lws_context_creation_info) -> (OpaquePointer?, Int) {
        let limit = ContextSetup.raiseFileLimit()
        let table = FileLimit.table(for: limit)
        var lowered = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered)
        lowered.rlim_cur = rlim_t(table)
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered)
        info.fd_limit_per_thread = UInt32(table)
        HeaderSlab.install()
        let context = lws_create_context(&info)
        _ = ContextSetup.raiseFileLimit()
        return (context, limit)
    }

    private func serviceThread() {
        // Foundation keeps a Thread's name to itself on Linux: the kernel's (top -H, /proc) is set here.
        shuffleboard_name_thread("shuffleboard-service")
        #if DEBUG
            service.serviceThread = pthread_self()
        #endif
        ReadGuard.forbidReadsOnThisThread()
        let setup = ContextSetup(config: config, service: service)
        var libev: LibEV?
        if config.eventLoop == .libev {
            switch LibEV.make() {
            case .success(let loop):
                libev = loop
                setup.useForeignLoop(loop.loop)
            case .failure(let error):
                state.withLock { $0.error = "--event-loop libev: \(error)" }
                started.signal()
                stopped.signal()
                return
            }
        }
        let (made, fileLimit) = Self.createContext(&setup.info)
        guard let context = made else {
            libev?.close()
            state.withLock {
                $0.error =
                    config.tlsCertificate == nil
                    ? "cannot listen on \(config.host):\(config.port) (address in use or not available?)"
                    : "cannot listen on \(config.host):\(config.port) (address in use, or the TLS certificate "
                        + "\(config.tlsCertificate ?? "") and key \(config.tlsKey ?? "") are not a valid pair)"
            }
            started.signal()
            stopped.signal()
            return
        }
        service.context = context
        service.fileLimit = FileLimit(limit: fileLimit)
        service.inbox.attach(context)
        service.relay.keyInbox.attach(context)
        if config.hoverPacing > .zero {
            service.webSockets.pacer = Pacer(context: context, protocolName: "shuffleboard.v1")
            if service.webSockets.pacer == nil {
                log.warning("cannot make the hover pacing timer; hovers are not paced")
            }
        }
        service.persister.start()
        service.reader.start()
        service.encoder.start()
        service.webhooks?.start()
        service.leaseKeeper?.start()
        let port = Int(shuffleboard_listen_port(context))
        state.withLock {
            $0.port = port
            $0.running = true
        }
        let (http, ws) = config.tlsCertificate == nil ? ("http", "ws") : ("https", "wss")
        log.info("listening on \(http)://\(config.host):\(port)/ (WebSocket \(ws)://\(config.host):\(port)/ws)")
        if let cluster = service.hub.clusterSettings {
            log.info("node \(cluster.node) of a cluster, with leases of \(cluster.lease.timeInterval) s")
        }
        started.signal()

        if let libev { log.info("event loop: libev on \(libev.backendName)") }
        while !service.finished {
            if let libev {
                libev.runOnce()
            } else if lws_service(context, 0) < 0 {
                break
            }
            if !service.http.flushing.isEmpty { service.http.watchFlushing() }
        }

        ticker.cancel()
        service.reader.stop()
        service.encoder.stop()
        service.webhooks?.stop()
        service.persister.stop()
        if let keeper = service.leaseKeeper {
            keeper.stop()
            // The hub released the boards it had in memory after their last writes; this gives up
            // any lease claimed for a board that never got there.
            keeper.releaseAll()
        }
        _ = service.inbox.detach()
        _ = service.relay.keyInbox.detach()
        service.webSockets.connections.removeAll()
        // Upstreams still closing end here (their callbacks find no client, so the hub hears nothing).
        lws_context_destroy(context)
        libev?.close()
        service.relay.removeAll()
        service.httpForwards.removeAll()
        withExtendedLifetime(setup) {}
        state.withLock { $0.running = false }
        log.info("stopped")
        stopped.signal()
    }
}

/// The C structures lws reads for the whole life of the context: protocols, options, policies.
private final class ContextSetup {
    var info = lws_context_creation_info()
    private let protocols: UnsafeMutablePointer<lws_protocols>
    private var strings: [UnsafeMutablePointer<CChar>]
    private let pvo: UnsafeMutablePointer<lws_protocol_vhost_options>
    private let retry: UnsafeMutablePointer<lws_retry_bo_t>
    /// The foreign loop lws runs on (`info.foreign_loops`, one per service thread), if any.
    private let loops = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)

    /// Runs lws on the loop `loop` (a libev `struct ev_loop *`) through its libev plugin.
    func useForeignLoop(_ loop: OpaquePointer) {
        loops.initialize(to: UnsafeMutableRawPointer(loop))
        info.foreign_loops = loops
        info.options |= UInt64(LWS_SERVER_OPTION_LIBEV)
    }

    init(config: ServerConfig, service: Service) {
        let name = strdup("shuffleboard.v1")!
        let host = strdup(config.host)!
        let defaultKey = strdup("default")!
        let empty = strdup("")!
        let vhostName = strdup("default")!
        let linkName = strdup(NodeLinks.localProtocol)!
        strings = [name, host, defaultKey, empty, vhostName, linkName]

        protocols = .allocate(capacity: 3)
        protocols.initialize(repeating: lws_protocols(), count: 3)
        // A forwarding node's node links to owners (Relay/LinkConnection.swift) bind to this one:
        // the same callback, but lws reads an owner's broadcasts in pieces of up to 64 KiB rather
        // than 128 bytes (a link carries the broadcasts of all the node's clients of a board).
        protocols[1].name = UnsafePointer(linkName)
        protocols[1].callback = serviceCallback
        protocols[1].per_session_data_size = 0
        protocols[1].rx_buffer_size = 65_536
        protocols[1].tx_packet_size = config.maxWriteBytes
        protocols[0].name = UnsafePointer(name)
        protocols[0].callback = serviceCallback
        // No per-session data: the ids are in each wsi's opaque user data (WSIID).
        protocols[0].per_session_data_size = 0
        // lws mallocs this (plus LWS_PRE) for every WebSocket for its whole life (0 means the
        // service buffer's 4096), hands RECEIVE at most this much at a time, and reads at most
        // this much from the socket per pass. Small, because most of an idle connection's memory
        // was this buffer; `Service.receive` reassembles longer frames and messages from the
        // pieces (lws_is_final_fragment is false until a frame's last byte). 128: hovers and drags
        // (60-120 bytes) come in one piece, ops in one or two. Reading so little per pass can leave
        // input unread when lws closes a socket (after the client's close frame, or after 5 s
        // without one), and a socket closed with unread input makes the kernel send a reset that
        // can lose what the client has not read; LWS.discardUnread at CLOSED prevents it.
        protocols[0].rx_buffer_size = 128
        // One send() per write: lws splits a larger write into sends of this size and keeps the
        // rest on its heap until they are done. Every write to a WebSocket is at most this.
        protocols[0].tx_packet_size = config.maxWriteBytes

        // "default": clients that offer no subprotocol bind to ours (and so does HTTP).
        pvo = .allocate(capacity: 2)
        pvo.initialize(repeating: lws_protocol_vhost_options(), count: 2)
        pvo[1].name = UnsafePointer(defaultKey)
        pvo[1].value = UnsafePointer(empty)
        pvo[0].name = UnsafePointer(name)
        pvo[0].value = UnsafePointer(empty)
        pvo[0].options = UnsafePointer(pvo + 1)

        retry = .allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        // No hang-up: lws keeps no validity timer per connection (its sorted list costs every
        // insert a walk over all connections); the server pings and hangs up itself
        // (WebSocket/Keepalive.swift). Without a policy lws would use its default (300 s).
        retry.pointee.secs_since_valid_ping = 0
        retry.pointee.secs_since_valid_hangup = 0

        lwsLogger.withLock { $0 = Logger(level: config.hub.logLevel, format: config.logFormat) }
        lws_set_log_level(config.hub.logLevel == .debug ? Int32(LLL_ERR | LLL_WARN) : 0, lwsLog)

        info.port = Int32(config.port)
        info.iface = UnsafePointer(host)
        info.vhost_name = UnsafePointer(vhostName)
        info.protocols = UnsafePointer(protocols)
        info.pvo = UnsafePointer(pvo)
        info.user = Unmanaged.passUnretained(service).toOpaque()
        info.options = UInt64(LWS_SERVER_OPTION_VALIDATE_UTF8) | UInt64(LWS_SERVER_OPTION_DISABLE_IPV6)
        // A method lws does not parse (TRACE …) comes to the server as a raw socket, to be
        // answered 405 with `allow` (HTTP/UnknownMethods.swift), not with lws's HTTP/1.0 403 page.
        info.options |= UInt64(LWS_SERVER_OPTION_FALLBACK_TO_APPLY_LISTEN_ACCEPT_CONFIG)
        info.retry_and_idle_policy = UnsafePointer(retry)
        // HTTP bounds lws enforces itself: header bytes per request (more closes the connection);
        // header buffers in use at once (4.1.6 allows one per fd; a connection waits at most 5 s,
        // lws's timeout_secs, for one); and the time from connecting to complete headers.
        info.max_http_header_data2 = UInt32(config.maxHeaderBytes)
        info.max_http_header_pool2 = UInt32(config.maxHeaderBuffers)
        info.timeout_secs_ah_idle = UInt32(max(1, config.httpTimeout.wholeSeconds))
        // An upstream's TCP connect to a board's owner (Relay/Relay.swift); the service's
        // own deadline covers the whole handshake.
        info.connect_timeout_secs = UInt32(max(1, config.forwardTimeout.wholeSeconds))
        if config.deflate { info.extensions = shuffleboard_deflate_extensions() }
        if let certificate = config.tlsCertificate, let key = config.tlsKey {
            // Only HTTP/1.1 is offered in ALPN. lws 4.1.6 (built with HTTP/2) offers "h2,http/1.1"
            // by default and accepts h2, but every answer here is written as HTTP/1.1 bytes
            // (HTTP/HTTP.swift), the WebSocket upgrade is HTTP/1.1's, and HTTP/2 would bypass
            // every rule of the HTTP exchange: a browser would get an empty, broken reply.
            let cert = strdup(certificate)!
            let privateKey = strdup(key)!
            let alpn = strdup("http/1.1")!
            strings += [cert, privateKey, alpn]
            info.options |= UInt64(LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT)
            info.ssl_cert_filepath = UnsafePointer(cert)
            info.ssl_private_key_filepath = UnsafePointer(privateKey)
            info.alpn = UnsafePointer(alpn)
            // TLS 1.2 and 1.3 only, and on TLS 1.2 only AEAD suites with forward secrecy: no CBC
            // (LUCKY13 and its kin), no static RSA key exchange (docs/operations.md, "TLS").
            let ciphers = strdup(Self.tls12Ciphers)!
            strings.append(ciphers)
            info.ssl_cipher_list = UnsafePointer(ciphers)
            info.ssl_options_set = shuffleboard_tls_server_options()
            // The client side, for forwarding to boards' owners over TLS (Relay/Relay.swift): lws
            // makes the vhost's client SSL_CTX from these (lib/tls/tls-client.c). With
            // --cluster-ca it trusts that authority alone, not the system's too.
            if let authority = config.clusterCA {
                let ca = strdup(authority)!
                strings.append(ca)
                info.client_ssl_ca_filepath = UnsafePointer(ca)
                info.options |= UInt64(LWS_SERVER_OPTION_DISABLE_OS_CA_CERTS)
            }
        }
    }

    /// The cipher suites offered on TLS 1.2 (OpenSSL's names): ECDHE with AES-GCM or
    /// ChaCha20-Poly1305, as Mozilla's "intermediate" profile without its DHE suites (which need
    /// DH parameters). TLS 1.3's suites are all AEAD; OpenSSL's defaults stay.
    static let tls12Ciphers =
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:"
        + "ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305"

    /// Raises the soft open-file limit to the hard one (at most `FileLimit.maximum`) and returns it.
    static func raiseFileLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let raised = FileLimit.raisedSoftLimit(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max))
        if limit.rlim_cur < raised {
            limit.rlim_cur = rlim_t(raised)
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return max(Int(limit.rlim_cur), 128)
    }

    deinit {
        protocols.deallocate()
        pvo.deallocate()
        retry.deallocate()
        loops.deallocate()
        for s in strings { free(s) }
    }
}

/// The logger libwebsockets' own lines go through (set before a context is made).
private let lwsLogger = Mutex(Logger())

/// libwebsockets' log emitter: its lines (only enabled at `--log-level debug`) become debug lines
/// of ours, escaped and in our format, instead of raw text on stderr.
private func lwsLog(_ level: Int32, _ line: UnsafePointer<CChar>?) {
    guard let line else { return }
    var text = String(cString: line)
    while text.last == "\n" { text.removeLast() }
    lwsLogger.withLock { $0 }.debug("libwebsockets: \(text)")
}
