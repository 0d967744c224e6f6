internal import BoardCore

/// The open-file limit at accept: which accepted sockets are refused for lack of descriptors, and
/// the log lines that say so. Confined to the service thread; the clock is passed in.
///
/// `Server.createContext` sizes lws's fd table `reserve` below the process's open-file limit
/// (the limit lws is given as `fd_limit_per_thread`): lws never makes a connection of a
/// descriptor above its table, so those `reserve` stay for the store (SQLite's database, WAL,
/// shared memory and temporary files; PostgreSQL's sockets), the log, the static files the
/// server reads, and the accept of a socket only to close it. Within the table, `headroom`
/// descriptors are kept for the connections the server opens itself (upstreams and node links
/// to boards' owners). The kernel hands out the lowest free descriptor, so an accepted socket
/// numbered at or above `ceiling` means every descriptor below it is open: the socket is closed
/// before a byte is read (the client sees its connection closed at once, not a silent wait in
/// the listen backlog), counted (`shuffleboard_connections_refused_total{reason="fd_limit"}`),
/// and logged: at the first refusal, then at most once every `logEvery` with the count since,
/// and once accepts resume, with the count not yet logged.
struct FileLimit {
    /// Whether the last accepted socket was refused.
    enum Phase: Equatable {
        case accepting
        case refusing
    }

    /// Descriptors above lws's fd table.
    static let reserve = 64
    /// Descriptors at the top of lws's table that accepted sockets do not take.
    static let headroom = 8
    /// The shortest time between two log lines.
    static let logEvery = Instant.Span(milliseconds: 10_000)
    /// The most open files the server raises its soft limit to (`raisedSoftLimit`): the kernel's
    /// default `fs.nr_open`, past which `setrlimit` fails anyway. lws writes two 8-byte entries
    /// per descriptor of its table at start (`lws_lookup` and the poll array): 1.6 MB at a limit
    /// of 100,000, 16 MB at this bound, so a hard limit of "infinity" does not cost gigabytes.
    static let maximum: UInt64 = 1 << 20

    /// The soft open-file limit to ask for, given the current `soft` and `hard` limits: the hard
    /// one, at most `maximum`; never below `soft` (a soft limit someone set higher stays).
    static func raisedSoftLimit(soft: UInt64, hard: UInt64) -> UInt64 { max(soft, min(hard, maximum)) }

    /// The process's open-file limit.
    let limit: Int
    /// The first descriptor an accepted socket is refused at.
    let ceiling: Int32
    private(set) var phase = Phase.accepting
    private var lastLine: Instant?
    /// Refusals since the last line.
    private var unlogged = 0

    /// The limit for a process allowed `limit` open files; lws's table is `limit - reserve`.
    init(limit: Int) {
        self.limit = limit
        ceiling = Int32(max(1, limit - Self.reserve - Self.headroom))
    }

    /// The fd table size (and per-thread limit) lws is given.
    static func table(for limit: Int) -> Int { limit - reserve }

    /// Whether a socket accepted as `descriptor` is refused.
    func refuses(_ descriptor: Int32) -> Bool { descriptor >= ceiling }

    /// A socket was refused at `now`; the line to log, if one is due.
    mutating func refused(now: Instant) -> String? {
        unlogged += 1
        defer { phase = .refusing }
        guard isDue(now) else { return nil }
        let line =
            phase == .accepting
            ? "at the open-file limit (\(limit), \(Self.reserve + Self.headroom) kept for the store, the log, "
                + "the listener and the server's own connections): refusing new connections at accept"
                + (unlogged > 1 ? " (\(unlogged) refused since the last line)" : "")
            : "still at the open-file limit (\(limit)): \(unlogged) connection(s) refused at accept in the last "
                + "\((now - (lastLine ?? now)) / 1000) s"
        return logged(line, now: now)
    }

    /// A socket was accepted at `now`; the line to log, if refusals end an episode and one is due.
    mutating func accepted(now: Instant) -> String? {
        guard phase == .refusing, isDue(now) else { return nil }
        phase = .accepting
        guard unlogged > 0 else { return nil }
        return logged(
            "below the open-file limit (\(limit)) again: accepting connections; \(unlogged) refused at accept "
                + "since the last line", now: now)
    }

    private func isDue(_ now: Instant) -> Bool {
        guard let lastLine else { return true }
        return now >= lastLine + Self.logEvery
    }

    private mutating func logged(_ line: String, now: Instant) -> String {
        lastLine = now
        unlogged = 0
        return line
    }
}
