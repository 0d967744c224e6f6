extension CommandLineParser {
    /// The text `--help` prints.
    static let usage = """
        shuffleboard \(version): a real-time collaborative board server

        USAGE:
          shuffleboard serve [options]         run the server
          shuffleboard export BOARD [--data DIR | --store URL]   print a board (snapshot and op log) as JSON
          shuffleboard import FILE [--data DIR | --store URL] [--replace]   load a board exported before
          shuffleboard token BOARD --auth-secret FILE [--role view|edit|admin] [--ttl 24h] [--name NAME]
                       [--user ID]             print an access token for BOARD (* for every board); --user
                                               names the person (sub): assignees and history use it
          shuffleboard revoke TOKEN --auth-secret FILE [--data DIR | --store URL]
                                               refuse TOKEN from now on, on every node (a running server
                                               sees it within a second; a SQLite directory must not be in use)
          shuffleboard --help | --version

        SERVE OPTIONS:
          --host ADDR               interface to listen on (default 127.0.0.1)
          --port N                  port; 0 picks a free one and logs it (default 8080)
          --data DIR                where boards are stored (default ./data, created if missing)
          --store URL               postgresql://USER@HOST:PORT/DB keeps boards in PostgreSQL, shared by the
                                    nodes of a cluster (see CLUSTER below); sqlite:DIR is --data DIR
          --memory                  keep everything in memory; nothing survives a restart
          --web DIR                 the web client folder served at / (default ./web if present)
          --log-level LEVEL         debug, info, warning or error (default info)
          --log-format FORMAT       text or json: one line (or one JSON object) per event on stderr (default text)
          --metrics-token FILE      /metrics wants Authorization: Bearer with the token in FILE (default: open)
          --metrics-top-boards N    how many of the busiest boards /metrics names with their users (default 10)
          --hold-timeout SECONDS    a drag hold ends after this long without hover or drop (default 30)
          --max-message-bytes N     largest client message; larger closes with 1009 (default 65536)
          --max-pending-bytes N     most bytes of output held for one client; past it closes with 1008 (default 4194304)
          --max-write-bytes N       most bytes in one socket write; larger messages go in fragments (default 16384)
          --ring-bytes N            most bytes of a board's broadcasts kept for clients behind; further behind,
                                    a client gets its own copies (default 1048576)
          --hover-pacing MS         while the service thread is saturated, a board's hovers go out at most once
                                    per this many milliseconds, with those that came meanwhile; 0: never paced
                                    (default 2)
          --unsent-bytes N          most bytes the kernel holds unsent for one client before more is written
                                    (TCP_NOTSENT_LOWAT; 0: the kernel's default) (default 65536)
          --deflate                 offer permessage-deflate (off by default)
          --event-loop poll|libev   the loop sockets are waited on (default poll)
          --echo-path PATH          also serve a WebSocket echo endpoint at PATH, for conformance tests (off by default)
          --echo-max-message-bytes N  largest message the echo endpoint takes; larger closes with 1009 (default 16777216)
          --create-boards BOOL      create unknown boards on hello (default true)
          --default-template NAME   what hello makes unknown boards from: colors, strips, paint, playlist,
                                    kanban (default colors)
          --history N               committed ops kept in memory per board (default 10000, at least 1000)
          --snapshot-every N        write a board snapshot every N ops (default 100)
          --store-pipeline N        with --store postgresql://…: write batches on their way to the database
                                    at once, each its own fenced transaction (default 1; 2 or more for a
                                    database whose round trip is long)
          --keep-ops N              ops the store keeps per board: how far back history, ?at= and restore
                                    reach (default 10000, at least --history), within --keep-op-bytes
          --keep-op-bytes N         bytes of ops the store keeps per board; past it the oldest go, whatever
                                    --keep-ops says (default 16777216; 0: no bound)
          --keep-snapshot-bytes N   bytes of snapshots the store keeps per board; past it those between the
                                    oldest and the newest are thinned out evenly, and ?at= replays more ops
                                    (default 16777216; 0: no bound)
          --auth-secret FILE        require access tokens (one secret per line; the first signs, all verify)
          --allow-origin ORIGIN     accept WebSocket upgrades, and API writes that carry an Origin, only from
                                    this Origin (repeatable; default any)
          --allow-no-origin         with --allow-origin, also accept WebSocket upgrades without Origin
                                    (clients that are not browsers; off by default)
          --trusted-proxy IP        a reverse proxy (HAProxy) whose X-Forwarded-For names the client (repeatable)
          --tls-cert FILE --tls-key FILE   serve https:// and wss:// with this PEM certificate and key
                                    (in a cluster, forwarding to the other nodes goes over TLS too)
          --cluster-ca FILE         with --tls-cert: trust only the nodes whose certificate this PEM
                                    authority signed for their --advertise address (default: the
                                    system's trusted authorities)
          --cluster-key FILE        the keys nodes present to each other, one per line in hex (at least
                                    32 digits): this node presents the first and accepts every one (to
                                    rotate: docs/cluster.md; SIGHUP reads it again); default: the
                                    key kept in the database

        LIMITS (0 turns a limit off):
          --hello-timeout SECONDS   close a connection that sends no hello in time with 4408 (default 10)
          --hold-lifetime SECONDS   a drag hold ends after this long however active (default 120)
          --hold-cooldown SECONDS   after a hold expires, its holder's address may not take that item again
                                    for this long, and those refused while it was held go first (default 10)
          --max-holds-per-address N   items one client address may hold at once on a board (default 8)
          --op-rate N               ops per second per connection, bursts of 2N (default 100)
          --message-rate N          other messages per second per connection, bursts of 2N (default 200)
          --max-connections-per-address N   open WebSockets per client address, else close 4429
                                    (default 64); with the next, all connections counted at accept
          --max-pending-per-address N   connections per address not yet upgraded to WebSocket (TCP,
                                    TLS, HTTP); more, or more than the sum of both caps in all,
                                    are closed at accept (default 32)
          --first-byte-timeout SECONDS   close a connection that sends no byte in time (default 5)
          --connect-rate N          new connections per second per address, bursts of 2N (default 20)
          --board-creations N       new boards per minute that hello may make per address (default 30)
          --max-users-per-board N   users on one board; more get board_full, 4409 (default 10000)
          --max-boards N            boards in memory; a hello for another gets 1013 (default 10000)
          --max-board-bytes N       most bytes of one board's JSON snapshot; ops that would grow
                                    it past this get board_full (default 4194304, at least 65536)
          --max-unstored-ops N      ops of one board waiting for a failing store; more get
                                    unavailable at once (default 1000, 0: no limit)
          --presence-limit N        users above which a board sends presence counts, not joins (default 50)
          --shutdown-write-retry SECONDS   how long stopping retries a failing store write before
                                    dropping the unacknowledged writes (default 5)
          --http-timeout SECONDS    time for an HTTP request's headers, then for its body and answer (default 15)
          --max-header-bytes N      most bytes of HTTP request headers; more closes the connection (default 8192)
          --max-header-buffers N    most connections sending request headers at once; others wait (default 1024)
          --max-page-bytes N        most bytes of one page of GET /api/boards/ID/ops; the page stops early
                                    with "more" and "next" (default 1048576)
          --max-http-answer-bytes N  most bytes of HTTP answers held for clients at once, over all
                                    connections; a read past it gets 503 busy (default 268435456)
          --stream-keepalive SECS   a comment line on a quiet event stream this often (default 15)
          --max-stream-seconds N    an event stream ends after N s (its client resumes with
                                    Last-Event-ID; 0: never; default 0)
          --stream-stall-seconds N  an event stream that takes nothing of what is queued for it
                                    for N s is dropped (0: never; default 30)
          --max-streams N           event streams (GET /api/boards/ID/events) open at once; past it,
                                    503 busy (0: no limit; default 10000)
          --max-streams-per-address N  event streams open at once per client address; past it, 429
                                    (0: no limit; default 16)
          --max-history-reads N     history reads (?at=, /history) waiting for the store at once; past it,
                                    503 busy (0: no limit; default 16)
          --max-history-reads-per-address N  the same per client address; past it, 429 (0: no limit; default 4)

        CLUSTER (with a shared store; see docs/architecture.md):
          --node NAME               this node's name: letters, digits, . _ - (default HOSTNAME-PID)
          --advertise IP:PORT       how the other nodes reach this one (default 127.0.0.1:PORT of --port)
          --lease SECONDS           how long a board's lease lasts; renewed every third of it (default 5)
          --forward-timeout SECONDS  time for a forwarded connection to reach its board's owner; an owner
                                    that answers no ping for twice this long is given up (default 3)
          --node-links on|off       forward a board's clients over one link per owner and board (default
                                    on); off: one upstream per client, for nodes without /node.v1
        """
}
