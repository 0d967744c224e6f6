import BoardCore

/// One option of a benchmark's command line: `--name value`, or a flag alone, and how it sets
/// a field of the benchmark (`TabledBenchCommand.options`, or `BenchOption.parse` in a
/// benchmark's own `init?(arguments:)`).
struct BenchOption<Target> {
    let name: String
    let takesValue: Bool
    /// Sets the field from the value (empty for a flag); false when the value is not a valid one.
    let set: (inout Target, String) -> Bool

    /// A whole number in `range`.
    static func int(_ name: String, _ field: WritableKeyPath<Target, Int>, _ range: ClosedRange<Int>) -> Self {
        Self(name: name, takesValue: true) { target, value in
            guard let n = Int(value), range.contains(n) else { return false }
            target[keyPath: field] = n
            return true
        }
    }

    /// A whole number above 0, cut to `most`.
    static func count(_ name: String, _ field: WritableKeyPath<Target, Int>, most: Int) -> Self {
        Self(name: name, takesValue: true) { target, value in
            guard let n = Int(value), n > 0 else { return false }
            target[keyPath: field] = min(n, most)
            return true
        }
    }

    /// Seconds: above 0 and at most `most`.
    static func seconds(_ name: String, _ field: WritableKeyPath<Target, Double>, most: Double) -> Self {
        Self(name: name, takesValue: true) { target, value in
            guard let s = Double(value), s > 0, s <= most else { return false }
            target[keyPath: field] = s
            return true
        }
    }

    /// Text, taken as it is.
    static func text(_ name: String, _ field: WritableKeyPath<Target, String?>) -> Self {
        Self(name: name, takesValue: true) { target, value in
            target[keyPath: field] = value
            return true
        }
    }

    /// Board sizes: a list of card counts `N,N…`, each 5 up to a board's most items.
    static func sizes(_ name: String, _ field: WritableKeyPath<Target, [Int]>) -> Self {
        Self(name: name, takesValue: true) { target, value in
            let sizes = value.split(separator: ",").compactMap { Int($0) }
            guard !sizes.isEmpty, sizes.allSatisfy({ (5...BoardLimits.items).contains($0) }) else { return false }
            target[keyPath: field] = sizes
            return true
        }
    }

    /// A flag: given, it sets the field to true.
    static func flag(_ name: String, _ field: WritableKeyPath<Target, Bool>) -> Self {
        Self(name: name, takesValue: false) { target, _ in
            target[keyPath: field] = true
            return true
        }
    }

    /// Sets `target`'s fields from `arguments` (each option any number of times, the last one
    /// counting); false on an argument that is none of `options`, a missing value or a bad one.
    static func parse(_ arguments: ArraySlice<String>, into target: inout Target, _ options: [Self]) -> Bool {
        var arguments = arguments
        while let argument = arguments.popFirst() {
            guard let option = options.first(where: { $0.name == argument }) else { return false }
            var value = ""
            if option.takesValue {
                guard let next = arguments.popFirst() else { return false }
                value = next
            }
            guard option.set(&target, value) else { return false }
        }
        return true
    }
}
