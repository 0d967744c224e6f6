/// The labels of one metric family's series: fixed label names, and values the server chooses.
///
/// A label value is never a string a client sent: label types are enums of the server's own
/// reasons and codes (or, for the top boards, validated board ids, at most N of them), so the
/// number of series is bounded whatever clients do.
///
/// Public (as `Counter` and its `add`), only so that other modules may specialize `add`.
public protocol MetricLabels: Hashable, Sendable {
    /// The label names, in order.
    static var names: [String] { get }
    /// The series rendered (at zero) before anything is counted, so that rates start at zero.
    static var initial: [Self] { get }
    /// The label values, in the order of `names`.
    var values: [String] { get }
}

extension MetricLabels where Self: CaseIterable, Self: RawRepresentable, RawValue == String {
    /// Every case, at zero.
    package static var initial: [Self] { Array(allCases) }
    /// The case's raw value.
    package var values: [String] { [rawValue] }
}

/// The labels of a family with one series and no labels.
package struct NoLabels: MetricLabels {
    /// No names.
    package static let names: [String] = []
    /// The one series.
    package static let initial = [NoLabels()]
    /// No values.
    package var values: [String] { [] }
    /// The one series.
    package init() {}
}

/// A metrics registry: counters, gauges and histograms with fixed buckets, rendered in the
/// Prometheus text exposition format (version 0.0.4).
///
/// Pure and confined to one thread, like the hub that owns it: the hub and the transport
/// register their families once and keep the handles, so counting is a dictionary update keyed by
/// a small enum. Families render in the order they were registered.
package final class Metrics {
    private var families: [any MetricFamily] = []
    private var names: Set<String> = []

    /// An empty registry.
    package init() {}

    /// The content type of `render()`.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Registers a counter; its name must end in `_total`.
    package func counter<L: MetricLabels>(_ name: String, _ help: String, labels: L.Type = NoLabels.self) -> Counter<L>
    {
        precondition(name.hasSuffix("_total"), "a counter's name ends in _total: \(name)")
        return register(Counter<L>(name: name, help: help))
    }

    /// Registers a gauge.
    package func gauge<L: MetricLabels>(_ name: String, _ help: String, labels: L.Type = NoLabels.self) -> Gauge<L> {
        register(Gauge<L>(name: name, help: help))
    }

    /// Registers a histogram with these bucket upper bounds (ascending; `+Inf` is added).
    package func histogram<L: MetricLabels>(
        _ name: String, _ help: String, buckets: [Double], labels: L.Type = NoLabels.self
    ) -> Histogram<L> {
        register(Histogram<L>(name: name, help: help, bounds: buckets))
    }

    private func register<F: MetricFamily>(_ family: F) -> F {
        precondition(MetricsText.isValidName(family.name), "not a metric name: \(family.name)")
        precondition(names.insert(family.name).inserted, "metric \(family.name) registered twice")
        families.append(family)
        return family
    }

    /// Every family as Prometheus text.
    package func render() -> String {
        var text = MetricsText()
        for family in families { family.render(into: &text) }
        return text.output
    }
}

/// A family the registry can render.
protocol MetricFamily: AnyObject {
    var name: String { get }
    func render(into text: inout MetricsText)
}

/// The series of a counter or a gauge: one number per label set, those of `L.initial` from zero.
@usableFromInline
struct Series<L: MetricLabels, Value: AdditiveArithmetic> {
    let name: String
    let help: String
    @usableFromInline var values: [L: Value] = [:]

    init(name: String, help: String) {
        self.name = name
        self.help = help
        for labels in L.initial { values[labels] = .zero }
    }

    /// `# HELP`, `# TYPE type`, then a line per series, sorted by labels.
    func render(type: String, into text: inout MetricsText, _ format: (Value) -> String) {
        text.header(name, help, type: type)
        for (labels, value) in MetricsText.sorted(values) {
            text.sample(name, L.names, labels.values, format(value))
        }
    }
}

