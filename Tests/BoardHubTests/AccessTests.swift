import BoardAuth
import BoardCore
import BoardMetrics
import BoardStore
import Testing

@testable import BoardHub

/// `Access` alone, without the hub: a token checked for a board and why it is refused (each
/// refusal counted), revocations made here, and the reload's cadence.
@Suite struct AccessTests {
    let secret = Array("a secret of at least thirty-two bytes!!".utf8)
    let start: Int64 = 1_764_000_000

    final class Parts {
        let turn: Turn
        let access: Access
        var now = Instant(milliseconds: 1_000)
        let wall: UnixTime

        init(auth: TokenAuthority?, start: Int64) {
            var config = Hub.Config()
            config.auth = auth
            wall = UnixTime(milliseconds: start * 1000)
            turn = Turn(config, meters: HubMeters(Metrics()))
            access = Access(config: config, turn: turn)
            step()
        }

        func step() { _ = turn.begin(now: now, wall: wall) }

        func actions() -> [Hub.Action] {
            defer { step() }
            return turn.take().filter { if case .log = $0 { false } else { true } }
        }
    }

    func authority() -> TokenAuthority { TokenAuthority(secrets: [secret]) }

    func token(_ board: String?, _ role: Role, expires: Int64) -> String {
        authority().mint(Claims(board: board.flatMap(BoardID.init), role: role, expires: expires))
    }

    @Test func withoutAccessControlEveryoneMayDoEverything() {
        let p = Parts(auth: nil, start: start)
        guard case .success(let claims) = p.access.check(nil, board: BoardID("demo")!, via: .hello) else {
            Issue.record("refused")
            return
        }
        #expect(claims.role == .admin && claims.board == nil)
        #expect(p.access.reload() == nil, "nothing to reload")
        #expect(p.actions() == [])
    }

    @Test func aTokenIsCheckedForItsBoardAndEachRefusalIsCounted() {
        let p = Parts(auth: authority(), start: start)
        let demo = BoardID("demo")!
        let good = token("demo", .edit, expires: start + 60)
        #expect((try? p.access.check(good, board: demo, via: .hello).get())?.role == .edit)
        let refusals: [(String?, String, AuthFailure.Reason)] = [
            (nil, "no token", .missing),
            (token("other", .edit, expires: start + 60), "a token for another board", .otherBoard),
            (token("demo", .edit, expires: start - 1), TokenProblem.expired.description, .expired),
            ("x", TokenProblem.malformed.description, .malformed),
        ]
        for (token, why, reason) in refusals {
            guard case .failure(let refusal) = p.access.check(token, board: demo, via: .auth) else {
                Issue.record("\(why) was taken")
                continue
            }
            #expect(refusal.why == why)
            #expect(p.turn.meters.authFailures.value(AuthFailure(.auth, reason)) == 1)
        }
        p.access.made(Revocation(id: TokenAuthority.revocationID(of: good), board: demo, until: start + 60))
        #expect(p.access.isRevoked(good) && p.access.anyRevoked)
        guard case .failure(let refusal) = p.access.check(good, board: demo, via: .hello) else {
            Issue.record("a revoked token was taken")
            return
        }
        #expect(refusal.why == "a revoked token")
        #expect(p.turn.meters.authFailures.value(AuthFailure(.hello, .revoked)) == 1)
    }

    @Test func theRevocationsAreReloadedOnceASecondAndNotWhileOneIsOut() {
        let p = Parts(auth: authority(), start: start)
        let first = p.access.reload()
        #expect(p.access.reloadsAsked == 1)
        guard case .revocations = first else {
            Issue.record("expected one reload, got \(String(describing: first))")
            return
        }
        #expect(p.actions() == [], "asked by the hub")
        p.now = p.now + 2_000
        p.step()
        #expect(p.access.reload() == nil, "one is out")
        #expect(p.access.loaded(.success(RevocationSet())) == .same, "nothing changed")
        #expect(p.access.reload() != nil)
        #expect(p.access.loaded(.success(RevocationSet())) == .same)
        #expect(p.access.reload() == nil, "within the second")
        let revocation = Revocation(id: "r1", board: nil, until: start + 60)
        #expect(p.access.loaded(.success(RevocationSet([revocation]))) == .changed, "a change")
        #expect(p.access.isRevoked(id: "r1"))
        p.now = p.now + 1_000
        p.step()
        p.turn.stop(at: p.now + 1_000)
        #expect(p.access.reload() == nil, "not once stopping")
    }

