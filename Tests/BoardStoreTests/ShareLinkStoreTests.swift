import BoardCore
import Testing

@testable import BoardStore

/// Share links (ShareLink.swift) on every store: kept across a reopen, bounded per board, listed
/// live only, and revoked together with their token's revocation.
@Suite struct ShareLinkStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func link(_ n: Int, board: BoardID = boardA, expires: Int64 = 5_000) -> ShareLink {
        ShareLink(
            id: "link\(n)", board: board, role: n % 2 == 0 ? "view" : "edit", created: 1_000 + Int64(n),
            expires: expires, tokenID: String(repeating: "\(n % 10)", count: 64))
    }

    @Test(arguments: stores) func linksAreKeptListedAndBoundedPerBoard(_ backend: Backend) throws {
        try withSpace(backend) { space in
            do {
                let store = try #require(try space.open() as? any LinkStore)
                #expect(try store.addLink(Self.link(1), maximum: 2, now: 1_000))
                #expect(try store.addLink(Self.link(2, expires: 1_500), maximum: 2, now: 1_000))
                #expect(!(try store.addLink(Self.link(3), maximum: 2, now: 1_000)), "the board has its most")
                #expect(try store.addLink(Self.link(4, board: boardB), maximum: 2, now: 1_000), "another board's")
                #expect(try store.links(of: boardA, now: 1_000) == [Self.link(1), Self.link(2, expires: 1_500)])
                #expect(try store.links(of: boardA, now: 1_500) == [Self.link(1)], "live ones only")
                store.close()
            }
            let store = try #require(try space.open() as? any LinkStore)
            #expect(try store.links(of: boardB, now: 1_000) == [Self.link(4, board: boardB)], "kept across a reopen")
            // Once one has expired, its place is free.
            #expect(try store.addLink(Self.link(3), maximum: 2, now: 1_500))
            #expect(try store.links(of: boardA, now: 1_500) == [Self.link(1), Self.link(3)])
        }
    }

    @Test(arguments: stores) func revokingALinkRemovesItAndRevokesItsToken(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try #require(try space.open() as? any LinkStore)
            #expect(try store.addLink(Self.link(1), maximum: 10, now: 1_000))
            #expect(try store.addLink(Self.link(2), maximum: 10, now: 1_000))
            #expect(try store.revokeLink("link1", of: boardB, now: 1_000) == nil, "another board's link")
            #expect(try store.revokeLink("nope", of: boardA, now: 1_000) == nil)
            #expect(try store.revocations(now: 1_000).isEmpty)
            #expect(try store.revokeLink("link1", of: boardA, now: 1_000) == Self.link(1))
            #expect(try store.links(of: boardA, now: 1_000) == [Self.link(2)])
            #expect(
                try store.revocations(now: 1_000) == [Revocation(id: Self.link(1).tokenID, board: boardA, until: 5_000)]
            )
            #expect(try store.revokeLink("link1", of: boardA, now: 1_000) == nil, "once")
        }
    }
}

extension ClaimingStore: LinkStore {
    func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> Bool {
        try inner.addLink(link, maximum: maximum, now: now)
    }
    func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink] {
        try inner.links(of: board, now: now)
    }
    func revokeLink(_ id: String, of board: BoardID, now: Int64) throws(StoreError) -> ShareLink? {
        try inner.revokeLink(id, of: board, now: now)
    }
}
