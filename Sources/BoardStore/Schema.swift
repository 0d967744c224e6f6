/// The database schema and how to bring an older database up to date.
///
/// `PRAGMA user_version` holds how many migrations a database has had. Opening applies the missing
/// ones, in order, in one transaction; a database with more than this code knows was written by a
/// newer shuffleboard and is refused rather than misread.
enum Schema {
    /// Each migration takes the schema from version `index` to `index + 1`. Only ever append.
    static let migrations: [String] = [
        // 1: boards, their snapshots and op logs.
        """
        CREATE TABLE boards (
            id      TEXT PRIMARY KEY NOT NULL,
            title   TEXT NOT NULL,
            columns INTEGER NOT NULL,
            created INTEGER NOT NULL,          -- milliseconds since 1970
            seq     INTEGER NOT NULL           -- seq of the last stored op
        ) WITHOUT ROWID;
        -- A board keeps two snapshots: its base (the board just before its oldest stored op) and
        -- its latest (where `load` starts replaying). They are one row when they coincide.
        CREATE TABLE snapshots (
            board    TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
            seq      INTEGER NOT NULL,
            snapshot TEXT NOT NULL,            -- the board as JSON, like welcome's "board"
            PRIMARY KEY (board, seq)
        ) WITHOUT ROWID;
        CREATE TABLE ops (
            board  TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
            seq    INTEGER NOT NULL,
            op_id  TEXT NOT NULL,
            user   TEXT NOT NULL,
            type   TEXT NOT NULL,              -- swap, move, toggle
            fields TEXT NOT NULL,              -- the op's own members as a JSON object
            time   INTEGER NOT NULL,           -- milliseconds since 1970
            PRIMARY KEY (board, seq)
        ) WITHOUT ROWID;
        CREATE INDEX ops_by_op_id ON ops (board, op_id);
        """,
        // 2: revoked tokens, kept until they would have expired (Revocation.swift).
        """
        CREATE TABLE revocations (
            id    TEXT PRIMARY KEY NOT NULL,    -- SHA-256 of the token, hex; never the token
            board TEXT,                         -- NULL: a token for every board
            until INTEGER NOT NULL              -- the token's expiry, seconds since 1970
        ) WITHOUT ROWID;
        CREATE INDEX revocations_by_until ON revocations (until);
        """,
        // 3: the sender's name with each op, for history lists ('': not known, ops stored before).
        """
        ALTER TABLE ops ADD COLUMN name TEXT NOT NULL DEFAULT '';
        """,
        // 4: comments on cards (Comments.swift): one row per live comment, keyed by the seq of
        // the op that made it (its id is n<seq>); compaction of the ops leaves them alone.
        """
        CREATE TABLE comments (
            board    TEXT NOT NULL REFERENCES boards(id) ON DELETE CASCADE,
            seq      INTEGER NOT NULL,
            item     TEXT NOT NULL,
            member   TEXT NOT NULL,
            name     TEXT NOT NULL,
            at       INTEGER NOT NULL,          -- milliseconds since 1970
            text     TEXT NOT NULL,             -- Markdown source
            mentions TEXT NOT NULL,             -- {"mentions":[{member, name}]}
            edited   INTEGER NOT NULL,          -- milliseconds since 1970; 0: never
            PRIMARY KEY (board, seq)
        ) WITHOUT ROWID;
        CREATE INDEX comments_by_item ON comments (board, item, seq);
        """,
        // 5: share links made in the app (ShareLink.swift). Never a token: a link row names
        // its token by ids.
        """
        CREATE TABLE links (
            id       TEXT PRIMARY KEY NOT NULL,  -- the token's random id (j)
            board    TEXT NOT NULL,
            role     TEXT NOT NULL,              -- view, edit
            created  INTEGER NOT NULL,           -- seconds since 1970
            expires  INTEGER NOT NULL,           -- the token's expiry, seconds since 1970
            token_id TEXT NOT NULL               -- SHA-256 of the token, hex (its revocation id)
        ) WITHOUT ROWID;
        CREATE INDEX links_by_board ON links (board, expires);
        """,
        // 6: the template a board was made from, for the board list without reading snapshots
        // ('': not made from one, or made before boards kept it).
        """
        ALTER TABLE boards ADD COLUMN template TEXT NOT NULL DEFAULT '';
        """,
        // Webhooks (Webhook.swift): where a board's ops are posted, and the durable cursor of
        // each. A trigger deletes a board's webhooks with the board (a board made again under
        // its id starts with none). 0 and '' stand for "none" in the status columns.
        """
        CREATE TABLE webhooks (
            id            TEXT PRIMARY KEY NOT NULL,  -- random, base64url
            board         TEXT NOT NULL,
            url           TEXT NOT NULL,
            events        TEXT NOT NULL,              -- op types joined by commas, or *
            secret        TEXT NOT NULL,              -- the HMAC key of its signatures
            created       INTEGER NOT NULL,           -- seconds since 1970
            delivered     INTEGER NOT NULL,           -- the cursor: the last seq delivered
            failing_since INTEGER NOT NULL DEFAULT 0,
            last_status   INTEGER NOT NULL DEFAULT 0,
            last_error    TEXT NOT NULL DEFAULT '',
            last_attempt  INTEGER NOT NULL DEFAULT 0,
            disabled      INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE INDEX webhooks_by_board ON webhooks (board, created);
        CREATE TRIGGER webhooks_go_with_their_board AFTER DELETE ON boards
        BEGIN DELETE FROM webhooks WHERE board = old.id; END;
        """,
        // Each member's inbox (Inbox.swift): mentions and assignments, written with the op
        // that made them; ids count up in commit order (AUTOINCREMENT: never reused).
        """
        CREATE TABLE notices (
            id        INTEGER PRIMARY KEY AUTOINCREMENT,
            member    TEXT NOT NULL,              -- whose inbox
            kind      TEXT NOT NULL,              -- mention, assign
            board     TEXT NOT NULL,
            item      TEXT NOT NULL,
            label     TEXT NOT NULL,              -- the card's label then
            by_member TEXT NOT NULL,
            by_name   TEXT NOT NULL,
            at        INTEGER NOT NULL,           -- milliseconds since 1970
            seq       INTEGER NOT NULL,           -- the op that made it
            comment   INTEGER NOT NULL,           -- a mention's comment (its seq); 0 for assign
            read      INTEGER NOT NULL DEFAULT 0
        );
        CREATE INDEX notices_by_member ON notices (member, id);
        """,
        // The search index (Search.swift): one document per card (seq 0), comment (its seq)
        // and board title (item ''), kept in the transaction of the ops that change them, and
        // FTS5 over their label and body. `boards.indexed` is the seq the board's documents are
        // of; -1 (every board a database had before): rebuilt from the log at the next open.
        """
        CREATE TABLE search_docs (
            id       INTEGER PRIMARY KEY,
            board    TEXT NOT NULL,
            item     TEXT NOT NULL,             -- '' for the board's title
            seq      INTEGER NOT NULL,          -- the comment's op; 0 for a card or the title
            archived INTEGER NOT NULL,
            label    TEXT NOT NULL,
            body     TEXT NOT NULL
        );
        CREATE UNIQUE INDEX search_docs_by_key ON search_docs (board, item, seq);
        CREATE VIRTUAL TABLE search_fts USING fts5(
            label, body, content = 'search_docs', content_rowid = 'id',
            tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
        CREATE TRIGGER search_docs_ai AFTER INSERT ON search_docs BEGIN
            INSERT INTO search_fts (rowid, label, body) VALUES (new.id, new.label, new.body);
        END;
        CREATE TRIGGER search_docs_ad AFTER DELETE ON search_docs BEGIN
            INSERT INTO search_fts (search_fts, rowid, label, body) VALUES ('delete', old.id, old.label, old.body);
        END;
        CREATE TRIGGER search_docs_au AFTER UPDATE ON search_docs BEGIN
            INSERT INTO search_fts (search_fts, rowid, label, body) VALUES ('delete', old.id, old.label, old.body);
            INSERT INTO search_fts (rowid, label, body) VALUES (new.id, new.label, new.body);
        END;
        ALTER TABLE boards ADD COLUMN indexed INTEGER NOT NULL DEFAULT -1;
        """,
        // Roles given to members on a board (MemberGrant.swift), for people a trusted proxy
        // signs in; deleted with their board.
        """
        CREATE TABLE grants (
            board   TEXT NOT NULL,
            member  TEXT NOT NULL,
            role    TEXT NOT NULL,              -- view, edit, admin
            granted INTEGER NOT NULL,           -- seconds since 1970
            PRIMARY KEY (board, member)
        ) WITHOUT ROWID;
        """,
    ]

