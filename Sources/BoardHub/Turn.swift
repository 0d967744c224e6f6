internal import BoardCore

/// The handling of one event: its time (with the hub's durations in the units of that time, and
/// the server's stalled time so far), the hub's phase (serving, stopping, stopped), and what the
/// hub and its sub-machines decide: actions and log lines, in order, and counts in the hub's
/// metric families. Every sub-machine writes here and may ask whether the hub is stopping;
/// `Hub.handle` begins a turn before it routes an event and takes the actions after.
/// Confined to the service thread (with the hub).
final class Turn {
    /// The time of the event being handled.
    private(set) var now = Instant(milliseconds: 0)
    /// The wall-clock time of the event being handled.
    private(set) var wall = UnixTime(milliseconds: 0)
    /// The milliseconds the server has been stalled so far (gaps between events over
    /// `stallAfter`), which the clients' rate buckets are not charged for (`TokenBucket`).
    private(set) var stalled: Int64 = 0
    /// When the last event was handled.
    private var lastEvent: Instant?
    /// Serving, stopping (closing everything, until the grace period is over) or stopped; the
    /// hub's shutdown alone changes it (Hub.swift: `beginShutdown`, `stop`).
    private(set) var lifecycle = Hub.Lifecycle.serving
    /// What has been decided so far; `take` returns and clears it.
    private var actions: [Hub.Action] = []
    private let logLevel: LogLevel
    /// The config's durations, converted once for the timers.
    let timers: Hub.Timers
    /// The hub's metric families, in the registry the transport's join (Hub+Metrics.swift).
    let meters: HubMeters
    /// Bounds the log lines clients cause, the hub's and the transport's (`ClientLog`) together.
    let logBudget: ClientLineBudget

    init(_ config: Hub.Config, meters: HubMeters) {
        logLevel = config.logLevel
        timers = Hub.Timers(config)
        self.meters = meters
        logBudget = ClientLineBudget(config.logRate)
    }

    /// Starts an event at `now` and `wall`; returns the stall it ended, in milliseconds (nil: none).
    /// A gap since the last event longer than `stallAfter` was a stall: the service thread was
    /// busy (or the process stopped) and the clients' messages of that time wait to be handled now.
    func begin(now: Instant, wall: UnixTime) -> Int64? {
        self.now = now
        self.wall = wall
        defer { lastEvent = now }
        guard timers.stallAfter > .zero, let lastEvent, now > lastEvent + timers.stallAfter else { return nil }
        stalled += now - lastEvent
        return now - lastEvent
    }

    /// True once shutdown has begun (stopping or stopped).
    var stopping: Bool { lifecycle != .serving }

    /// Shutdown began: whatever is still open at `deadline` is left behind.
    func stop(at deadline: Instant) { lifecycle = .stopping(until: deadline) }

    /// `.stop` is emitted: nothing more happens.
    func stopped() { lifecycle = .stopped }

    /// The actions decided, in order; the turn starts empty again.
    func take() -> [Hub.Action] {
        // Not removeAll(keepingCapacity:): the returned array shares the storage, so that would
        // allocate a new buffer as large as the largest burst of actions ever, on every event.
        defer { actions = [] }
        return actions
    }

    func emit(_ action: Hub.Action) { actions.append(action) }

    /// A log line, within the budget of lines clients can cause.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= logLevel else { return }
        guard logBudget.allows(now: now) else { return }
        actions.append(.log(level, message()))
    }

    /// A log line outside the budget (the budget's own report).
    func logUnbudgeted(_ level: LogLevel, _ message: String) { actions.append(.log(level, message)) }
}
