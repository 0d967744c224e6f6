import BoardCore

/// Test shorthands.
func item(_ s: String) -> ItemID { ItemID(s)! }
func zone(_ s: String) -> ZoneID { ZoneID(s)! }
func opID(_ s: String) -> OpID { OpID(s)! }
let alice = UserID("u1")
let bob = UserID("u2")
let demo = BoardID("demo")!

/// The default board's grid order as strings.
func order(_ board: Board, _ z: String = "grid") -> [String] {
    board.zone(zone(z))!.items.map(\.rawValue)
}
