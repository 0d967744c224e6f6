internal import BoardCore
internal import BoardHub

/// The log lines clients cause on the transport side (refused frames, full queues, bad headers),
/// within a budget (`LogBudget` at the hub's `logRate`, the same rate as the hub's own client
/// lines), so that no client can flood the log. Every part writes such lines through here.
/// Confined to the service thread.
final class ClientLog {
    let log: Logger
    private let rate: Rate
    private var budget: LogBudget?

    init(_ log: Logger, rate: Rate) {
        self.log = log
        self.rate = rate
    }

    /// A warning a client caused, within the budget.
    func warning(_ line: @autoclosure () -> String) { write(.warning, line()) }

    /// A line a client caused, within the budget. A line below the log level is not made and
    /// uses none of the budget.
    func write(_ level: LogLevel, _ line: @autoclosure () -> String) {
        guard log.writes(level) else { return }
        let now = Clock.now()
        if budget == nil { budget = LogBudget(rate, now: now) }
        if let report = budget!.report(now: now) { log.warning(report) }
        guard budget!.allows(now: now) else { return }
        log.log(level, line())
    }
}
