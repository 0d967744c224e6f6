// libFuzzer target: `JSON.parse` on arbitrary bytes.
//
// Checks: no crash, no stack overflow, no leak or out-of-bounds access (AddressSanitizer); an
// accepted text is valid UTF-8 and has no value more than `JSON.maximumDepth` levels below the
// top; what `JSONWriter` writes for an accepted value parses back to the same value; a
// refusal's offset is inside the input; parsing the bytes and parsing them as a string agree.

import BoardCore

/// libFuzzer's entry point: one input per call.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    let value: JSON
    do {
        value = try JSON.parse(bytes)
    } catch {
        require((0...bytes.count).contains(error.offset), "offset \(error.offset) outside 0...\(bytes.count)")
        require(!error.reason.isEmpty, "a refusal without a reason")
        if let text = String(validating: bytes, as: UTF8.self) {
            require((try? JSON.parse(text)) == nil, "the string form was accepted, the bytes were not")
        }
        return 0
    }
    trace("accepted: \(value)")
    require(String(validating: bytes, as: UTF8.self) != nil, "accepted text that is not UTF-8")
    require(depth(of: value) <= JSON.maximumDepth + 1, "accepted nesting of depth \(depth(of: value))")
    if let text = String(validating: bytes, as: UTF8.self) {
        require((try? JSON.parse(text)) == value, "the string form parsed differently")
    }
    var writer = JSONWriter()
    writer.write(json: value)
    let again: JSON
    do {
        again = try JSON.parse(writer.bytes)
    } catch {
        violated("the writer's output does not parse (\(error.reason) at \(error.offset)): \(writer.string)")
    }
    require(again == value, "round trip changed \(value) into \(again)")
    return 0
}

/// How many levels `value` spans (a scalar or an empty container is 1).
private func depth(of value: JSON) -> Int {
    switch value {
    case .array(let elements): 1 + (elements.map(depth(of:)).max() ?? 0)
    case .object(let members): 1 + (members.values.map(depth(of:)).max() ?? 0)
    default: 1
    }
}
