internal import CCrypto

/// The HMAC-SHA256 of `data` under `key` (OpenSSL's libcrypto), 32 bytes.
func hmacSHA256(_ data: [UInt8], key: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    let ok = key.withUnsafeBytes { k in
        data.withUnsafeBufferPointer { d in
            shuffleboard_hmac_sha256(k.baseAddress, Int32(k.count), d.baseAddress, d.count, &out)
        }
    }
    precondition(ok == 1, "HMAC-SHA256 failed")  // Only on allocation failure inside OpenSSL.
    return out
}

/// The SHA-256 of `data` (OpenSSL's libcrypto), 32 bytes.
func sha256(_ data: [UInt8]) -> [UInt8] {
    var out = [UInt8](repeating: 0, count: 32)
    let ok = data.withUnsafeBufferPointer { d in shuffleboard_sha256(d.baseAddress, d.count, &out) }
    precondition(ok == 1, "SHA-256 failed")  // Only on allocation failure inside OpenSSL.
    return out
}
