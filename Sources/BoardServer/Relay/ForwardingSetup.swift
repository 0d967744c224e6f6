internal import CLibWebSockets

/// What forwarding needs for the life of the service: the upstreams' ping policy (lws keeps
/// pointing at it) and whether the log has warned about host names.
final class ForwardingSetup {
    /// The upstreams' `retry_and_idle_policy`: ping after `--forward-timeout` without a pong,
    /// hang up after twice that.
    let retry: UnsafeMutablePointer<lws_retry_bo_t>
    /// Set once the log said that a host name in `advertise` blocks the service thread.
    var warnedHostName = false
    /// Owners (`HOST:PORT`) whose TLS certificate did not verify, so that the log says so once
    /// for each until one of them is reached again. Bounded by the cluster's nodes: the
    /// addresses come from the cluster store, not from clients.
    var untrustedOwners: Set<String> = []

    init(timeout: Double) {
        let ping = UInt16(min(max(1, Int(timeout.rounded(.up))), 30_000))
        retry = .allocate(capacity: 1)
        retry.initialize(to: lws_retry_bo_t())
        retry.pointee.secs_since_valid_ping = ping
        retry.pointee.secs_since_valid_hangup = 2 * ping
    }

    deinit { retry.deallocate() }
}
