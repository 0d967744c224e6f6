import BoardCore
import BoardHub

/// One setting of `shuffleboard serve`, declared once: its flag, the value it takes in its unit
/// (a count, bytes, a `Duration` given in seconds or milliseconds, a rate), its help, and where
/// the value goes in `ServeOptions`. The default is the value `ServeOptions()` holds there, so
/// it is written once too, beside the field. Parsing, `--help` and README's configuration table
/// are all made from `Setting.table` (Settings+Serve.swift, Settings+Limits.swift).
struct Setting {
    /// Where `--help` lists a setting.
    enum Section: CaseIterable {
        case serve, limits, cluster

        /// The heading `--help` prints.
        var heading: String {
            switch self {
            case .serve: "SERVE OPTIONS:"
            case .limits: "LIMITS (0 turns a limit off):"
            case .cluster: "CLUSTER (with a shared store; see docs/architecture.md):"
            }
        }
    }

    /// `--name`.
    let flag: String
    /// What `--help` calls the value (`N`, `SECONDS`, `FILE`); nil: a switch that takes none.
    let value: String?
    /// Where `--help` lists it.
    let section: Section
    /// What it does, for `--help` (wrapped there) and for README when `readme` is nil.
    let help: String
    /// README's text (markdown) when it says more than the help line.
    var readme: String?
    /// The default as `--help` prints it.
    let defaultText: String
    /// Reads the value (nil for a switch) into the options.
    let apply: (inout ServeOptions, String?) throws(UsageError) -> Void

    /// The defaults every row reads its default from.
    static let defaults = ServeOptions()

    /// `--flag VALUE`, as `--help` and README show it.
    var synopsis: String { value.map { "\(flag) \($0)" } ?? flag }
}

extension Setting {
    /// A number of things (connections, ops, entries) from `range`.
    static func count(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Int>, _ range: ClosedRange<Int>, _ section: Section,
        _ help: String, value: String = "N", readme: String? = nil
    ) -> Setting {
        Setting(
            flag: flag, value: value, section: section, help: help, readme: readme,
            defaultText: "\(defaults[keyPath: path])"
        ) { options, text throws(UsageError) in
            options[keyPath: path] = try integer(text ?? "", flag, range)
        }
    }

    /// A number of bytes from `range`; `check` refuses others with its message.
    static func bytes(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Int>, _ range: ClosedRange<Int>, _ section: Section,
        _ help: String, readme: String? = nil, check: ((Int) -> String?)? = nil
    ) -> Setting {
        Setting(
            flag: flag, value: "N", section: section, help: help, readme: readme,
            defaultText: "\(defaults[keyPath: path])"
        ) { options, text throws(UsageError) in
            let bytes = try integer(text ?? "", flag, range)
            if let problem = check?(bytes) { throw UsageError(message: "\(flag) must be \(problem), not \(bytes)") }
            options[keyPath: path] = bytes
        }
    }

    /// A `Duration` given in seconds from `range` (above its lower bound when `above`; whole
    /// seconds only when `whole`).
    static func seconds(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Duration>, _ range: ClosedRange<Double>,
        _ section: Section, _ help: String, value: String = "SECONDS", above: Bool = false, whole: Bool = false,
        readme: String? = nil
    ) -> Setting {
        Setting(
            flag: flag, value: value, section: section, help: help, readme: readme,
            defaultText: number(Instant.Span(defaults[keyPath: path]).milliseconds, per: 1000)
        ) { options, text throws(UsageError) in
            let seconds = try number(text ?? "", flag, range, unit: whole ? nil : "seconds", above: above)
            options[keyPath: path] = .milliseconds(Int64((seconds * 1000).rounded()))
        }
    }

    /// A `Duration` given in milliseconds from `range`, to the microsecond.
    static func milliseconds(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Duration>, _ range: ClosedRange<Double>,
        _ section: Section, _ help: String, readme: String? = nil
    ) -> Setting {
        Setting(
            flag: flag, value: "MS", section: section, help: help, readme: readme,
            defaultText: number(Instant.Span(defaults[keyPath: path]).milliseconds, per: 1)
        ) { options, text throws(UsageError) in
            let ms = try number(text ?? "", flag, range, unit: "milliseconds")
            options[keyPath: path] = .microseconds(Int64((ms * 1000).rounded()))
        }
    }

    /// A rate given as N a second (bursts of 2N) or, `perMinute`, N a minute (bursts of N);
    /// 0 is no limit (nil).
    static func rate(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Rate?>, _ section: Section, _ help: String,
        perMinute: Bool = false, readme: String? = nil
    ) -> Setting {
        let rate = defaults[keyPath: path]
        let shown = (rate?.perSecond ?? 0) * (perMinute ? 60 : 1)
        return Setting(
            flag: flag, value: "N", section: section, help: help, readme: readme,
            defaultText: number(Int64((shown * 1000).rounded()), per: 1000)
        ) { options, text throws(UsageError) in
            let n = try Double(integer(text ?? "", flag, 0...1_000_000))
            options[keyPath: path] =
                n == 0 ? nil : perMinute ? Rate(perSecond: n / 60, burst: n) : Rate(perSecond: n, burst: 2 * n)
        }
    }

