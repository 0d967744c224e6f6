/// The PostgreSQL schema and how to bring an older database up to date.
///
/// `schema_version` holds how many migrations a database has had. Opening applies the missing
/// ones, in order, in one transaction that holds an advisory lock, so that several nodes starting
/// at once on a new database migrate it once and none of them fails; a database with more than
/// this code knows was written by a newer shuffleboard and is refused rather than misread.
enum PostgresSchema {
    /// Each migration takes the schema from version `index` to `index + 1`. Only ever append.
    static let migrations: [String] = [
        // 1: boards, their snapshots and op logs, as in SQLite; leases, nodes and the cluster secret.
        // Client text (titles, op ids, user ids) and JSON are bytea, stored by their bytes: PostgreSQL's
        // text cannot hold NUL. Board ids are text in the "C" collation, so that they sort by bytes.
        """
        CREATE TABLE boards (
            id      text COLLATE "C" PRIMARY KEY,
            title   bytea NOT NULL,
            columns int8 NOT NULL,
            created int8 NOT NULL,                 -- milliseconds since 1970
            seq     int8 NOT NULL                  -- seq of the last stored op
        );
        -- A board keeps two snapshots: its base (the board just before its oldest stored op) and
        -- its latest (where `load` starts replaying). They are one row when they coincide.
        CREATE TABLE snapshots (
            board    text COLLATE "C" NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
            seq      int8 NOT NULL,
            snapshot bytea NOT NULL,               -- the board as JSON, like welcome's "board"
            PRIMARY KEY (board, seq)
        );
        CREATE TABLE ops (
            board  text COLLATE "C" NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
            seq    int8 NOT NULL,
            op_id  bytea NOT NULL,
            "user" bytea NOT NULL,
            type   text NOT NULL,                  -- swap, move, toggle
            fields bytea NOT NULL,                 -- the op's own members as a JSON object
            time   int8 NOT NULL,                  -- milliseconds since 1970
            PRIMARY KEY (board, seq)
        );
        -- The nodes of the cluster, as each last renewed.
        CREATE TABLE nodes (
            name      text PRIMARY KEY,
            advertise text NOT NULL,               -- HOST:PORT other nodes reach it at
            last_seen timestamptz NOT NULL
        );
        -- One owner per board. No foreign key: a lease may cover a board about to be created. A
        -- stored board's lease outlives its releases, so its epoch only grows; the lease of a board
        -- the store does not have is deleted when released (PostgresStore.release says why that is safe).
        CREATE TABLE leases (
            board      text COLLATE "C" PRIMARY KEY,
            node       text NOT NULL,
            epoch      int8 NOT NULL,              -- the fencing token: +1 each time the lease changes hands
            expires_at timestamptz NOT NULL        -- by the database's clock only
        );
        CREATE INDEX leases_by_node ON leases (node);
        -- The secret nodes authenticate forwarded connections with, made by the first node.
        CREATE TABLE cluster_secret (
            id     int4 PRIMARY KEY CHECK (id = 1),
            secret bytea NOT NULL
        );
        """,
        // 2: revoked tokens, kept until they would have expired (Revocation.swift).
        """
        CREATE TABLE revocations (
            id    text PRIMARY KEY,                -- SHA-256 of the token, hex; never the token
            board text COLLATE "C" NOT NULL,       -- '': a token for every board
            until int8 NOT NULL                    -- the token's expiry, seconds since 1970
        );
        CREATE INDEX revocations_by_until ON revocations (until);
        """,
        // 3: the sender's name with each op, for history lists ('': not known, ops stored before).
        """
        ALTER TABLE ops ADD COLUMN name bytea NOT NULL DEFAULT '';
        """,
        // 4: the fence of a batch as one statement (PostgresWriter), so that a batch's transaction
        // can go to the server in one pipeline: it locks the boards' lease rows in board order (as
        // the renewal does, so the two never deadlock) and raises SQLSTATE SBF01 (fencedState)
        // unless each lease is this node's, at the epoch given, unexpired by the database's clock,
        // and each board's stored seq is the one given. Raising aborts the transaction, and the
        // rest of the pipeline with it, COMMIT included.
        """
        CREATE FUNCTION shuffleboard_fence(wanted_boards text[], wanted_node text, wanted_epochs int8[], wanted_seqs int8[])
        RETURNS void LANGUAGE plpgsql AS $fence$
        DECLARE
            wanted record;
            held record;
            reason text;
        BEGIN
            PERFORM 1 FROM leases WHERE board = ANY (wanted_boards) ORDER BY board FOR UPDATE;
            FOR wanted IN SELECT * FROM unnest(wanted_boards, wanted_epochs, wanted_seqs) AS w (board, epoch, seq) LOOP
                SELECT l.node, l.epoch, l.expires_at > now() AS live, b.seq AS stored INTO held
                    FROM leases l LEFT JOIN boards b ON b.id = l.board WHERE l.board = wanted.board;
                IF NOT FOUND THEN
                    reason := 'nobody holds its lease';
                ELSIF held.node <> wanted_node THEN
                    reason := format('node %s holds its lease', held.node);
                ELSIF held.epoch <> wanted.epoch THEN
                    reason := format('its lease is at epoch %s, not %s', held.epoch, wanted.epoch);
                ELSIF NOT held.live THEN
                    reason := 'its lease ran out';
                ELSIF held.stored IS NULL THEN
                    reason := 'it does not exist';
                ELSIF held.stored <> wanted.seq THEN
                    reason := format('the batch starts at seq %s but the stored seq is %s', wanted.seq + 1, held.stored);
                END IF;
                IF reason IS NOT NULL THEN
                    RAISE EXCEPTION USING ERRCODE = 'SBF01', MESSAGE = format('board %s is fenced (%s)', wanted.board, reason);
                END IF;
            END LOOP;
        END
        $fence$;
        """,
        // 5: comments on cards (Comments.swift): one row per live comment, keyed by the seq of
        // the op that made it (its id is n<seq>); compaction of the ops leaves them alone.
        """
        CREATE TABLE comments (
            board    text COLLATE "C" NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
            seq      int8 NOT NULL,
            item     text COLLATE "C" NOT NULL,
            member   text NOT NULL,
            name     bytea NOT NULL,
            at       int8 NOT NULL,                 -- milliseconds since 1970
            text     bytea NOT NULL,                -- Markdown source
            mentions bytea NOT NULL,                -- {"mentions":[{member, name}]}
            edited   int8 NOT NULL,                 -- milliseconds since 1970; 0: never
            PRIMARY KEY (board, seq)
        );
        CREATE INDEX comments_by_item ON comments (board, item, seq);
        """,
        // 6: share links made in the app (ShareLink.swift). Never a token: a link row names
        // its token by ids.
        """
        CREATE TABLE links (
            id       text PRIMARY KEY,               -- the token's random id (j)
            board    text COLLATE "C" NOT NULL,
            role     text NOT NULL,                  -- view, edit
            created  int8 NOT NULL,                  -- seconds since 1970
            expires  int8 NOT NULL,                  -- the token's expiry, seconds since 1970
            token_id text NOT NULL                   -- SHA-256 of the token, hex (its revocation id)
        );
        CREATE INDEX links_by_board ON links (board, expires);
        """,
        // 7: the template a board was made from, for the board list without reading snapshots
        // ('': not made from one, or made before boards kept it).
        """
        ALTER TABLE boards ADD COLUMN template text NOT NULL DEFAULT '';
        """,
        // Webhooks (Webhook.swift): where a board's ops are posted, and the durable cursor of
        // each; they go with their board. 0 and '' stand for "none" in the status columns.
        """
        CREATE TABLE webhooks (
            id            text PRIMARY KEY,
            board         text COLLATE "C" NOT NULL REFERENCES boards (id) ON DELETE CASCADE,
            url           text NOT NULL,
            events        text NOT NULL,             -- op types joined by commas, or *
            secret        text NOT NULL,             -- the HMAC key of its signatures
            created       int8 NOT NULL,             -- seconds since 1970
            delivered     int8 NOT NULL,             -- the cursor: the last seq delivered
            failing_since int8 NOT NULL DEFAULT 0,
            last_status   int8 NOT NULL DEFAULT 0,
            last_error    text NOT NULL DEFAULT '',
            last_attempt  int8 NOT NULL DEFAULT 0,
            disabled      int8 NOT NULL DEFAULT 0    -- 1: failing for 72 h, not delivered
        );
        CREATE INDEX webhooks_by_board ON webhooks (board, created);
        """,
        // Each member's inbox (Inbox.swift), shared by every node. Ids come from the one row
        // of inbox_counter, which a writing transaction holds locked until it ends: ids count up
        // in commit order, so a node that read up to an id missed none below it.
        """
        CREATE TABLE notices (
            id        int8 PRIMARY KEY,
            member    text COLLATE "C" NOT NULL,  -- whose inbox
            kind      text NOT NULL,              -- mention, assign
            board     text COLLATE "C" NOT NULL,
            item      text COLLATE "C" NOT NULL,
            label     bytea NOT NULL,             -- the card's label then
            by_member text NOT NULL,
            by_name   bytea NOT NULL,
            at        int8 NOT NULL,              -- milliseconds since 1970
            seq       int8 NOT NULL,              -- the op that made it
            comment   int8 NOT NULL,              -- a mention's comment (its seq); 0 for assign
            read      int8 NOT NULL DEFAULT 0
        );
        CREATE INDEX notices_by_member ON notices (member, id);
        CREATE TABLE inbox_counter (next int8 NOT NULL);
        INSERT INTO inbox_counter (next) VALUES (0);
        """,
        // The search index (Search.swift), as SQLite's: one document per card (seq 0),
        // comment (its seq) and board title (item ''), kept in the transaction of the ops that
        // change them. `doc` is the label (weight A) and the body (B) in the 'simple' configuration
        // (no stemming, no stop words: a word matches the words it begins, as in SQLite), with a
        // GIN index. `boards.indexed`: the seq the board's documents are of (-1: rebuilt at open).
        """
        CREATE TABLE search_docs (
            board    text COLLATE "C" NOT NULL,
            item     text COLLATE "C" NOT NULL,    -- '' for the board's title
            seq      int8 NOT NULL,                -- the comment's op; 0 for a card or the title
            archived bool NOT NULL,
            label    text NOT NULL,
            body     text NOT NULL,
            doc      tsvector NOT NULL,
            PRIMARY KEY (board, item, seq)
        );
        CREATE INDEX search_docs_by_doc ON search_docs USING gin (doc);
        ALTER TABLE boards ADD COLUMN indexed int8 NOT NULL DEFAULT -1;
        """,
        // Roles given to members on a board (MemberGrant.swift), for people a trusted proxy
        // signs in; deleted with their board.
        """
        CREATE TABLE grants (
            board   text COLLATE "C" NOT NULL,
            member  text COLLATE "C" NOT NULL,
            role    text NOT NULL,                 -- view, edit, admin
            granted int8 NOT NULL,                 -- seconds since 1970
            PRIMARY KEY (board, member)
        );
        """,
    ]

