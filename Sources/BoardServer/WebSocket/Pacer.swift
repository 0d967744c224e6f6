internal import CLibWebSockets
import Glibc

/// Wakes the service loop at a deadline (a `Clock.Reading`, to the microsecond): a timerfd that lws polls with the
/// sockets (adopted as a raw file, so its expiry is an `LWS_CALLBACK_RAW_RX_FILE`). lws's own
/// timers (`lws_sul_schedule`) round the wait down to whole milliseconds and poll without
/// waiting through the last one: a deadline every millisecond or two would spin the service
/// thread for much of the time. Confined to the service thread.
final class Pacer {
    private let fd: Int32
    /// The adopted timer's wsi: its callbacks are the pacer's.
    let wsi: OpaquePointer
    /// When the timer is set to fire, or nil.
    private(set) var deadline: Clock.Reading?

    /// Nil when the timerfd cannot be made or lws cannot adopt it (then nothing is paced).
    init?(context: OpaquePointer, protocolName: String) {
        fd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard fd >= 0 else { return nil }
        var descriptor = lws_sock_file_fd_type()
        descriptor.filefd = fd
        guard let vhost = lws_get_vhost_by_name(context, "default"),
            let wsi = lws_adopt_descriptor_vhost(vhost, LWS_ADOPT_RAW_FILE_DESC, descriptor, protocolName, nil)
        else {
            close(fd)
            return nil
        }
        // lws owns the descriptor from here: it closes it with the wsi, when the context goes.
        self.wsi = wsi
    }

    /// Sets the timer to fire at `due` unless it is set to fire before that.
    func fire(at due: Clock.Reading) {
        if let deadline, deadline <= due { return }
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(due.microseconds / 1_000_000)
        spec.it_value.tv_nsec = Int(due.microseconds % 1_000_000) * 1000
        timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        deadline = due
    }

    /// The timer fired: reads its count, so that poll stops reporting it.
    func fired() {
        var expirations: UInt64 = 0
        _ = read(fd, &expirations, MemoryLayout<UInt64>.size)
        deadline = nil
    }
}
