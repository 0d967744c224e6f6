internal import CPostgres
import Glibc

/// One row of a result; valid only inside the `query` callback. Results are in binary format.
struct PostgresRow {
    let result: OpaquePointer
    let index: Int32

    /// True when the column is NULL.
    func isNull(_ column: Int32) -> Bool { PQgetisnull(result, index, column) != 0 }

    /// The column as an integer: `int8`, `int4`, `int2` or `bool`, big-endian on the wire (0 for NULL).
    func int(_ column: Int32) -> Int {
        let count = Int(PQgetlength(result, index, column))
        guard let value = PQgetvalue(result, index, column), [1, 2, 4, 8].contains(count) else { return 0 }
        var n: Int64 = 0
        // Sign-extend from the first byte, then shift the rest in.
        let bytes = UnsafeRawPointer(value).assumingMemoryBound(to: UInt8.self)
        n = Int64(Int8(bitPattern: bytes[0]))
        for i in 1..<count { n = n << 8 | Int64(bytes[i]) }
        return Int(n)
    }

    /// The column as a boolean.
    func bool(_ column: Int32) -> Bool { int(column) != 0 }

    /// The column's bytes (empty for NULL).
    func bytes(_ column: Int32) -> [UInt8] {
        let count = Int(PQgetlength(result, index, column))
        guard let value = PQgetvalue(result, index, column), count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: value, count: count))
    }

    /// The column's bytes as UTF-8 text (empty for NULL).
    func text(_ column: Int32) -> String { String(decoding: bytes(column), as: UTF8.self) }
}

/// Calls `body` with a NULL-terminated array of C strings that live for the call.
func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    let pointers = copies.map { UnsafePointer($0) } + [nil]
    return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
