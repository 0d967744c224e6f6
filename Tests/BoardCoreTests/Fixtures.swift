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

/// A deterministic generator so that randomized tests can print and replay their seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