    /// A switch: given, it turns `path` on.
    static func toggle(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Bool>, _ section: Section, _ help: String,
        readme: String? = nil
    ) -> Setting {
        Setting(flag: flag, value: nil, section: section, help: help, readme: readme, defaultText: "off") {
            options, _ throws(UsageError) in options[keyPath: path] = true
        }
    }

    /// On or off, given as `true`/`false` (`value` BOOL) or `on`/`off` (`value` on|off); both
    /// spellings are taken either way.
    static func boolean(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, Bool>, _ section: Section, _ help: String,
        value: String = "BOOL", readme: String? = nil
    ) -> Setting {
        let on = defaults[keyPath: path]
        return Setting(
            flag: flag, value: value, section: section, help: help, readme: readme,
            defaultText: value == "BOOL" ? "\(on)" : on ? "on" : "off"
        ) { options, text throws(UsageError) in
            options[keyPath: path] = try boolean(text ?? "", flag)
        }
    }

    /// One of a few names (`names` in the order `--help` lists them).
    static func choice<T: Equatable>(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, T>, _ names: [(String, T)], _ section: Section,
        _ help: String, value: String, readme: String? = nil
    ) -> Setting {
        let current = defaults[keyPath: path]
        return Setting(
            flag: flag, value: value, section: section, help: help, readme: readme,
            defaultText: names.first { $0.1 == current }?.0 ?? "?"
        ) { options, text throws(UsageError) in
            guard let chosen = names.first(where: { $0.0 == text?.lowercased() }) else {
                let all = names.map(\.0)
                let list = all.dropLast().joined(separator: ", ") + " or " + (all.last ?? "")
                throw UsageError(message: "\(flag) must be \(list), not '\((text ?? "").prefix(200))'")
            }
            options[keyPath: path] = chosen.1
        }
    }

    /// `T`'s cases by their raw names.
    static func cases<T: CaseIterable & RawRepresentable>(of type: T.Type) -> [(String, T)] where T.RawValue == String {
        T.allCases.map { ($0.rawValue, $0) }
    }

    /// A file's path (read when the server starts; nil: `defaultText`).
    static func file(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, String?>, _ section: Section, _ help: String,
        default defaultText: String = "off", readme: String? = nil
    ) -> Setting {
        Setting(flag: flag, value: "FILE", section: section, help: help, readme: readme, defaultText: defaultText) {
            options, text throws(UsageError) in options[keyPath: path] = text
        }
    }

    /// Text that `isValid` accepts, given to `set`; other text is refused as "FLAG must be
    /// `rule`, not '…'".
    static func checked(
        _ flag: String, value: String, _ section: Section, _ help: String, default defaultText: String,
        mustBe rule: String, _ isValid: @escaping (String) -> Bool, readme: String? = nil,
        _ set: @escaping (inout ServeOptions, String) -> Void
    ) -> Setting {
        Setting(flag: flag, value: value, section: section, help: help, readme: readme, defaultText: defaultText) {
            options, text throws(UsageError) in
            let text = text ?? ""
            guard isValid(text) else { throw UsageError(message: "\(flag) must be \(rule), not '\(text.prefix(200))'") }
            set(&options, text)
        }
    }

    /// `n` over `per` as `--help` writes a number: `30`, `0.5`.
    private static func number(_ n: Int64, per: Int64) -> String {
        n % per == 0 ? "\(n / per)" : "\(Double(n) / Double(per))"
    }

    private static func integer(_ text: String, _ flag: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        try CommandLineParser.integer(text, flag, range)
    }

    private static func boolean(_ text: String, _ flag: String) throws(UsageError) -> Bool {
        try CommandLineParser.boolean(text, flag)
    }

    /// A number from `range` (above its lower bound when `above`); `unit` nil: an integer.
    private static func number(
        _ text: String, _ flag: String, _ range: ClosedRange<Double>, unit: String?, above: Bool = false
    ) throws(UsageError) -> Double {
        let lower = number(Int64(range.lowerBound * 1000), per: 1000)
        let upper = number(Int64(range.upperBound * 1000), per: 1000)
        guard let n = unit == nil ? Int(text).map(Double.init) : Double(text), range.contains(n),
            !above || n > range.lowerBound
        else {
            let what = unit.map { "a number of \($0)" } ?? "an integer"
            throw UsageError(message: "\(flag) must be \(what) from \(lower) to \(upper), not '\(text.prefix(200))'")
        }
        return n
    }
}
