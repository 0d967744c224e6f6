package import BoardCore
internal import CCrypto

/// What a token lets its holder do on a board.
package enum Role: String, Comparable, Sendable, CaseIterable {
    /// Watch everything; change nothing.
    case view
    /// Everything on the board: drag, drop, commit ops.
    case edit
    /// Edit, and the management API (create, delete).
    case admin

    /// Orders by power: view < edit < admin.
    package static func < (a: Role, b: Role) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }
}

/// What a verified token says.
package struct Claims: Equatable, Sendable {
    /// The board it is for, or nil for every board (`*`).
    package var board: BoardID?
    /// What it allows.
    package var role: Role
    /// When it stops working, in seconds since 1970.
    package var expires: Int64
    /// The display name it imposes, if any (it then overrides the name in `hello`).
    package var name: String?
    /// The token's own id (`"j"`, like JWT's `jti`): random, so that two tokens minted in the same
    /// second with the same board, role and name are different strings, and revoking one (by the
    /// SHA-256 of its text) leaves the other working. Nil in tokens minted before it existed.
    package var id: String?
    /// The member it names (`sub`, from `shuffleboard token … --user ID`): it wins over
    /// `hello.member`, so assignees and history name the same person on every connection.
    package var member: MemberID?
    /// Per-board roles that replace `role` on their boards (a proxy user's grants,
    /// `PUT /api/boards/{id}/members/{member}`); empty for a token, whose role is its own.
    package var grants: [BoardID: Role] = [:]
    /// Whether a trusted proxy named this person (ProxySignIn.swift) rather than a token.
    package var viaProxy = false

    /// Claims.
    package init(
        board: BoardID?, role: Role, expires: Int64, name: String? = nil, id: String? = nil, member: MemberID? = nil
    ) {
        self.board = board
        self.role = role
        self.expires = expires
        self.name = name
        self.id = id
        self.member = member
    }

    /// Whether these claims allow `role` on `board`.
    package func allow(_ role: Role, on board: BoardID) -> Bool {
        (self.board == nil || self.board == board) && self.role(on: board) >= role
    }

    /// The role these claims give on `board` (its grant, else `role`).
    package func role(on board: BoardID) -> Role { grants[board] ?? role }
}

/// Why a token was refused. Never shown in detail to the client (it gets `unauthorized`); logged.
package enum TokenProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not in the token format.
    case malformed
    /// No secret made this signature.
    case forged
    /// Past its expiry.
    case expired

    /// For the log.
    package var description: String {
        switch self {
        case .malformed: "malformed token"
        case .forged: "bad signature"
        case .expired: "expired token"
        }
    }
}

