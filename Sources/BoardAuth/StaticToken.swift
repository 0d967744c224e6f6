internal import CCrypto

/// A fixed bearer token (`--metrics-token`), compared in constant time.
///
/// The candidate and the token are both run through HMAC-SHA256 under the token itself, and the
/// two digests compared with `CRYPTO_memcmp`: how long the comparison takes says nothing about how
/// much of the candidate was right, nor how long the token is.
package struct StaticToken: Sendable {
    private let key: [UInt8]
    private let digest: [UInt8]

    /// The token in a token file: its first line, without surrounding white space; at least 16 bytes.
    package init(fromFile contents: [UInt8]) throws(SecretsProblem) {
        let line = contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).first ?? []
        var bytes = Array(line)
        let space: Set<UInt8> = [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r")]
        while let last = bytes.last, space.contains(last) { bytes.removeLast() }
        while let first = bytes.first, space.contains(first) { bytes.removeFirst() }
        guard bytes.count >= 16 else { throw SecretsProblem("the token on its first line needs at least 16 bytes") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw SecretsProblem("the token must be printable ASCII without spaces")
        }
        self.init(bytes)
    }

    /// A token.
    package init(_ token: [UInt8]) {
        key = token
        digest = hmacSHA256(token, key: token)
    }

    /// Whether `candidate` is the token.
    package func matches(_ candidate: some Collection<UInt8>) -> Bool {
        guard !candidate.isEmpty else { return false }
        let other = hmacSHA256(Array(candidate), key: key)
        return other.withUnsafeBytes { x in
            digest.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, 32) == 0 }
        }
    }
}
