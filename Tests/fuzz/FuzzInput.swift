// Shared by every fuzz target: reading choices out of libFuzzer's bytes, and failing loudly.

#if canImport(Glibc)
    import Glibc
#endif

/// The fuzz input as a stream of choices. Once the bytes run out every read gives 0, so every
/// input, however short, decodes to something.
struct FuzzInput {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ data: UnsafePointer<UInt8>?, _ count: Int) {
        bytes = UnsafeBufferPointer(start: data, count: data == nil ? 0 : count)
    }

    /// True once every byte has been read.
    var isEmpty: Bool { index >= bytes.count }

    /// The next byte.
    mutating func byte() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    /// A number in `0..<n` (`n` at most 256) from the next byte.
    mutating func below(_ n: Int) -> Int {
        precondition(n > 0 && n <= 256)
        return Int(byte()) % n
    }

    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[below(choices.count)] }

    /// The next byte as a letter naming one of `choices` (`letters[i]` names `choices[i]`); any
    /// other byte picks by its value. Letters keep hand-written seeds readable.
    mutating func pick<T>(_ choices: [T], letters: String) -> T {
        let b = byte()
        if let i = Array(letters.utf8).firstIndex(of: b), i < choices.count { return choices[i] }
        return choices[Int(b) % choices.count]
    }

    /// Up to `maximum` raw bytes: a length byte, then that many bytes (fewer at the end).
    mutating func chunk(maximum: Int = 255) -> [UInt8] {
        let length = min(Int(byte()), maximum)
        var out: [UInt8] = []
        while out.count < length && !isEmpty { out.append(byte()) }
        return out
    }
}

/// Whether `FUZZ_TRACE` is set: then targets print what they do, to read a crashing input.
let tracing: Bool = getenv("FUZZ_TRACE") != nil

/// Prints a trace line to stderr when tracing.
func trace(_ line: @autoclosure () -> String) {
    guard tracing else { return }
    printError(line())
}

/// Writes a line to stderr (unbuffered, so it is out before a crash).
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
}

/// Stops the process with `message`; libFuzzer saves the input that got here.
func violated(_ message: String) -> Never {
    printError("fuzz invariant violated: \(message)")
    fatalError(message)
}

/// Checks an invariant of the code under test.
func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { violated(message()) }
}
