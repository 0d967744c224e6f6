internal import CPostgres

/// A value bound to a statement parameter. Every value is sent out of band, in binary with its
/// byte count (`PQexecParams`), never spliced into SQL text: client text cannot change a statement,
/// and a NUL byte is data like any other.
enum PostgresValue {
    /// `int8`.
    case int(Int)
    /// `bytea`: any bytes. Client text (titles, op ids, user ids, JSON) is stored as the bytes of its UTF-8.
    case bytes([UInt8])
    /// `text`: this module's ids and names (board ids, node names), which hold no NUL.
    case text(String)
    /// `bool`.
    case bool(Bool)
    /// `text[]` (board ids), sent in the array's text form since binary arrays carry a header.
    case textArray([String])
    /// `int8[]` (epochs, seqs), in the array's text form too.
    case intArray([Int])

    /// Client text as the `bytea` of its UTF-8.
    static func utf8(_ text: String) -> PostgresValue { .bytes(Array(text.utf8)) }

    /// The type's OID (`pg_type.oid`), so the server never has to guess it from the SQL.
    var type: Oid {
        switch self {
        case .int: 20  // int8
        case .bytes: 17  // bytea
        case .text: 25  // text
        case .bool: 16  // bool
        case .textArray: 1009  // _text
        case .intArray: 1016  // _int8
        }
    }

    /// An element of an array's text form.
    private static func quoted(_ item: String) -> String {
        var quoted = "\""
        for character in item {
            if character == "\"" || character == "\\" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }

    /// 1 for binary, 0 for text.
    var format: Int32 {
        switch self {
        case .textArray, .intArray: 0
        default: 1
        }
    }

    /// The bytes sent: big-endian integers, raw text and bytes, or `{"a","b"}` for an array.
    var encoded: [UInt8] {
        switch self {
        case .int(let n): withUnsafeBytes(of: Int64(n).bigEndian) { Array($0) }
        case .bytes(let bytes): bytes
        case .text(let text): Array(text.utf8)
        case .bool(let b): [b ? 1 : 0]
        case .textArray(let items):
            // Every element quoted, with `"` and `\` escaped: the array's own syntax, not SQL.
            Array(("{" + items.map(Self.quoted).joined(separator: ",") + "}").utf8)
        case .intArray(let items): Array(("{" + items.map(String.init).joined(separator: ",") + "}").utf8)
        }
    }
}