/// A count that only goes up (until the process restarts).
///
/// `add` is inlinable, so that the module that counts specializes it for its labels:
/// unspecialized, every `add` looked up the metadata of `[L: UInt64]` at run time (most of its
/// cost, for the several adds of every op). Public rather than package only for that: Swift
/// 6.3 specializes no `@inlinable package` function in another module.
public final class Counter<L: MetricLabels>: MetricFamily {
    @usableFromInline var series: Series<L, UInt64>
    var name: String { series.name }

    init(name: String, help: String) { series = Series(name: name, help: help) }

    /// Adds `n` to the series `labels`.
    @inlinable public func add(_ labels: L, _ n: UInt64 = 1) { series.values[labels, default: 0] &+= n }

    /// The value of the series `labels`.
    package func value(_ labels: L) -> UInt64 { series.values[labels] ?? 0 }

    /// Sets the series `labels` to a count kept elsewhere (another thread's, copied at scrape
    /// time), which only goes up too.
    package func set(_ labels: L, _ value: UInt64) { series.values[labels] = value }

    func render(into text: inout MetricsText) { series.render(type: "counter", into: &text, MetricsText.format) }
}

extension Counter where L == NoLabels {
    /// Adds `n`.
    package func add(_ n: UInt64 = 1) { add(NoLabels(), n) }
    /// The value.
    package var value: UInt64 { value(NoLabels()) }
}

/// A value that goes up and down, set when it changes or just before rendering.
package final class Gauge<L: MetricLabels>: MetricFamily {
    private var series: Series<L, Double>
    var name: String { series.name }

    init(name: String, help: String) { series = Series(name: name, help: help) }

    /// Sets the series `labels`.
    package func set(_ labels: L, _ value: Double) { series.values[labels] = value }

    /// The value of the series `labels`.
    package func value(_ labels: L) -> Double { series.values[labels] ?? 0 }

    /// Forgets every series (for a family whose series come and go, such as the top boards).
    package func removeAll() { series.values.removeAll(keepingCapacity: true) }

    func render(into text: inout MetricsText) { series.render(type: "gauge", into: &text, MetricsText.format) }
}

extension Gauge where L == NoLabels {
    /// Sets the value.
    package func set(_ value: Double) { set(NoLabels(), value) }
    /// Sets the value.
    package func set(_ value: Int) { set(NoLabels(), Double(value)) }
    /// The value.
    package var value: Double { value(NoLabels()) }
}

/// Observations counted into fixed buckets, with their sum and count.
package final class Histogram<L: MetricLabels>: MetricFamily {
    let name: String
    let help: String
    /// The bucket upper bounds, ascending, without `+Inf`.
    package let bounds: [Double]
    private var values: [L: HistogramValue] = [:]

    init(name: String, help: String, bounds: [Double]) {
        precondition(zip(bounds, bounds.dropFirst()).allSatisfy { $0 < $1 }, "bucket bounds must ascend")
        self.name = name
        self.help = help
        self.bounds = bounds
        for labels in L.initial { values[labels] = HistogramValue(bounds: bounds) }
    }

    /// Counts `value` in the series `labels`.
    package func observe(_ labels: L, _ value: Double) {
        values[labels, default: HistogramValue(bounds: bounds)].observe(value)
    }

    /// The series `labels`.
    package func value(_ labels: L) -> HistogramValue { values[labels] ?? HistogramValue(bounds: bounds) }

    /// Replaces the series `labels` with one kept elsewhere (the writer thread's, copied at scrape time).
    package func replace(_ labels: L, with value: HistogramValue) {
        precondition(value.bounds == bounds, "a histogram with other buckets")
        values[labels] = value
    }

    func render(into text: inout MetricsText) {
        text.header(name, help, type: "histogram")
        let bucketNames = L.names + ["le"]
        for (labels, value) in MetricsText.sorted(values) {
            let labelValues = labels.values
            var cumulative: UInt64 = 0
            for (bound, count) in zip(bounds, value.counts) {
                cumulative &+= count
                text.sample(
                    name + "_bucket", bucketNames, labelValues + [MetricsText.format(bound)],
                    MetricsText.format(cumulative))
            }
            text.sample(name + "_bucket", bucketNames, labelValues + ["+Inf"], MetricsText.format(value.count))
            text.sample(name + "_sum", L.names, labelValues, MetricsText.format(value.sum))
            text.sample(name + "_count", L.names, labelValues, MetricsText.format(value.count))
        }
    }
}

