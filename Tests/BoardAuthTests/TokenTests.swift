import BoardCore
import Testing

@testable import BoardAuth

@Suite struct TokenTests {
    let first = Array("first secret, at least sixteen bytes".utf8)
    let second = Array("second secret, also long enough".utf8)
    let board = BoardID("demo")!

    @Test func aMintedTokenVerifiesWithItsClaims() {
        let authority = TokenAuthority(secrets: [first])
        let claims = Claims(board: board, role: .edit, expires: 2_000, name: "Ada")
        let token = authority.mint(claims)
        #expect(token.hasPrefix("v1."))
        #expect(token.allSatisfy { $0.isLetter || $0.isNumber || "-_.".contains($0) }, "URL-safe")
        guard case .success(let verified) = authority.verify(token, now: 1_999) else {
            Issue.record("\(token) refused")
            return
        }
        #expect(verified.id.map(TokenAuthority.isValidID) == true, "a minted token has an id")
        #expect(verified == Claims(board: board, role: .edit, expires: 2_000, name: "Ada", id: verified.id))
    }

    /// Issue 29, finding 8: two tokens minted in the same second for one board, role and name are
    /// different strings, so revoking one (by the SHA-256 of its text) leaves the other working.
    @Test func twoTokensWithTheSameClaimsAreDifferentAndSoAreTheirRevocationIDs() throws {
        let authority = TokenAuthority(secrets: [first])
        let claims = Claims(board: board, role: .edit, expires: 2_000, name: "Ada")
        let tokens = (0..<64).map { _ in authority.mint(claims) }
        #expect(Set(tokens).count == 64)
        #expect(Set(tokens.map(TokenAuthority.revocationID(of:))).count == 64)
        let ids = tokens.compactMap { try? authority.verify($0, now: 0).get().id }
        #expect(Set(ids).count == 64)
        // An id given is kept: minting is reproducible where a caller needs it to be.
        #expect(
            try authority.verify(authority.mint(Claims(board: board, role: .view, expires: 5, id: "abc")), now: 0).get()
                .id == "abc")
    }

    /// A token minted before ids existed (no "j" in its payload) still verifies, without an id;
    /// one whose "j" is not an id is malformed.
    @Test func aTokenWithoutAnIdStillVerifies() {
        let authority = TokenAuthority(secrets: [first])
        func signed(_ payload: String) -> String {
            let head = "v1." + Base64URL.encode(Array(payload.utf8))
            return head + "." + Base64URL.encode(hmacSHA256(Array(head.utf8), key: first))
        }
        #expect(
            authority.verify(signed(#"{"b":"demo","r":"view","e":10}"#), now: 0)
                == .success(Claims(board: board, role: .view, expires: 10)))
        #expect(authority.verify(signed(#"{"b":"demo","r":"view","e":10,"j":"a b"}"#), now: 0) == .failure(.malformed))
        #expect(authority.verify(signed(#"{"b":"demo","r":"view","e":10,"j":7}"#), now: 0) == .failure(.malformed))
    }

    @Test func oneChangedCharacterIsForged() {
        let authority = TokenAuthority(secrets: [first])
        let token = Array(authority.mint(Claims(board: board, role: .view, expires: 2_000)))
        for i in [3, token.count / 2, token.count - 2] {
            var changed = token
            changed[i] = changed[i] == "A" ? "B" : "A"
            let result = authority.verify(String(changed), now: 0)
            #expect(result == .failure(.forged) || result == .failure(.malformed), "position \(i)")
        }
    }

    @Test func anotherSecretsTokenIsForgedAndExpiredIsExpired() {
        let mine = TokenAuthority(secrets: [first])
        let theirs = TokenAuthority(secrets: [second])
        let token = theirs.mint(Claims(board: board, role: .admin, expires: 100))
        #expect(mine.verify(token, now: 0) == .failure(.forged))
        #expect(theirs.verify(token, now: 100) == .failure(.expired))
    }

    @Test func rotationKeepsOldTokensWorkingWhileTheNewSecretSigns() throws {
        let old = TokenAuthority(secrets: [first])
        let rotated = TokenAuthority(secrets: [second, first])
        let oldToken = old.mint(Claims(board: nil, role: .view, expires: 10))
        #expect(try rotated.verify(oldToken, now: 0).get().role == .view)
        let newToken = rotated.mint(Claims(board: nil, role: .view, expires: 10))
        #expect(old.verify(newToken, now: 0) == .failure(.forged), "the new secret signs")
    }

    @Test(arguments: [
        "", "v1", "v1..", "v2.e30.AAAA", "v1.!!!.AAAA", "v1.e30.AAAA", String(repeating: "x", count: 5000),
    ])
    func garbageIsMalformed(_ token: String) {
        #expect(TokenAuthority(secrets: [first]).verify(token, now: 0) == .failure(.malformed))
    }

    @Test func rolesAllowWhatTheyShould() {
        let view = Claims(board: board, role: .view, expires: 1)
        let admin = Claims(board: nil, role: .admin, expires: 1)
        #expect(view.allow(.view, on: board) && !view.allow(.edit, on: board))
        #expect(!view.allow(.view, on: BoardID("other")!))
        #expect(admin.allow(.admin, on: BoardID("other")!) && admin.allow(.edit, on: board))
    }

    @Test func secretsFilesTakeOneSecretPerLine() throws {
        let file = Array(
            "# keys\n\(String(decoding: second, as: UTF8.self))\r\n\n  \(String(decoding: first, as: UTF8.self))  \n"
                .utf8)
        #expect(try TokenAuthority.secrets(fromFile: file) == [second, first])
        #expect(throws: SecretsProblem.self) { try TokenAuthority.secrets(fromFile: Array("short\n".utf8)) }
        #expect(throws: SecretsProblem.self) { try TokenAuthority.secrets(fromFile: Array("# nothing\n".utf8)) }
    }

    @Test func base64URLRoundTripsAndRefusesNonCanonicalText() {
        for n in 0..<40 {
            let bytes = (0..<n).map { UInt8(($0 * 37 + n) & 255) }
            #expect(Base64URL.decode(Array(Base64URL.encode(bytes).utf8)) == bytes)
        }
        #expect(Base64URL.decode(Array("AB".utf8)) == nil, "trailing bits set")
        #expect(Base64URL.decode(Array("A".utf8)) == nil)
        #expect(Base64URL.decode(Array("a+b/".utf8)) == nil)
    }

    @Test func aRevocationNamesATokenByTheSHA256OfItsText() {
        // FIPS 180-2's example: what `printf abc | sha256sum` prints.
        #expect(
            TokenAuthority.revocationID(of: "abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        )
        let token = TokenAuthority(secrets: [Array("a secret of at least sixteen bytes".utf8)]).mint(
            Claims(board: nil, role: .view, expires: 10))
        #expect(TokenAuthority.revocationID(of: token).count == 64)
        #expect(!TokenAuthority.revocationID(of: token).contains(token))
    }

    @Test func ttlsTakeUnits() {
        #expect(TTL.seconds("30s") == 30 && TTL.seconds("15m") == 900)
        #expect(TTL.seconds("24h") == 86_400 && TTL.seconds("7d") == 604_800)
        #expect(
            TTL.seconds("0s") == nil && TTL.seconds("5") == nil && TTL.seconds("3w") == nil && TTL.seconds("") == nil)
    }
}
