/// What a drop would do where the held item hovers: shown to others as a preview, never stored.
package enum DragMode: String, Equatable, Sendable {
    /// Exchange places with the item under the pointer.
    case swap
    /// Insert before the item under the pointer (live reorder).
    case move
}
