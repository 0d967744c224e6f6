/// A parsed JSON value.
///
/// The server parses every client frame into this and validates fields by hand, so that each
/// mistake gets a precise `bad_message` reason. Objects keep their keys unordered; output is
/// written with `JSONWriter`, which preserves the order the encoder chooses.
package enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// The member `key` of an object, or nil.
    package subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string payload, if this is a string.
    package var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The integer payload, if this is a number with no fractional part that fits an `Int`.
    package var intValue: Int? {
        guard case .number(let d) = self, d.rounded() == d, abs(d) < 9.007_199_254_740_992e15 else { return nil }
        return Int(d)
    }

    /// The number, if this is a finite number.
    package var numberValue: Double? {
        guard case .number(let d) = self, d.isFinite else { return nil }
        return d
    }

    /// The boolean payload, if this is a boolean.
    package var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    /// The elements, if this is an array.
    package var arrayValue: [JSON]? {
        if case .array(let a) = self { return a }
        return nil
    }

    /// True for `null`.
    package var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension JSON {
    /// Why a text is not JSON.
    package struct ParseError: Error, Equatable, Sendable {
        /// Byte offset where parsing stopped.
        package var offset: Int
        /// What was wrong there.
        package var reason: String
    }

    /// The deepest nesting the parser accepts; deeper input is rejected rather than risking the stack.
    package static let maximumDepth = 64

    /// Parses one JSON value from UTF-8 bytes; trailing whitespace only.
    package static func parse<Bytes: Collection<UInt8>>(_ bytes: Bytes) throws(ParseError) -> JSON {
        let array = Array(bytes)
        var parser = Parser(bytes: array)
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == array.count else { throw parser.error("unexpected data after the value") }
        return value
    }

    /// Parses one JSON value from a string.
    package static func parse(_ text: String) throws(ParseError) -> JSON {
        try parse(Array(text.utf8))
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0
        /// The members of the objects being parsed, innermost last: each object's dictionary is
        /// made once its members are all read, at its size (grown member by member, a small
        /// object's dictionary was reallocated and rehashed three or four times).
        var pending: [(key: String, value: JSON)] = []

        func error(_ reason: String) -> ParseError { ParseError(offset: index, reason: reason) }

        mutating func skipWhitespace() {
            while index < bytes.count {
                switch bytes[index] {
                case 0x20, 0x0A, 0x0D, 0x09: index += 1
                default: return
                }
            }
        }

        mutating func parseValue(depth: Int) throws(ParseError) -> JSON {
            guard depth <= JSON.maximumDepth else { throw error("nesting deeper than \(JSON.maximumDepth)") }
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"): return try parseObject(depth: depth)
            case UInt8(ascii: "["): return try parseArray(depth: depth)
            case UInt8(ascii: "\""): return .string(try parseString())
            case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
            case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
            case UInt8(ascii: "n"): try expectLiteral("null"); return .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
            default: throw error("unexpected character")
            }
        }

        mutating func expectLiteral(_ literal: StaticString) throws(ParseError) {
            let count = literal.utf8CodeUnitCount
            guard index + count <= bytes.count else { throw error("unexpected end of input") }
            let matches = literal.withUTF8Buffer { bytes[index..<index + count].elementsEqual($0) }
            guard matches else { throw error("invalid literal") }
            index += count
        }

        mutating func parseObject(depth: Int) throws(ParseError) -> JSON {
            index += 1
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object([:])
            }
            // Room for the members of a few small objects at once, made at the first object (grown
            // from nothing, an op's frame reallocated it three times).
            if pending.capacity == 0 { pending.reserveCapacity(16) }
            let first = pending.count
            defer { pending.removeSubrange(first...) }
            while true {
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error("expected a string key")
                }
                let key = try parseString()
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
                index += 1
                pending.append((key, try parseValue(depth: depth + 1)))
                if try closes(UInt8(ascii: "}"), else: "expected ',' or '}'") {
                    // A repeated key keeps its last value, as assigning member by member did.
                    var members = [String: JSON](minimumCapacity: pending.count - first)
                    for (key, value) in pending[first...] { members[key] = value }
                    return .object(members)
                }
            }
        }

        mutating func parseArray(depth: Int) throws(ParseError) -> JSON {
            index += 1
            var elements: [JSON] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try parseValue(depth: depth + 1))
                if try closes(UInt8(ascii: "]"), else: "expected ',' or ']'") { return .array(elements) }
            }
        }

        /// After a member or an element: true at the `bracket` that closes its object or array,
        /// false at a comma (either is consumed); anything else is the error `reason`.
        mutating func closes(_ bracket: UInt8, else reason: String) throws(ParseError) -> Bool {
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            let byte = bytes[index]
            guard byte == UInt8(ascii: ",") || byte == bracket else { throw error(reason) }
            index += 1
            return byte == bracket
        }

        mutating func parseHex4() throws(ParseError) -> UInt32 {
            guard index + 4 <= bytes.count else { throw error("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let c = bytes[index]
                let digit: UInt32
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(c - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(c - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(c - UInt8(ascii: "A") + 10)
                default: throw error("invalid \\u escape")
                }
                value = value << 4 | digit
                index += 1
            }
            return value
        }

        mutating func parseString() throws(ParseError) -> String {
            index += 1
            // Most strings (keys, ids, names) have no escape: they are made from the bytes where they
            // stand, without validation when they are ASCII.
            let start = index
            var ascii = true
            while index < bytes.count {
                let c = bytes[index]
                if c == UInt8(ascii: "\"") {
                    let slice = bytes[start..<index]
                    index += 1
                    if ascii { return String(decoding: slice, as: UTF8.self) }
                    guard let s = String(validating: slice, as: UTF8.self) else {
                        throw error("invalid UTF-8 in string")
                    }
                    return s
                }
                if c == UInt8(ascii: "\\") || c < 0x20 { break }
                if c >= 0x80 { ascii = false }
                index += 1
            }
            var out = Array(bytes[start..<index])
            while true {
                guard index < bytes.count else { throw error("unterminated string") }
                let c = bytes[index]
                switch c {
                case UInt8(ascii: "\""):
                    index += 1
                    guard let s = String(validating: out, as: UTF8.self) else { throw error("invalid UTF-8 in string") }
                    return s
                case UInt8(ascii: "\\"):
                    index += 1
                    guard index < bytes.count else { throw error("unterminated escape") }
                    let e = bytes[index]
                    index += 1
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22)
                    case UInt8(ascii: "\\"): out.append(0x5C)
                    case UInt8(ascii: "/"): out.append(0x2F)
                    case UInt8(ascii: "b"): out.append(0x08)
                    case UInt8(ascii: "f"): out.append(0x0C)
                    case UInt8(ascii: "n"): out.append(0x0A)
                    case UInt8(ascii: "r"): out.append(0x0D)
                    case UInt8(ascii: "t"): out.append(0x09)
                    case UInt8(ascii: "u"):
                        var scalar = try parseHex4()
                        if (0xD800..<0xDC00).contains(scalar) {
                            guard index + 2 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                                bytes[index + 1] == UInt8(ascii: "u")
                            else { throw error("unpaired surrogate") }
                            index += 2
                            let low = try parseHex4()
                            guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if (0xDC00..<0xE000).contains(scalar) {
                            throw error("unpaired surrogate")
                        }
                        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid \\u escape") }
                        out.append(contentsOf: Array(String(Character(unicode)).utf8))
                    default:
                        throw error("invalid escape")
                    }
                case 0x00..<0x20:
                    throw error("control character in string")
                default:
                    out.append(c)
                    index += 1
                }
            }
        }

        mutating func parseNumber() throws(ParseError) -> JSON {
            let start = index
            if bytes[index] == UInt8(ascii: "-") { index += 1 }
            func digits(_ p: inout Parser) -> Int {
                let s = p.index
                while p.index < p.bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(p.bytes[p.index]) {
                    p.index += 1
                }
                return p.index - s
            }
            guard index < bytes.count else { throw error("invalid number") }
            if bytes[index] == UInt8(ascii: "0") {
                index += 1
            } else if digits(&self) == 0 {
                throw error("invalid number")
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                guard digits(&self) > 0 else { throw error("invalid number") }
            }
            if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
                index += 1
                if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                    index += 1
                }
                guard digits(&self) > 0 else { throw error("invalid number") }
            }
            let text = String(decoding: bytes[start..<index], as: UTF8.self)
            guard let value = Double(text), value.isFinite else { throw error("number out of range") }
            return .number(value)
        }
    }
}

