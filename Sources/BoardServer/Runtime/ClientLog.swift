internal import BoardCore
internal import BoardHub

/// The log lines clients cause on the transport side (refused frames, full queues, bad headers),
/// within the hub's budget of such lines (`Hub.logBudget`, at `logRate`): one budget for the
/// hub's client lines and the transport's, so that no client can flood the log, nor get twice
/// the rate by causing lines on both sides. Every part writes such lines through here.
/// Confined to the service thread.
final class ClientLog {
    let log: Logger
    private let budget: ClientLineBudget

    init(_ log: Logger, budget: ClientLineBudget) {
        self.log = log
        self.budget = budget
    }

    /// A warning a client caused, within the budget.
    func warning(_ line: @autoclosure () -> String) { write(.warning, line()) }

    /// A line a client caused, within the budget. A line below the log level is not made and
    /// uses none of the budget.
    func write(_ level: LogLevel, _ line: @autoclosure () -> String) {
        guard log.writes(level) else { return }
        let now = Clock.now()
        if let report = budget.report(now: now) { log.warning(report) }
        guard budget.allows(now: now) else { return }
        log.log(level, line())
    }
}
