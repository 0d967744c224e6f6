import Foundation

/// A debug-build check that no store read runs on a thread that must never wait for the disk
/// (the server's service thread, which serves every socket). Release builds check nothing.
package enum ReadGuard {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Marks the calling thread as one on which every store read is a programmer error.
    package static func forbidReadsOnThisThread() {
        #if DEBUG
            pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        #endif
    }

    /// Stops a debug build when called on a thread marked by `forbidReadsOnThisThread`.
    package static func check() {
        #if DEBUG
            precondition(pthread_getspecific(key) == nil, "a store read on the service thread")
        #endif
    }
}
