package import BoardCore
package import BoardStore
import Foundation

/// A `MemoryStore` whose writes take `writeLatency`, like a slow disk: answers that wait for a
/// durable write stay pending that long.
package final class SlowStore: BoardStore {
    private let store = MemoryStore()
    private let writeLatency: Duration

    /// A store whose every write takes `writeLatency`.
    package init(writeLatency: Duration) { self.writeLatency = writeLatency }

    /// Waits, then writes.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        let (seconds, attoseconds) = writeLatency.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        try store.write(batch)
    }

    /// As `MemoryStore`.
    package func load(_ id: BoardID, recentLimit: Int) throws(StoreError) -> StoredBoard? {
        try store.load(id, recentLimit: recentLimit)
    }

    /// As `MemoryStore`.
    package func exists(_ id: BoardID) throws(StoreError) -> Bool { try store.exists(id) }

    /// As `MemoryStore`.
    package func list(after: BoardID?, limit: Int) throws(StoreError) -> [BoardSummary] {
        try store.list(after: after, limit: limit)
    }

    /// As `MemoryStore`.
    package func ops(of id: BoardID, since: Seq, limit: Int) throws(StoreError) -> OpsPage {
        try store.ops(of: id, since: since, limit: limit)
    }

    /// As `MemoryStore`.
    package func archive(of id: BoardID) throws(StoreError) -> BoardArchive? { try store.archive(of: id) }

    /// As `MemoryStore`.
    package func restore(_ archive: BoardArchive, replace: Bool) throws(StoreError) {
        try store.restore(archive, replace: replace)
    }

    /// Nothing to close.
    package func close() {}
}