    /// The version this code writes.
    static var current: Int { migrations.count }

    /// Brings the database up to `current`, or throws when it is newer than that.
    static func migrate(_ db: SQLiteConnection) throws(StoreError) {
        // Checked before and inside the write transaction: another process may have migrated meanwhile.
        try checkNotNewer(db)
        try db.transaction(.immediate) { () throws(StoreError) in
            let version = try checkNotNewer(db)
            guard version < current else { return }
            for migration in migrations[version...] { try db.execute(migration) }
            try db.execute("PRAGMA user_version = \(current)")
        }
    }

    /// Throws unless the database is at exactly `current` (for read-only use, which cannot migrate).
    static func checkCurrent(_ db: SQLiteConnection) throws(StoreError) {
        let version = try checkNotNewer(db)
        guard version == current else {
            throw StoreError(
                "\(db.path) has schema version \(version), older than this shuffleboard's (\(current)); "
                    + "open it read-write once (start the server on it) to upgrade it")
        }
    }

    @discardableResult
    private static func checkNotNewer(_ db: SQLiteConnection) throws(StoreError) -> Int {
        let version = try db.int("PRAGMA user_version") ?? 0
        guard version <= current else {
            throw StoreError(
                "\(db.path) has schema version \(version), newer than this shuffleboard understands (\(current)); "
                    + "use a newer shuffleboard or another data directory")
        }
        return version
    }
}
