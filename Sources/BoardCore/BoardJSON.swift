/// A board's JSON text (as `Board.encoded()` writes it), encoded once and shared by every message
/// that carries the board: the welcomes of every joiner at one seq (`Room.publishedJSON()`).
package final class BoardJSON: Sendable {
    /// The UTF-8 text of the board object.
    package let bytes: [UInt8]

    /// The text of `board`.
    package init(_ board: Board) { bytes = board.encoded() }
}