/// Mints and verifies board access tokens with HMAC-SHA256 (OpenSSL's libcrypto).
///
/// A token is `v1.PAYLOAD.SIGNATURE`, both parts base64url without padding: the payload is the
/// JSON `{"b":BOARD or "*","r":ROLE,"e":EXPIRY[,"n":NAME],"j":ID}` (ID: random, unique to the
/// token; tokens minted before it have none and still verify), the signature the HMAC-SHA256 of
/// `v1.PAYLOAD` under a secret. The first secret signs; every secret verifies, so a new secret can
/// be put first while tokens signed by the old one keep working until the old one is removed.
/// Signatures are compared in constant time.
package struct TokenAuthority: Sendable {
    private let secrets: [[UInt8]]

    /// An authority over `secrets` (at least one, the first signs).
    package init(secrets: [[UInt8]]) {
        precondition(!secrets.isEmpty, "at least one secret")
        self.secrets = secrets
    }

    /// The secrets in a secrets file: one per line, blank lines and `#` comments ignored; each at
    /// least 16 bytes.
    package static func secrets(fromFile contents: [UInt8]) throws(SecretsProblem) -> [[UInt8]] {
        var secrets: [[UInt8]] = []
        for (number, line) in contents.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            var bytes = Array(line)
            while let last = bytes.last, last == UInt8(ascii: "\r") || last == UInt8(ascii: " ") || last == 9 {
                bytes.removeLast()
            }
            while let first = bytes.first, first == UInt8(ascii: " ") || first == 9 { bytes.removeFirst() }
            if bytes.isEmpty || bytes.first == UInt8(ascii: "#") { continue }
            guard bytes.count >= 16 else {
                throw SecretsProblem("line \(number + 1): a secret needs at least 16 bytes")
            }
            secrets.append(bytes)
        }
        guard !secrets.isEmpty else { throw SecretsProblem("no secret in the file") }
        return secrets
    }

    /// A signed token for `claims`, with a fresh random id when `claims.id` is nil.
    package func mint(_ claims: Claims) -> String {
        var w = JSONWriter()
        w.beginObject()
        w.write("b", claims.board?.rawValue ?? "*")
        w.write("r", claims.role.rawValue)
        w.write("e", Int(claims.expires))
        if let name = claims.name { w.write("n", name) }
        w.write("j", claims.id ?? Self.newID())
        if let member = claims.member { w.write("sub", member.rawValue) }
        w.endObject()
        let signed = "v1." + Base64URL.encode(w.bytes)
        return signed + "." + Base64URL.encode(hmacSHA256(Array(signed.utf8), key: secrets[0]))
    }

    /// The claims of `token` at `now` (seconds since 1970), or why it is refused.
    package func verify(_ token: String, now: Int64) -> Result<Claims, TokenProblem> {
        let utf8 = Array(token.utf8)
        guard utf8.count <= 2048 else { return .failure(.malformed) }
        let parts = utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].elementsEqual("v1".utf8), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2]), signature.count == 32
        else { return .failure(.malformed) }
        let signed = Array(utf8[..<(parts[0].count + 1 + parts[1].count)])
        // Every secret is tried, whatever the outcome, so timing does not say which one matched.
        var matched = false
        for secret in secrets where Self.equalInConstantTime(hmacSHA256(signed, key: secret), signature) {
            matched = true
        }
        guard matched else { return .failure(.forged) }
        guard let json = try? JSON.parse(payload), let role = json["r"]?.stringValue.flatMap(Role.init),
            let boardText = json["b"]?.stringValue, let expires = json["e"]?.intValue
        else { return .failure(.malformed) }
        var board: BoardID?
        if boardText != "*" {
            guard let id = BoardID(boardText) else { return .failure(.malformed) }
            board = id
        }
        var name: String?
        if let value = json["n"] {
            guard let text = value.stringValue, case .success(let clean) = Text.displayName(text) else {
                return .failure(.malformed)
            }
            name = clean
        }
        var id: String?
        if let value = json["j"] {
            guard let text = value.stringValue, Self.isValidID(text) else { return .failure(.malformed) }
            id = text
        }
        var member: MemberID?
        if let value = json["sub"] {
            guard let text = value.stringValue, let parsed = MemberID(text) else { return .failure(.malformed) }
            member = parsed
        }
        guard Int64(expires) > now else { return .failure(.expired) }
        return .success(
            Claims(board: board, role: role, expires: Int64(expires), name: name, id: id, member: member))
    }

    /// A new token id: 16 bytes from the system's random source (getrandom), base64url (22 characters).
    package static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        return Base64URL.encode((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    /// Whether `text` can be a token id: 1–64 characters of the base64url alphabet.
    package static func isValidID(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { c in
                (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D
                    || c == 0x5F
            }
    }

    /// The id a revocation names `token` by: the SHA-256 of its text in lower-case hex (what
    /// `printf %s TOKEN | sha256sum` prints). Never the token: a list of revocations must not be a
    /// list of working tokens for whoever reads it.
    package static func revocationID(of token: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in sha256(Array(token.utf8)) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0xF)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The claims of `token` whatever its expiry (for a revocation, which needs its board and
    /// expiry even when it has run out), or why it is refused.
    package func claimsIgnoringExpiry(_ token: String) -> Result<Claims, TokenProblem> {
        verify(token, now: .min)
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return a.withUnsafeBytes { x in
            b.withUnsafeBytes { y in CRYPTO_memcmp(x.baseAddress, y.baseAddress, a.count) == 0 }
        }
    }
}

/// Why a secrets file cannot be used.
package struct SecretsProblem: Error, Equatable, Sendable {
    /// What is wrong.
    package var message: String
    /// A problem.
    package init(_ message: String) { self.message = message }
}

/// Base64url without padding (RFC 4648 §5), as tokens use it.
package enum Base64URL {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// `bytes` encoded.
    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var i = 0
        while i + 3 <= bytes.count {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            for shift in [18, 12, 6, 0] { out.append(alphabet[Int(n >> UInt32(shift) & 63)]) }
            i += 3
        }
        let rest = bytes.count - i
        if rest == 1 {
            let n = UInt32(bytes[i]) << 16
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)]]
        } else if rest == 2 {
            let n = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out += [alphabet[Int(n >> 18 & 63)], alphabet[Int(n >> 12 & 63)], alphabet[Int(n >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The bytes of `text`, or nil when it is not canonical base64url without padding.
    package static func decode<Text: Collection<UInt8>>(_ text: Text) -> [UInt8]? {
        var values: [UInt32] = []
        for c in text {
            switch c {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): values.append(UInt32(c - UInt8(ascii: "A")))
            case UInt8(ascii: "a")...UInt8(ascii: "z"): values.append(UInt32(c - UInt8(ascii: "a") + 26))
            case UInt8(ascii: "0")...UInt8(ascii: "9"): values.append(UInt32(c - UInt8(ascii: "0") + 52))
            case UInt8(ascii: "-"): values.append(62)
            case UInt8(ascii: "_"): values.append(63)
            default: return nil
            }
        }
        guard values.count % 4 != 1 else { return nil }
        var out: [UInt8] = []
        var i = 0
        while i + 4 <= values.count {
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6 | values[i + 3]
            out += [UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)]
            i += 4
        }
        let rest = values.count - i
        if rest == 2 {
            let n = values[i] << 18 | values[i + 1] << 12
            guard n & 0xFFFF == 0 else { return nil }
            out.append(UInt8(n >> 16 & 255))
        } else if rest == 3 {
            let n = values[i] << 18 | values[i + 1] << 12 | values[i + 2] << 6
            guard n & 0xFF == 0 else { return nil }
            out += [UInt8(n >> 16 & 255), UInt8(n >> 8 & 255)]
        }
        return out
    }
}

/// Durations as `--ttl` takes them: `30s`, `15m`, `24h`, `7d`.
package enum TTL {
    /// Seconds, or nil when `text` is not a positive number with one of those units.
    package static func seconds(_ text: String) -> Int64? {
        guard let unit = text.last, let n = Int64(text.dropLast()), n > 0 else { return nil }
        let scale: Int64
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        case "d": scale = 86_400
        default: return nil
        }
        guard n <= 3650 * 86_400 / scale else { return nil }
        return n * scale
    }
}
