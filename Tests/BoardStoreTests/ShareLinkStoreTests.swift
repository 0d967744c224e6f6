import BoardCore
import Testing

@testable import BoardStore

/// Share links (ShareLink.swift) on every store: kept across a reopen, bounded per board, listed
/// live only, revoked together with their token's revocation, only for a stored board, and
/// revoked with their board when it is deleted or replaced.
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
                let store = try Self.open(space, boards: [boardA, boardB])
                #expect(try store.addLink(Self.link(1), maximum: 2, now: 1_000) == .added)
                #expect(try store.addLink(Self.link(2, expires: 1_500), maximum: 2, now: 1_000) == .added)
                #expect(try store.addLink(Self.link(3), maximum: 2, now: 1_000) == .full, "the board has its most")
                #expect(
                    try store.addLink(Self.link(4, board: boardB), maximum: 2, now: 1_000) == .added, "another board's")
                #expect(try store.links(of: boardA, now: 1_000) == [Self.link(1), Self.link(2, expires: 1_500)])
                #expect(try store.links(of: boardA, now: 1_500) == [Self.link(1)], "live ones only")
                store.close()
            }
            let store = try #require(try space.open() as? any LinkStore)
            #expect(try store.links(of: boardB, now: 1_000) == [Self.link(4, board: boardB)], "kept across a reopen")
            // Once one has expired, its place is free.
            #expect(try store.addLink(Self.link(3), maximum: 2, now: 1_500) == .added)
            #expect(try store.links(of: boardA, now: 1_500) == [Self.link(1), Self.link(3)])
        }
    }

    @Test(arguments: stores) func revokingALinkRemovesItAndRevokesItsToken(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try Self.open(space, boards: [boardA, boardB])
            #expect(try store.addLink(Self.link(1), maximum: 10, now: 1_000) == .added)
            #expect(try store.addLink(Self.link(2), maximum: 10, now: 1_000) == .added)
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

    @Test(arguments: stores) func noLinkIsMadeOrListedForABoardThatIsNotStored(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try Self.open(space, boards: [boardA])
            #expect(try store.addLink(Self.link(1, board: boardB), maximum: 10, now: 1_000) == .unknownBoard)
            #expect(try store.links(of: boardB, now: 1_000) == nil)
            #expect(try store.links(of: boardA, now: 1_000) == [])
        }
    }

    /// A deleted board's links are gone and their tokens revoked (until they would have expired),
    /// so a board made again under its id does not honour them; so is a board replaced by an import.
    @Test(arguments: stores) func aBoardsLinksAreRevokedWithItsDeletionOrReplacement(_ backend: Backend) throws {
        try withSpace(backend) { space in
            let store = try Self.open(space, boards: [boardA, boardB])
            #expect(try store.addLink(Self.link(1), maximum: 10, now: 1_000) == .added)
            #expect(try store.addLink(Self.link(2, expires: 6_000), maximum: 10, now: 1_000) == .added)
            #expect(try store.addLink(Self.link(3, board: boardB), maximum: 10, now: 1_000) == .added)
            try (store as any BoardStore).write([.delete(boardA)])
            #expect(try store.links(of: boardA, now: 1_000) == nil)
            #expect(
                try store.revocations(now: 1_000) == [
                    Revocation(id: Self.link(1).tokenID, board: boardA, until: 5_000),
                    Revocation(id: Self.link(2).tokenID, board: boardA, until: 6_000),
                ])
            try (store as any BoardStore).write([.create(.defaultTemplate(id: boardA))])
            #expect(try store.links(of: boardA, now: 1_000) == [], "the board made again has none of them")
            #expect(try store.links(of: boardB, now: 1_000) == [Self.link(3, board: boardB)], "another board's stay")

            let archive = try (store as any BoardStore).archive(of: boardB)
            try (store as any BoardStore).restore(try #require(archive), replace: true)
            #expect(try store.links(of: boardB, now: 1_000) == [])
            #expect(try store.revocations(now: 1_000).map(\.id).contains(Self.link(3).tokenID))
        }
    }

    /// The store opened, with `boards` stored (a link is made only for a stored board).
    static func open(_ space: StoreSpace, boards: [BoardID]) throws -> any LinkStore {
        let store = try space.open()
        try store.write(boards.map { .create(.defaultTemplate(id: $0)) })
        return try #require(store as? any LinkStore)
    }
}

extension ClaimingStore: LinkStore {
    func addLink(_ link: ShareLink, maximum: Int, now: Int64) throws(StoreError) -> LinkAddition {
        try inner.addLink(link, maximum: maximum, now: now)
    }
    func links(of board: BoardID, now: Int64) throws(StoreError) -> [ShareLink]? {
        try inner.links(of: board, now: now)
    }
    func revokeLink(_ id: String, of board: BoardID, now: Int64) throws(StoreError) -> ShareLink? {
        try inner.revokeLink(id, of: board, now: now)
    }
}