    /// The SQLSTATE `shuffleboard_fence` raises when a board is fenced (class SB is no standard one).
    static let fencedState = "SBF01"

    /// The version this code writes.
    static var current: Int { migrations.count }

    /// The `pg_advisory_xact_lock` key that serialises migrations: "shuffleb" in ASCII.
    static let lockKey = 0x7368_7566_666c_6562

    /// Throws unless the database is at exactly `current` (for export, which must change nothing).
    static func checkCurrent(_ db: PostgresConnection) throws(StoreError) {
        let version = try db.transaction(begin: "BEGIN READ ONLY") { () throws(StoreError) -> Int in
            let exists = try db.int("SELECT count(*) FROM pg_tables WHERE tablename = 'schema_version'") ?? 0
            return exists == 0 ? 0 : try db.int("SELECT max(version) FROM schema_version") ?? 0
        }
        guard version == current else {
            throw StoreError(
                "\(db.location) has schema version \(version), not this shuffleboard's (\(current)); "
                    + "start a server of this version on it once to upgrade it")
        }
    }

    /// Brings the database up to `current`, or throws when it is newer than that.
    static func migrate(_ db: PostgresConnection) throws(StoreError) {
        try db.transaction { () throws(StoreError) in
            try db.query("SELECT pg_advisory_xact_lock($1)", [.int(lockKey)])
            try db.execute("CREATE TABLE IF NOT EXISTS schema_version (version int8 NOT NULL)")
            try db.query("INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS (SELECT FROM schema_version)")
            let version = try db.int("SELECT max(version) FROM schema_version") ?? 0
            guard version <= current else {
                throw StoreError(
                    "\(db.location) has schema version \(version), newer than this shuffleboard understands "
                        + "(\(current)); use a newer shuffleboard or another database")
            }
            guard version < current else { return }
            for migration in migrations[version...] { try db.execute(migration) }
            try db.query("UPDATE schema_version SET version = $1", [.int(current)])
        }
    }
}
