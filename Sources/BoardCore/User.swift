/// Someone connected to a board: one per connection.
package struct User: Equatable, Sendable {
    /// Server-assigned id.
    package var id: UserID
    /// Display name from `hello`.
    package var name: String
    /// A CSS color that marks this user's hand on every screen.
    package var color: String
    /// The person behind the connection, stable across connections: a token's `sub`, else
    /// `hello.member`, else the user id itself.
    package var member: MemberID

    /// A user; without a member, the user id stands for one.
    package init(id: UserID, name: String, color: String, member: MemberID? = nil) {
        self.id = id
        self.name = name
        self.color = color
        self.member = member ?? MemberID(id.rawValue) ?? MemberID("unknown")!
    }

    /// Hand colors, handed out round-robin by user number.
    package static let palette = [
        "#d32f2f", "#1976d2", "#388e3c", "#f57c00", "#7b1fa2", "#0097a7", "#c2185b", "#5d4037",
    ]

    /// The hand color for the `n`th user.
    package static func color(forUserNumber n: UInt64) -> String {
        palette[Int(n % UInt64(palette.count))]
    }
}