/// A value that writes itself as one JSON text (a message of the protocol).
package protocol JSONEncodable {
    /// Writes the value as one JSON value.
    func encode(into w: inout JSONWriter)
}

extension JSONEncodable {
    /// The value as JSON text (UTF-8). Inlinable: the transport encodes every broadcast with it,
    /// and across modules it would otherwise go through the protocol's witness table.
    @inlinable
    package func encoded() -> [UInt8] {
        var w = JSONWriter()
        encode(into: &w)
        return w.bytes
    }
}

/// Writes JSON text with members in the order they are written.
///
/// Encoders build each server message with this once; the bytes are then shared by every recipient.
package struct JSONWriter: Sendable {
    /// The UTF-8 bytes written so far.
    package private(set) var bytes: [UInt8] = []
    private var needsComma: [Bool] = [false]

    /// An empty writer.
    package init() { bytes.reserveCapacity(128) }

    /// The output as a string.
    package var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func separator() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// Opens an object (as a value, or as the member `key` when given).
    package mutating func beginObject(_ key: String? = nil) { open(key, UInt8(ascii: "{")) }

    /// Closes the innermost object.
    package mutating func endObject() { close(UInt8(ascii: "}")) }

    /// Opens an array (as a value, or as the member `key` when given).
    package mutating func beginArray(_ key: String? = nil) { open(key, UInt8(ascii: "[")) }

    /// Closes the innermost array.
    package mutating func endArray() { close(UInt8(ascii: "]")) }

    /// Opens an object or an array with `bracket`.
    private mutating func open(_ key: String?, _ bracket: UInt8) {
        if let key { writeKey(key) } else { separator() }
        bytes.append(bracket)
        needsComma.append(false)
    }

    /// Closes the innermost object or array with `bracket`.
    private mutating func close(_ bracket: UInt8) {
        needsComma.removeLast()
        bytes.append(bracket)
    }

    private mutating func writeKey(_ key: String) {
        separator()
        writeEscaped(key)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes a member `key: value`, or an array element when `key` is nil.
    package mutating func write(_ key: String? = nil, _ value: String?) {
        if let key { writeKey(key) } else { separator() }
        if let value { writeEscaped(value) } else { bytes.append(contentsOf: "null".utf8) }
    }

    /// Writes an integer member or element.
    package mutating func write(_ key: String? = nil, _ value: Int) {
        if let key { writeKey(key) } else { separator() }
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a boolean member or element.
    package mutating func write(_ key: String? = nil, _ value: Bool) {
        if let key { writeKey(key) } else { separator() }
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes pre-encoded JSON text as a member or element.
    package mutating func writeRaw(_ key: String? = nil, _ json: [UInt8]) {
        if let key { writeKey(key) } else { separator() }
        bytes.append(contentsOf: json)
    }

    /// Writes any parsed value.
    package mutating func write(_ key: String? = nil, json: JSON) {
        switch json {
        case .null: write(key, nil as String?)
        case .bool(let b): write(key, b)
        case .number(let d):
            if let i = json.intValue {
                write(key, i)
            } else {
                if let key { writeKey(key) } else { separator() }
                bytes.append(contentsOf: "\(d)".utf8)
            }
        case .string(let s): write(key, s)
        case .array(let elements):
            beginArray(key)
            for e in elements { write(nil, json: e) }
            endArray()
        case .object(let members):
            beginObject(key)
            for k in members.keys.sorted() { write(k, json: members[k]!) }
            endObject()
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func writeEscaped(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for c in s.utf8 {
            switch c {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, 0x22])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
                // Control characters must be escaped; <, > and & are escaped too so that
                // JSON embedded in HTML can never close a tag.
                bytes.append(contentsOf: [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, Self.hex[Int(c >> 4)], Self.hex[Int(c & 0xF)],
                ])
            default: bytes.append(c)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
