import BoardCore
import Testing

@testable import BoardStore

/// Members' grants (MemberGrant.swift) on every store: only on a stored board (or one the caller
/// holds in memory), one per member and board (a new one replaces it), bounded per board, kept
/// across a reopen, and deleted with their board's deletion (not with an import that replaces it).
@Suite struct GrantStoreTests {
    static let stores: [Backend] = StoreContractTests.stores + [.memory]

    static func grant(_ member: String, _ role: String = "edit", on board: BoardID = boardA, at: Int64 = 1_000)
        -> MemberGrant
    {
        MemberGrant(board: board, member: MemberID(member)!, role: role, granted: at)
    }

    @Test(arguments: stores) func grantsAreKeptReplacedBoundedAndGoWithTheirBoard(_ backend: Backend) throws {
        try withSpace(backend) { space in
            do {
                let store = try #require(try space.open() as? any GrantStore)
                #expect(try store.grant(Self.grant("ann"), maximum: 2, boardKnown: false) == .unknownBoard)
                #expect(try store.grants(of: boardA).isEmpty, "nothing stored for a board that is not")
                try store.write([.create(.defaultTemplate(id: boardA)), .create(.defaultTemplate(id: boardB))])
                #expect(try store.grant(Self.grant("ann"), maximum: 2, boardKnown: false) == .granted)
                #expect(try store.grant(Self.grant("bob", "view"), maximum: 2, boardKnown: false) == .granted)
                #expect(try store.grant(Self.grant("cy"), maximum: 2, boardKnown: false) == .full)
                #expect(
                    try store.grant(Self.grant("ann", "admin", at: 2_000), maximum: 2, boardKnown: false) == .granted,
                    "a member's own grant is replaced, full board or not")
                #expect(try store.grant(Self.grant("cy", on: boardB), maximum: 2, boardKnown: true) == .granted)
                store.close()
            }
            let store = try #require(try space.open() as? any GrantStore)
            #expect(
                try store.grants(of: boardA) == [Self.grant("ann", "admin", at: 2_000), Self.grant("bob", "view")],
                "kept across a reopen, by member")
            #expect(try store.allGrants(limit: 10).count == 3)
            #expect(try store.allGrants(limit: 2).count == 2, "a load is bounded")
            #expect(try store.removeGrant(of: MemberID("bob")!, on: boardB) == nil, "another board's")
            #expect(try store.removeGrant(of: MemberID("bob")!, on: boardA) == Self.grant("bob", "view"))
            #expect(try store.removeGrant(of: MemberID("bob")!, on: boardA) == nil, "once")
            try store.write([.delete(boardA)])
            #expect(try store.grants(of: boardA).isEmpty, "gone with the board")
            #expect(try store.allGrants(limit: 10) == [Self.grant("cy", on: boardB)])
            try store.write([.create(.defaultTemplate(id: boardA))])
            #expect(try store.grants(of: boardA).isEmpty, "a board made again under the id has none")
        }
    }
}

extension ClaimingStore: GrantStore {
    func grant(_ grant: MemberGrant, maximum: Int, boardKnown: Bool) throws(StoreError) -> GrantOutcome {
        try inner.grant(grant, maximum: maximum, boardKnown: boardKnown)
    }
    func removeGrant(of member: MemberID, on board: BoardID) throws(StoreError) -> MemberGrant? {
        try inner.removeGrant(of: member, on: board)
    }
    func grants(of board: BoardID) throws(StoreError) -> [MemberGrant] { try inner.grants(of: board) }
    func allGrants(limit: Int) throws(StoreError) -> [MemberGrant] { try inner.allGrants(limit: limit) }
}
