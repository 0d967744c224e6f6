internal import BoardAuth
internal import BoardCore
internal import BoardStore

/// The grants the hub knows (kept by `Access`; the API is Hub+Grants.swift's): the store's at
/// start, then this node's own changes as they become durable; in a cluster reloaded from the
/// shared store every second, as revocations are, so that a grant made on another node reaches
/// this node's sessions.
package struct GrantTable {
    /// The most grants one board has (a `PUT` for another member past it gets 507).
    static let maximumPerBoard = 200
    /// The most grants the server keeps in all (a `PUT` past it gets 507; a load keeps this many).
    package static let maximum = 100_000
    /// How often a cluster node reloads them, in milliseconds.
    static let reloadEvery: Int64 = 1_000

    /// By board, then member.
    private(set) var byBoard: [BoardID: [MemberID: Grant]] = [:]
    /// By member, then board (a proxy user's API claims carry their roles).
    private(set) var byMember: [MemberID: [BoardID: Role]] = [:]
    /// How many in all.
    private(set) var count = 0
    /// A reload is out.
    var loading = false
    /// When the last reload was asked for.
    var lastAsked: Instant?
    /// When this node last changed a grant: a reload asked before it may not show the change,
    /// and is dropped (the next one shows it).
    var lastChanged: Instant?

    /// One member's role on one board.
    struct Grant: Equatable {
        var role: Role
        /// Seconds since 1970.
        var granted: Int64
    }

    /// The table of `grants` (those whose role is not one are skipped).
    init(_ grants: [MemberGrant] = []) {
        for grant in grants.prefix(Self.maximum) {
            guard let role = Role(rawValue: grant.role) else { continue }
            set(grant.member, on: grant.board, to: Grant(role: role, granted: grant.granted))
        }
    }

    /// The member's grant on the board, if any.
    func grant(of member: MemberID, on board: BoardID) -> Grant? { byBoard[board]?[member] }

    /// The member's roles by board (for a proxy user's API claims).
    func roles(of member: MemberID) -> [BoardID: Role] { byMember[member] ?? [:] }

    /// Sets (or, with nil, removes) the member's grant on the board.
    mutating func set(_ member: MemberID, on board: BoardID, to grant: Grant?) {
        var grants = byBoard[board] ?? [:]
        let before = grants.count
        grants[member] = grant
        count += grants.count - before
        byBoard[board] = grants.isEmpty ? nil : grants
        var roles = byMember[member] ?? [:]
        roles[board] = grant?.role
        byMember[member] = roles.isEmpty ? nil : roles
    }

    /// Forgets the board's grants (it was deleted); the members who had one.
    mutating func remove(_ board: BoardID) -> [MemberID] {
        guard let grants = byBoard[board] else { return [] }
        for member in grants.keys { set(member, on: board, to: nil) }
        return Array(grants.keys)
    }

    /// Takes a reload: the (board, member) pairs whose role changed.
    mutating func replace(with loaded: GrantTable) -> [(BoardID, MemberID)] {
        var changed: [(BoardID, MemberID)] = []
        for board in Set(byBoard.keys).union(loaded.byBoard.keys) {
            let old = byBoard[board] ?? [:]
            let new = loaded.byBoard[board] ?? [:]
            for member in Set(old.keys).union(new.keys) where old[member]?.role != new[member]?.role {
                changed.append((board, member))
            }
        }
        byBoard = loaded.byBoard
        byMember = loaded.byMember
        count = loaded.count
        return changed
    }
}
