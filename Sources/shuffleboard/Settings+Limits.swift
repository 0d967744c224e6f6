import BoardCore
import BoardHub
import BoardServer

/// The settings table, second part: access, limits and the cluster.
extension Setting {
    static var access: [Setting] {
        [
            file(
                "--auth-secret", \.authSecretFile, .serve,
                "require access tokens (one secret per line; the first signs, all verify)",
                readme: "require access tokens (see Security)"),
            Setting(
                flag: "--allow-origin", value: "ORIGIN", section: .serve,
                help: "accept WebSocket upgrades, and API writes that carry an Origin, only from this Origin "
                    + "(repeatable)",
                readme:
                    "accept WebSocket upgrades, and API writes (`POST`, `PUT`, `PATCH`, `DELETE`) that carry an `Origin`, only from these origins (repeatable; others get 403); an upgrade without `Origin` is refused too",
                defaultText: "any"
            ) { options, text throws(UsageError) in
                let value = text ?? ""
                guard value.hasPrefix("http://") || value.hasPrefix("https://"), !value.dropFirst(8).contains("/")
                else {
                    throw UsageError(
                        message: "--allow-origin takes an origin like https://board.example, not '\(value.prefix(200))'"
                    )
                }
                options.config.hub.origins.allowed.append(value)
            },
            toggle(
                "--allow-no-origin", \.config.hub.origins.allowMissing, .serve,
                "with --allow-origin, also accept WebSocket upgrades without Origin (clients that are not browsers: "
                    + "scripts, bots, the Swift client library)"),
            Setting(
                flag: "--trusted-proxy", value: "IP", section: .serve,
                help: "a reverse proxy (HAProxy) whose X-Forwarded-For names the client: from that address, the "
                    + "header's last entry is the client's address for the limits and the logs (repeatable, at most "
                    + "64; from anyone else the header is ignored)",
                defaultText: "none"
            ) { options, text throws(UsageError) in
                let value = text ?? ""
                guard CommandLineParser.isAddressAndPort(value.contains(":") ? "[\(value)]:1" : "\(value):1") else {
                    throw UsageError(
                        message: "--trusted-proxy takes an IP address, such as 10.0.0.2, not '\(value.prefix(200))'")
                }
                guard options.config.trustedProxies.count < 64 else {
                    throw UsageError(message: "--trusted-proxy: at most 64 proxies")
                }
                options.config.trustedProxies.append(value)
            },
            file(
                "--tls-cert", \.config.tlsCertificate, .serve,
                "with --tls-key: serve https:// and wss:// with this PEM certificate (in a cluster, forwarding to the "
                    + "other nodes goes over TLS too)",
                readme:
                    "with `--tls-key`: serve `https://` and `wss://` (HTTP/1.1 only: ALPN offers `http/1.1`, so browsers never try HTTP/2; TLS 1.2 and 1.3 only, AEAD suites only: [operations](docs/operations.md#tls)); in a cluster, forward to the other nodes over TLS too ([cluster](docs/cluster.md#tls-between-nodes))"
            ),
            file("--tls-key", \.config.tlsKey, .serve, "the PEM key of --tls-cert"),
            file(
                "--cluster-ca", \.config.clusterCA, .serve,
                "with --tls-cert: trust only the nodes whose certificate this PEM authority signed for their "
                    + "--advertise address", default: "the system's authorities",
                readme:
                    "with `--tls-cert`: forward only to nodes whose certificate this PEM authority signed for their `--advertise` address ([cluster](docs/cluster.md#tls-between-nodes))"
            ),
            file(
                "--cluster-key", \.clusterKeyFile, .serve,
                "the keys nodes present to each other, one per line in hex (at least 32 digits): this node presents "
                    + "the first and accepts every one (to rotate: docs/cluster.md; SIGHUP reads it again)",
                default: "the key in the database",
                readme:
                    "in a cluster: the keys nodes present to each other, one per line in hex; the first is presented, every one accepted; SIGHUP reads it again: a key is rotated without stopping anything ([cluster](docs/cluster.md#rotating-the-cluster-key))"
            ),
        ]
    }

