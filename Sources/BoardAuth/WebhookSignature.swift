/// A webhook delivery's signature (`X-Shuffleboard-Signature`): `sha256=` and the lower-case hex
/// of HMAC-SHA256 under the webhook's secret of the timestamp, a dot and the body.
package enum WebhookSignature {
    /// The header's value for `body` sent at `timestamp` (seconds since 1970) under `secret`.
    package static func header(secret: String, timestamp: Int64, body: [UInt8]) -> String {
        let signed = Array("\(timestamp).".utf8) + body
        let digest = hmacSHA256(signed, key: Array(secret.utf8))
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in digest {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return "sha256=" + String(decoding: hex, as: UTF8.self)
    }

    /// A new secret: 32 random bytes (the system's generator) in base64url, 43 characters.
    package static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }
}
