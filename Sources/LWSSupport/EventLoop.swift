import Glibc

/// libev, loaded at run time (`libev.so.4`, which Debian's `libwebsockets-evlib-ev` depends on)
/// for lws's libev event-library plugin: the server makes the loop itself and hands it to lws as
/// a foreign loop, so that lws installs no SIGINT watcher of its own, and the service thread
/// runs it one pass at a time (`runOnce`), as it ran `lws_service` on lws's poll() loop.
package final class LibEV {
    private typealias LoopNew = @convention(c) (UInt32) -> OpaquePointer?
    private typealias Run = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias Destroy = @convention(c) (OpaquePointer?) -> Void
    private typealias Backend = @convention(c) (OpaquePointer?) -> UInt32

    /// The loop (`struct ev_loop *`).
    package let loop: OpaquePointer
    private let run: Run
    private let destroy: Destroy
    private let handle: UnsafeMutableRawPointer
    /// The loop's kernel interface: "epoll" (what libev picks on Linux), else the number.
    package let backendName: String

    /// A new loop on epoll, or nil (with why) when libev cannot be loaded or the loop made.
    package static func make() -> Result<LibEV, LoadError> {
        guard let handle = dlopen("libev.so.4", RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadError(description: "cannot load libev.so.4 (install libwebsockets-evlib-ev)"))
        }
        guard let new = dlsym(handle, "ev_loop_new"), let run = dlsym(handle, "ev_run"),
            let destroy = dlsym(handle, "ev_loop_destroy"), let backend = dlsym(handle, "ev_backend")
        else {
            dlclose(handle)
            return .failure(
                LoadError(description: "libev.so.4 lacks ev_loop_new, ev_run, ev_loop_destroy or ev_backend"))
        }
        // EVBACKEND_EPOLL (4): libev's own choice on Linux, asked for by name so it is never poll().
        guard let loop = unsafeBitCast(new, to: LoopNew.self)(4) else {
            dlclose(handle)
            return .failure(LoadError(description: "libev cannot make an epoll loop"))
        }
        let kind = unsafeBitCast(backend, to: Backend.self)(loop)
        return .success(
            LibEV(
                loop: loop, run: unsafeBitCast(run, to: Run.self), destroy: unsafeBitCast(destroy, to: Destroy.self),
                handle: handle, backendName: kind == 4 ? "epoll" : "backend \(kind)"))
    }

    private init(loop: OpaquePointer, run: Run, destroy: Destroy, handle: UnsafeMutableRawPointer, backendName: String)
    {
        self.loop = loop
        self.run = run
        self.destroy = destroy
        self.handle = handle
        self.backendName = backendName
    }

    /// One pass: waits for at least one event (or lws's timer, or its idle watcher) and handles
    /// what is ready (`ev_run(loop, EVRUN_ONCE)`).
    package func runOnce() { _ = run(loop, 2) }

    /// Frees the loop; only after the lws context on it is destroyed.
    package func close() {
        destroy(loop)
        dlclose(handle)
    }

    /// Why libev could not be used.
    package struct LoadError: Error, CustomStringConvertible {
        /// What went wrong.
        package var description: String
    }
}
