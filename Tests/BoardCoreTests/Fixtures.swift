import BoardCore

/// Test shorthands.
func item(_ s: String) -> ItemID { ItemID(s)! }
func zone(_ s: String) -> ZoneID { ZoneID(s)! }
func opID(_ s: String) -> OpID { OpID(s)! }
let alice = UserID("u1")
let bob = UserID("u2")
let demo = BoardID("demo")!
/// The monotonic reading `ms` milliseconds after the clock's origin.
func at(_ ms: Int64) -> Instant { Instant(milliseconds: ms) }
/// The wall-clock time the tests commit ops at (2023-11-14), far from any monotonic reading they use.
let wall = UnixTime(milliseconds: 1_700_000_000_000)

/// The default board's grid order as strings.
func order(_ board: Board, _ z: String = "grid") -> [String] {
    board.zone(zone(z))!.items.map(\.rawValue)
}
