import Foundation

/// Runs `work`, which blocks (a semaphore wait, a join), on a thread of its own and awaits it.
///
/// Swift's concurrency pool has one thread per core, two here, and every test in a run shares
/// it. A test that blocks one of them holds up every other test's continuations: a client
/// waiting for its `welcome` is then not resumed for seconds while the server's timers run on.
package func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
