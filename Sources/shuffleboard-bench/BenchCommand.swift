/// A benchmark run by name (`shuffleboard-bench NAME [options]`): its options parsed from the
/// arguments after the name (nil on a bad one, and `usage` is printed), then run.
protocol BenchCommand {
    /// One line: the command and its options.
    static var usage: String { get }
    /// Parses the arguments after the command's name; nil on a bad one.
    init?(arguments: ArraySlice<String>)
    /// Runs the benchmark, printing its figures.
    func run() async throws
}

/// A benchmark whose options are a table over its fields (`BenchOption`): it starts from its
/// fields' defaults and each option given sets one.
protocol TabledBenchCommand: BenchCommand {
    /// Every field at its default.
    init()
    /// The options it takes.
    static var options: [BenchOption<Self>] { get }
}

extension TabledBenchCommand {
    /// Its fields' defaults, with the options in `arguments` set; nil on a bad one.
    init?(arguments: ArraySlice<String>) {
        self.init()
        guard BenchOption.parse(arguments, into: &self, Self.options) else { return nil }
    }
}

/// The benchmark named `name`; without a name the program measures committed ops and fan-out
/// (main.swift).
func benchCommand(named name: String) -> (any BenchCommand.Type)? {
    switch name {
    case "scenarios": Scenarios.self
    case "store": StoreWrites.self
    case "history": HistoryBench.self
    case "big-boards": BigBoards.self
    case "big-search": BigSearch.self
    case "http-stall": HTTPStall.self
    case "events": Events.self
    case "history-joins": HistoryJoins.self
    case "join-stall": JoinStall.self
    default: nil
    }
}

extension Scenarios: BenchCommand {}
extension StoreWrites: TabledBenchCommand {}
extension HistoryBench: TabledBenchCommand {}
extension BigBoards: BenchCommand {}
extension BigSearch: TabledBenchCommand {}
extension HTTPStall: TabledBenchCommand {}
extension Events: TabledBenchCommand {}
extension HistoryJoins: TabledBenchCommand {}
extension JoinStall: TabledBenchCommand {}
