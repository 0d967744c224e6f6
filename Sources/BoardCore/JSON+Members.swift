extension JSON {
    /// Why a JSON value is not the board, op or message it should be: names the member and what it must be.
    package struct DecodingError: Error, Equatable, Sendable {
        /// The explanation, e.g. `"on" must be a boolean` or `board.title must be a string`.
        package var message: String

        /// An error with this explanation.
        package init(_ message: String) { self.message = message }
    }
}

// The readers every decoder in BoardCore uses (boards, ops, client messages, board definitions),
// so that a value of one kind is checked, and its mistake worded, in one way. Each reads the
// member `key` of an object, or with no key the value itself, and names it `name` in its error;
// by default that is the key in quotes, as the protocol's `bad_message` texts do.
extension JSON {
    /// The member `key` (or this value) as `convert` makes it; "`name` must be `expected`" when absent or refused.
    func read<Value>(
        _ key: String?, named name: String?, mustBe expected: String, _ convert: (JSON) -> Value?
    ) throws(DecodingError) -> Value {
        let value = key.map { self[$0] } ?? self
        guard let result = value.flatMap(convert) else {
            throw DecodingError("\(name ?? key.map { "\"\($0)\"" } ?? "the value") must be \(expected)")
        }
        return result
    }

    /// True when the member `key` is there and not null.
    func hasValue(_ key: String) -> Bool { self[key].map { !$0.isNull } ?? false }

    /// A string.
    func string(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> String {
        try read(key, named: name, mustBe: "a string") { $0.stringValue }
    }

    /// An integer.
    func int(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> Int {
        try read(key, named: name, mustBe: "an integer") { $0.intValue }
    }

    /// A boolean.
    func bool(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> Bool {
        try read(key, named: name, mustBe: "a boolean") { $0.boolValue }
    }

    /// An array.
    func array(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> [JSON] {
        try read(key, named: name, mustBe: "an array") { $0.arrayValue }
    }

    /// A seq: a non-negative integer.
    func seq(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> Seq {
        try read(key, named: name, mustBe: "a non-negative integer") { $0.intValue.flatMap { $0 >= 0 ? $0 : nil } }
    }

    /// An id of one kind, checked against the kind's rule.
    func id<Kind: IDKind>(_ key: String? = nil, named name: String? = nil) throws(DecodingError) -> WireID<Kind> {
        try read(key, named: name, mustBe: Kind.expected) { $0.stringValue.flatMap(WireID<Kind>.init) }
    }
}