    @Test func aRefreshAdoptsAValidTokenAndLetsGoOfTheHeldItemOnlyWhenTheRoleFallsBelowEdit() {
        let demo = BoardID("demo")!
        #expect(Parts(auth: nil, start: start).access.refresh("x", board: demo, role: .view) == .everything)
        let p = Parts(auth: authority(), start: start)
        let viewer = token("demo", .view, expires: start + 60)
        let editor = token(nil, .edit, expires: start + 90)
        guard let viewerClaims = try? p.access.check(viewer, board: demo, via: .auth).get() else {
            Issue.record("a valid view token was refused")
            return
        }
        #expect(viewerClaims.role == .view && viewerClaims.board == demo && viewerClaims.expires == start + 60)
        let id = TokenAuthority.revocationID(of: viewer)
        #expect(p.access.refresh(viewer, board: demo, role: .edit) == .adopt(viewerClaims, tokenID: id, letsGo: true))
        #expect(p.access.refresh(viewer, board: demo, role: .view) == .adopt(viewerClaims, tokenID: id, letsGo: false))
        guard case .adopt(let claims, _, let letsGo) = p.access.refresh(editor, board: demo, role: .view) else {
            Issue.record("a `*` edit token was refused")
            return
        }
        #expect(claims.role == .edit && claims.board == nil && !letsGo)
        #expect(
            p.access.refresh(token("other", .edit, expires: start + 60), board: demo, role: .edit)
                == .refused(why: "a token for another board"))
        #expect(p.turn.meters.authFailures.value(AuthFailure(.auth, .otherBoard)) == 1, "counted as an auth's")
        p.access.made(Revocation(id: id, board: demo, until: start + 60))
        #expect(p.access.refresh(viewer, board: demo, role: .edit) == .refused(why: "a revoked token"))
        #expect(Access.refusedRefresh(on: demo).message.contains("keeps its current token"))
    }

    @Test func aSessionsTokenEndsAtItsExpirySecondOrOnceItsIdIsRevoked() {
        #expect(!Parts(auth: nil, start: start).access.anyMayEnd(for: .expired), "nothing expires without auth")
        let p = Parts(auth: authority(), start: start)
        #expect(p.access.anyMayEnd(for: .expired) && !p.access.anyMayEnd(for: .revoked))
        let now = SessionToken(expires: start, id: "r1")
        let later = SessionToken(expires: start + 1, id: "r2")
        let proxied = SessionToken(expires: .max, id: nil)
        #expect(p.access.ends(now, for: .expired), "at the second it expires")
        #expect(!p.access.ends(later, for: .expired) && !p.access.ends(proxied, for: .expired))
        #expect(!p.access.ends(nil, for: .expired) && !p.access.ends(nil, for: .revoked))
        #expect(!p.access.ends(later, for: .revoked))
        p.access.made(Revocation(id: "r2", board: nil, until: start + 60))
        #expect(p.access.anyMayEnd(for: .revoked))
        #expect(p.access.ends(later, for: .revoked) && !p.access.ends(now, for: .revoked))
        #expect(!p.access.ends(proxied, for: .revoked), "a token without an id is never revoked")
        #expect(Access.Ending.expired.error == ProtocolError(.unauthorized, "token expired"))
        #expect(Access.Ending.revoked.reason == "token revoked")
    }

    @Test func grantsChangedHereHoldAtOnceAndAReloadAskedBeforeTheChangeIsDropped() {
        var config = Hub.Config()
        config.auth = authority()
        config.cluster = ClusterSettings(node: "a", lease: .seconds(5))
        config.proxy = ProxyAuth(header: "x-forwarded-user", trusted: [try! CIDR.parse("10.0.0.0/24").get()])
        let turn = Turn(config, meters: HubMeters(Metrics()))
        let access = Access(config: config, turn: turn)
        let demo = BoardID("demo")!
        let ann = MemberID("ann")!
        _ = turn.begin(now: Instant(milliseconds: 1_000), wall: UnixTime(milliseconds: start * 1000))
        guard case .allGrants = access.reloadGrants() else {
            Issue.record("expected a reload of the grants")
            return
        }
        access.setGrant(ann, on: demo, to: GrantTable.Grant(role: .admin, granted: start))
        #expect(access.grant(of: ann, on: demo)?.role == .admin)
        #expect(access.proxyRole(of: ann, on: demo) == .admin && access.roles(of: ann) == [demo: .admin])
        #expect(access.grants(on: demo).count == 1 && access.mayGrant(ann, on: demo))
        #expect(access.loadedGrants(.success([])).isEmpty, "asked before the change: dropped")
        #expect(access.grant(of: ann, on: demo)?.role == .admin)
        _ = turn.begin(now: Instant(milliseconds: 2_000), wall: UnixTime(milliseconds: start * 1000 + 1_000))
        #expect(access.reloadGrants() != nil)
        let changed = access.loadedGrants(.success([]))
        #expect(changed.count == 1 && changed.first?.0 == demo && changed.first?.1 == ann, "taken back elsewhere")
        #expect(access.grant(of: ann, on: demo) == nil)
        #expect(access.proxyRole(of: ann, on: demo) == config.proxy?.role, "the proxy's default again")
    }
}
