import BoardCore
import BoardHub
import BoardServer

/// The settings table, first part: where the server listens, what it keeps, what it serves and
/// to whom. One row per flag; a new setting is a new row (docs/architecture.md, "Adding a setting").
extension Setting {
    /// Every setting of `shuffleboard serve`, in the order `--help` and README list them.
    static var table: [Setting] { serving + limits + cluster }

    static var serving: [Setting] {
        [
            Setting(
                flag: "--host", value: "ADDR", section: .serve, help: "interface to listen on",
                defaultText: defaults.config.host
            ) { options, text throws(UsageError) in
                guard let text, !text.isEmpty else { throw UsageError(message: "--host needs an address") }
                options.config.host = text
            },
            count(
                "--port", \.config.port, 0...65535, .serve, "port; 0 picks a free one and logs it",
                readme: "`--port 0` picks a free port; the log says which"),
            Setting(
                flag: "--data", value: "DIR", section: .serve,
                help: "where boards are stored (SQLite; created if missing)",
                readme: "SQLite database and lock file; created if missing", defaultText: "./data"
            ) { options, text throws(UsageError) in try store(&options, "--data", text ?? "") },
            Setting(
                flag: "--store", value: "URL", section: .serve,
                help: "postgresql://USER@HOST:PORT/DB keeps boards in PostgreSQL, shared by the nodes of a cluster "
                    + "(see CLUSTER below); sqlite:DIR is --data DIR",
                readme:
                    "`postgresql://USER@HOST:PORT/DB` (or `postgres://`): boards in PostgreSQL, shared by the nodes of a cluster (`--node`, `--advertise`, `--lease` below); with a primary and a synchronous standby, libpq's multi-host form `postgresql://USER@H1:P1,H2:P2/DB?target_session_attrs=read-write` finds whichever is the primary ([failover](docs/cluster.md#postgresql-failover)); `sqlite:DIR` is `--data DIR`. Not with `--data` or `--memory`; an unreachable server exits 1",
                defaultText: "--data"
            ) { options, text throws(UsageError) in try store(&options, "--store", text ?? "") },
            toggle("--memory", \.memory, .serve, "keep everything in memory; nothing survives a restart"),
            Setting(
                flag: "--web", value: "DIR", section: .serve, help: "the web client folder served at /",
                readme: "the web client; without one, a short page explains how to connect",
                defaultText: "./web if present"
            ) { options, text throws(UsageError) in
                options.config.webRoot = text
                options.webExplicit = true
            },
            choice(
                "--log-level", \.config.hub.logLevel, LogLevel.allCases.map { ($0.name, $0) } + [("warn", .warning)],
                .serve,
                "debug, info, warning or error: one line per event on stderr at this level and above", value: "LEVEL"),
            choice(
                "--log-format", \.config.logFormat, cases(of: LogFormat.self), .serve,
                "text, or json: one JSON object per line (time, level, msg) on stderr", value: "FORMAT",
                readme:
                    "`json`: one JSON object per line (`time`, `level`, `msg`) ([operations](docs/operations.md#logs))"),
            file(
                "--metrics-token", \.metricsTokenFile, .serve,
                "/metrics wants Authorization: Bearer with the token on FILE's first line (16+ bytes)",
                default: "off (open)"),
            count(
                "--metrics-top-boards", \.config.hub.metricsTopBoards, 0...1000, .serve,
                "how many of the boards with the most users /metrics names (0: none)"),
            seconds(
                "--hold-timeout", \.config.hub.room.holdTimeout, 0...86_400, .serve,
                "a drag hold ends after this long without hover or drop", above: true),
            bytes(
                "--max-message-bytes", \.config.maxMessageBytes, 256...(64 << 20), .serve,
                "largest client message, across fragments; larger closes with 1009"),
            bytes(
                "--max-pending-bytes", \.config.maxPendingBytes, 4096...(1 << 30), .serve,
                "most bytes of output held for one client; past it closes with 1008"),
            bytes(
                "--max-write-bytes", \.config.maxWriteBytes, 1024...(16 << 20), .serve,
                "most bytes in one socket write; larger messages go in fragments"),
            bytes(
                "--ring-bytes", \.config.ringBytes, 4096...(1 << 30), .serve,
                "most bytes of a board's broadcasts kept for clients behind; further behind, a client gets its own "
                    + "copies"),
            milliseconds(
                "--hover-pacing", \.config.hoverPacing, 0...1000, .serve,
                "while the service thread is saturated, a board's hovers go out at most once per this many "
                    + "milliseconds, with those that came meanwhile; 0: never paced"),
            bytes(
                "--unsent-bytes", \.config.unsentBytes, 0...(1 << 30), .serve,
                "most bytes the kernel holds unsent for one client before more is written (TCP_NOTSENT_LOWAT; 0: "
                    + "the kernel's default)"),
            toggle("--deflate", \.config.deflate, .serve, "offer permessage-deflate"),
            toggle(
                "--webhook-allow-private", \.config.hub.webhookAllowPrivate, .serve,
                "let webhooks post to loopback, private, link-local and unique-local addresses",
                readme:
                    "webhooks may post to loopback, private, link-local and unique-local addresses (refused otherwise, at creation and at each connection) ([operations](docs/operations.md#webhooks))"
            ),
            choice(
                "--event-loop", \.config.eventLoop, cases(of: EventLoop.self), .serve,
                "the loop sockets are waited on: lws's poll(), or libev on epoll", value: "poll|libev",
                readme:
                    "the loop sockets are waited on: lws's poll(), or libev on epoll (needs `libwebsockets-evlib-ev`): far cheaper with many idle connections, slower when every connection is busy ([architecture](docs/architecture.md#the-event-loop))"
            ),
            Setting(
                flag: "--echo-path", value: "PATH", section: .serve,
                help: "also serve a WebSocket echo endpoint at PATH, for conformance tests; not with --deflate",
                readme:
                    "also serve a WebSocket echo endpoint at PATH, for conformance tests ([protocol](docs/protocol.md#echo-endpoint)); not with `--deflate`",
                defaultText: "off"
            ) { options, text throws(UsageError) in
                let path = text ?? ""
                guard path.hasPrefix("/"), path != "/ws", !path.contains("?"), path.utf8.count <= 256 else {
                    throw UsageError(
                        message: "--echo-path must be a path such as /echo, other than /ws, not '\(path.prefix(200))'")
                }
                options.config.echoPath = path
            },
            bytes(
                "--echo-max-message-bytes", \.config.echoMaxMessageBytes, 256...(64 << 20), .serve,
                "largest message the echo endpoint takes; larger closes with 1009"),
            boolean(
                "--create-boards", \.config.hub.createBoards, .serve,
                "create unknown boards on hello; false: they are refused (unknown_board, close 4404)"),
            choice(
                "--default-template", \.config.hub.defaultTemplate, cases(of: Template.self), .serve,
                "what hello makes unknown boards from: colors, strips, paint, playlist, kanban", value: "NAME"),
            count(
                "--history", \.config.hub.room.historyLimit, 1000...1_000_000, .serve,
                "committed ops kept in memory per board, for conflicts and since resumes"),
            count(
                "--snapshot-every", \.snapshotEvery, 1...1_000_000, .serve, "write a board snapshot every N ops"),
            count(
                "--store-pipeline", \.config.storePipeline, 1...16, .serve,
                "with --store postgresql://…: write batches on their way to the database at once, each its own "
                    + "fenced transaction (2 or more for a database whose round trip is long)",
                readme:
                    "with `--store postgresql://…`: fenced write batches kept on their way to the database at once (1–16), each its own transaction, committed and broadcast in order; 2 or more only for a database whose round trip is long next to its commit's flush: on a local one it splits the group commit and loses ([cost per op](docs/cluster.md#cost-per-op))"
            ),
            count(
                "--store-writers", \.config.storeWriters, 1...16, .serve,
                "with --store postgresql://…: writer connections (and threads), each writing its share of the "
                    + "boards as fenced transactions that commit side by side (one with --store-pipeline 2 or more)",
                readme:
                    "with `--store postgresql://…`: writer connections, each with a thread of its own, each writing its share of the boards (always the same boards) in fenced transactions that commit side by side and share PostgreSQL's WAL flushes; one with `--store-pipeline` 2 or more ([cost per op](docs/cluster.md#cost-per-op))"
            ),
            count(
                "--keep-ops", \.keepOps, 1000...100_000_000, .serve,
                "ops the store keeps per board: how far back history, ?at= and restore reach (at least --history), "
                    + "within --keep-op-bytes",
                readme:
                    "ops the store keeps per board: how far back the History panel, `GET /api/boards/{id}?at=SEQ` and `restore` reach (within `--keep-op-bytes`; [architecture](docs/architecture.md#history-the-board-as-of-any-seq-and-restores))"
            ),
            bytes(
                "--keep-op-bytes", \.keepOpBytes, 0...(1 << 40), .serve,
                "bytes of ops the store keeps per board; past it the oldest go, whatever --keep-ops says (0: no "
                    + "bound)", check: atLeastOneMiB),
            bytes(
                "--keep-snapshot-bytes", \.keepSnapshotBytes, 0...(1 << 40), .serve,
                "bytes of snapshots the store keeps per board; past it those between the oldest and the newest are "
                    + "thinned out evenly, and ?at= replays more ops (0: no bound)",
                readme:
                    "bytes of snapshots the store keeps per board: past it snapshots are thinned (and the oldest ops go past `--keep-op-bytes`), so a board of 2.5 MB stays under 64 MB of disk ([operations](docs/operations.md))",
                check: atLeastOneMiB),
        ] + access + proxy
    }

    /// `--keep-*-bytes`: 0 or a mebibyte at least.
    private static func atLeastOneMiB(_ bytes: Int) -> String? {
        bytes == 0 || bytes >= 1 << 20 ? nil : "0 (no bound) or at least 1048576 (1 MiB)"
    }

    /// `--data DIR` and `--store URL`, which exclude each other.
    private static func store(_ options: inout ServeOptions, _ flag: String, _ value: String) throws(UsageError) {
        try StoreLocation.read(flag, value, into: &options.store, given: &options.storeGiven)
    }
}
