import BoardCore
import Testing

@testable import BoardStore

/// Every committed op goes to the store as a `StoreWrite`, copied on its way (the hub's action,
/// the writer's job and batch): the cases with a whole board are boxed, so a write is no larger
/// than an append's fields and its tag.
@Suite struct StoreWriteLayoutTests {
    @Test func aWriteIsNoLargerThanAnAppend() {
        let append = MemoryLayout<(BoardID, [CommittedOp])>.size
        #expect(
            MemoryLayout<StoreWrite>.size <= append + 1,
            "StoreWrite is \(MemoryLayout<StoreWrite>.size) B, an append's fields \(append) B")
    }
}