    static var limits: [Setting] {
        [
            seconds(
                "--hello-timeout", \.config.hub.helloTimeout, 1...3600, .limits,
                "close a connection that sends no hello in time with 4408"),
            seconds(
                "--hold-lifetime", \.config.hub.room.holdLifetime, 1...86_400, .limits,
                "a drag hold ends after this long however active"),
            seconds(
                "--hold-cooldown", \.config.hub.room.holdCooldown, 0...86_400, .limits,
                "after a hold expires, its holder's address may not take that item again for this long, and those "
                    + "refused while it was held go first"),
            count(
                "--max-holds-per-address", \.config.hub.room.maxHoldsPerAddress, 0...1_000_000, .limits,
                "items one client address may hold at once on a board"),
            rate("--op-rate", \.config.hub.opRate, .limits, "ops per second per connection, bursts of 2N"),
            rate(
                "--message-rate", \.config.hub.messageRate, .limits,
                "other messages per second per connection, bursts of 2N"),
            count(
                "--max-connections-per-address", \.config.hub.maxConnectionsPerAddress, 0...1_000_000, .limits,
                "open WebSockets per client address, else close 4429; with the next, all connections counted at "
                    + "accept"),
            count(
                "--max-pending-per-address", \.config.hub.maxPendingPerAddress, 0...1_000_000, .limits,
                "connections per address not yet upgraded to WebSocket (TCP, TLS, HTTP); more, or more than the sum "
                    + "of both caps in all, are closed at accept"),
            seconds(
                "--first-byte-timeout", \.config.hub.firstByteTimeout, 0...3600, .limits,
                "close a connection that sends no byte in time"),
            rate(
                "--connect-rate", \.config.hub.connectRate, .limits,
                "new connections per second per address, bursts of 2N"),
            rate(
                "--board-creations", \.config.hub.boardCreationRate, .limits,
                "new boards per minute that hello may make per address", perMinute: true),
            count(
                "--max-users-per-board", \.config.hub.maxUsersPerBoard, 0...10_000_000, .limits,
                "users on one board; more get board_full, 4409"),
            count(
                "--max-boards", \.config.hub.maxBoardsInMemory, 0...10_000_000, .limits,
                "boards in memory; a hello for another gets 1013"),
            bytes(
                "--max-board-bytes", \.config.hub.room.maxBoardBytes, BoardLimits.minimumMaxBoardBytes...(1 << 40),
                .limits,
                "most bytes of one board's JSON snapshot; ops that would grow it past this get board_full (at least "
                    + "\(BoardLimits.minimumMaxBoardBytes))"),
            count(
                "--max-unstored-ops", \.config.hub.maxUnstoredOps, 0...1_000_000, .limits,
                "ops of one board waiting for a failing store; more get unavailable at once"),
            count(
                "--presence-limit", \.config.hub.room.presenceLimit, 1...100_000, .limits,
                "users above which a board sends presence counts, not joins"),
            seconds(
                "--shutdown-write-retry", \.config.shutdownWriteRetry, 0...3600, .limits,
                "how long stopping retries a failing store write before dropping the unacknowledged writes"),
            seconds(
                "--http-timeout", \.config.httpTimeout, 1...3600, .limits,
                "time for an HTTP request's headers, then for its body and answer", whole: true),
            seconds(
                "--ping-after", \.config.pingAfter, 1...86_400, .limits,
                "a WebSocket connection is pinged once it has been this long since it upgraded or last answered a "
                    + "ping", whole: true),
            seconds(
                "--hang-up-after", \.config.hangUpAfter, 1...86_400, .limits,
                "a WebSocket connection is hung up on (no close frame) once it has been this long since it upgraded "
                    + "or last answered a ping; at least --ping-after", whole: true),
            bytes(
                "--max-header-bytes", \.config.maxHeaderBytes, 1024...(1 << 20), .limits,
                "most bytes of HTTP request headers; more closes the connection"),
            count(
                "--max-header-buffers", \.config.maxHeaderBuffers, 1...65_536, .limits,
                "most connections sending request headers at once; others wait"),
            bytes(
                "--max-page-bytes", \.config.hub.maxPageBytes, 4096...(1 << 30), .limits,
                "most bytes of one page of GET /api/boards/ID/ops or /history; the page stops early with \"more\" "
                    + "and \"next\""),
            bytes(
                "--max-http-answer-bytes", \.config.maxHTTPAnswerBytes, 0...(1 << 40), .limits,
                "most bytes of HTTP answers held for clients at once, over all connections; a read past it gets 503 "
                    + "busy"),
            seconds(
                "--stream-keepalive", \.config.hub.streamKeepalive, 0.05...3600, .limits,
                "a comment line on a quiet event stream (GET /api/boards/ID/events) this often, so that proxies keep "
                    + "it open"),
            seconds(
                "--max-stream-seconds", \.config.hub.maxStreamAge, 0...86_400, .limits,
                "an event stream ends after N s; its client resumes with Last-Event-ID (perhaps on another node "
                    + "behind a balancer; 0: never)", value: "N", whole: true),
            seconds(
                "--stream-stall-seconds", \.config.streamStall, 0...3600, .limits,
                "an event stream that takes nothing of what is queued for it for N s is dropped (0: never); what "
                    + "streams have queued counts against --max-http-answer-bytes", value: "N", whole: true),
            count(
                "--max-streams", \.config.hub.maxStreams, 0...1_000_000, .limits,
                "event streams (GET /api/boards/ID/events) open at once; past it, 503 busy"),
            count(
                "--max-streams-per-address", \.config.hub.maxStreamsPerAddress, 0...1_000_000, .limits,
                "event streams open at once per client address; past it, 429"),
            count(
                "--max-history-reads", \.config.hub.maxHistoryReads, 0...1_000_000, .limits,
                "history reads (?at=, /history) waiting for the store at once; past it, 503 busy"),
            count(
                "--max-history-reads-per-address", \.config.hub.maxHistoryReadsPerAddress, 0...1_000_000, .limits,
                "the same per client address; past it, 429"),
        ]
    }