extension Histogram where L == NoLabels {
    /// Counts `value`.
    package func observe(_ value: Double) { observe(NoLabels(), value) }
    /// The one series.
    package var value: HistogramValue { value(NoLabels()) }
}

/// One histogram series: per-bucket counts (not cumulative; rendering adds them up), sum, count.
/// A value type, so another thread can keep one behind its own lock and hand over a copy.
package struct HistogramValue: Equatable, Sendable {
    /// The bucket upper bounds, without `+Inf`.
    package let bounds: [Double]
    /// Observations per bucket: `counts[i]` were above `bounds[i - 1]` and at most `bounds[i]`.
    package private(set) var counts: [UInt64]
    /// Observations above the last bound.
    package private(set) var overflow: UInt64 = 0
    /// The sum of every observation.
    package private(set) var sum: Double = 0
    /// The number of observations.
    package private(set) var count: UInt64 = 0

    /// An empty series with these bounds.
    package init(bounds: [Double]) {
        self.bounds = bounds
        counts = Array(repeating: 0, count: bounds.count)
    }

    /// Counts `value` (NaN is ignored: it belongs in no bucket).
    package mutating func observe(_ value: Double) {
        guard !value.isNaN else { return }
        if let index = bounds.firstIndex(where: { value <= $0 }) {
            counts[index] &+= 1
        } else {
            overflow &+= 1
        }
        sum += value
        count &+= 1
    }
}

/// The text exposition format, version 0.0.4: `# HELP`, `# TYPE`, then one line per sample.
struct MetricsText {
    private(set) var output = ""

    mutating func header(_ name: String, _ help: String, type: String) {
        output += "# HELP \(name) \(Self.escapeHelp(help))\n# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labelNames: [String], _ labelValues: [String], _ value: String) {
        output += name
        if !labelNames.isEmpty {
            output += "{"
            for (index, (label, value)) in zip(labelNames, labelValues).enumerated() {
                if index > 0 { output += "," }
                output += "\(label)=\"\(Self.escapeLabelValue(value))\""
            }
            output += "}"
        }
        output += " \(value)\n"
    }

    /// Series in a stable order: by label values.
    static func sorted<L: MetricLabels, V>(_ values: [L: V]) -> [(L, V)] {
        values.map { ($0.key, $0.value) }.sorted { $0.0.values.lexicographicallyPrecedes($1.0.values) }
    }

    /// A label value: backslash, double quote and line feed escaped.
    static func escapeLabelValue(_ value: String) -> String { escape(value, quotes: true) }

    /// A `# HELP` text: backslash and line feed escaped.
    static func escapeHelp(_ help: String) -> String { escape(help, quotes: false) }

    private static func escape(_ text: String, quotes: Bool) -> String {
        let special: (Unicode.Scalar) -> Bool = { $0 == "\\" || $0 == "\n" || (quotes && $0 == "\"") }
        guard text.unicodeScalars.contains(where: special) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\"" where quotes: out += "\\\""
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    static func format(_ value: UInt64) -> String { String(value) }

    /// Integers without a fraction, `+Inf`, `-Inf`, `NaN`, and otherwise Swift's shortest form
    /// (`0.005`, `1e-05`), which Prometheus parses.
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 9.0e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            return false
        }
        return name.utf8.allSatisfy { c in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(c) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(c)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(c) || c == UInt8(ascii: "_")
                || c == UInt8(ascii: ":")
        }
    }
}
