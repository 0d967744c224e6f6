package import BoardStore
import Foundation

/// A `MemoryStore` whose writes take `writeLatency`, like a slow disk: answers that wait for a
/// durable write stay pending that long.
package final class SlowStore: DelegatingStore {
    /// Where the writes go, once they have waited.
    package let inner = MemoryStore()
    private let writeLatency: Duration

    /// A store whose every write takes `writeLatency`.
    package init(writeLatency: Duration) { self.writeLatency = writeLatency }

    /// Waits, then writes.
    package func write(_ batch: [StoreWrite]) throws(StoreError) {
        let (seconds, attoseconds) = writeLatency.components
        Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
        try inner.write(batch)
    }
}