    static var cluster: [Setting] {
        [
            Setting(
                flag: "--node", value: "NAME", section: .cluster,
                help: "this node's name (letters, digits, . _ -), in GET /api/cluster and board owners",
                defaultText: "HOSTNAME-PID"
            ) { options, text throws(UsageError) in
                let value = text ?? ""
                guard CommandLineParser.isNodeName(value) else {
                    throw UsageError(
                        message: "--node must be 1–128 characters of A-Z a-z 0-9 . _ -, not '\(value.prefix(200))'")
                }
                options.config.node = value
            },
            Setting(
                flag: "--advertise", value: "IP:PORT", section: .cluster,
                help: "how the other nodes reach this one (give it with --port 0): an IP address (10.0.0.5:8080, "
                    + "[fd00::5]:8080), not a host name, which would be looked up on the service thread",
                defaultText: "127.0.0.1:PORT of --port"
            ) { options, text throws(UsageError) in
                let value = text ?? ""
                guard CommandLineParser.isAddressAndPort(value) else {
                    throw UsageError(
                        message:
                            "--advertise must be an IP address and a port, such as 10.0.0.5:8080 or [fd00::5]:8080 "
                            + "(not a host name), not '\(value.prefix(200))'")
                }
                options.config.advertise = value
            },
            seconds(
                "--lease", \.config.lease, 0.5...3600, .cluster,
                "how long a board's lease lasts; renewed every third of it",
                readme:
                    "in a cluster: how long a board's lease lasts; renewed every third of it ([architecture](docs/architecture.md#cluster))"
            ),
            seconds(
                "--forward-timeout", \.config.forwardTimeout, 0.5...600, .cluster,
                "time for a forwarded connection to reach its board's owner, and for a REST op relayed to the owner "
                    + "to be answered (else 503 elsewhere); an owner that answers no ping for twice this long is "
                    + "given up"),
            boolean(
                "--node-links", \.config.nodeLinks, .cluster,
                "forward a board's clients over one link per (owner, board) on /node.v1, so the owner sends each "
                    + "broadcast once per node; off: one upstream per client, for nodes without /node.v1",
                value: "on|off"),
        ]
    }
}
