internal import CLibWebSockets
import Glibc
import Synchronization

/// Where lws keeps each handshake's request headers: fixed slots in one mapping of their own,
/// not malloc's heap.
///
/// lws allocates a header table (`ah struct`, about 1 KiB) and its data buffer (`ah data`,
/// `max_http_header_data` bytes, 8 KiB here) for every connection while it reads the request,
/// and frees both once the connection has upgraded. On malloc's heap those short-lived blocks
/// sit between the long-lived ones of the connections accepted at the same time (lws's `struct
/// lws`, its ws part, the rx buffer, our `Connection`), and a connect storm leaves the heap full
/// of holes that later connections only partly fill and `malloc_trim` cannot give back: about
/// 2.5 MB after the first few hundred connections, 500 bytes per connection at 5,000. Slots in a
/// mapping of their own give their pages back to the kernel as each one is freed
/// (`MADV_DONTNEED`), so a connection's memory after its handshake is only what it keeps.
///
/// The allocator is process-wide (lws has one); `install()` sets it once, before any context is
/// made. Blocks of other kinds, blocks larger than a slot (a larger `--max-header-bytes`), and
/// any block once the slots are all taken go to malloc as before.
package enum HeaderSlab {
    /// One slot: lws's default `max_http_header_data`, and the server's.
    package static let slotBytes = 8192
    /// Slots in the mapping: two blocks per handshake for the server's default 1,024 header
    /// buffers. 16 MiB of address space; only the pages of slots in use are memory.
    package static let slotCount = 2048

    /// Routes lws's allocations through the slab. Idempotent; call before `lws_create_context`.
    package static func install() { _ = installed }

    /// Whether `pointer` is in the slab (for tests).
    package static func holds(_ pointer: UnsafeMutableRawPointer) -> Bool { slab.slot(of: pointer) != nil }

    private static let installed: Void = lws_set_allocator { allocate($0, $1, $2) }

    /// lws's allocator (`realloc` semantics, and size 0 frees): header blocks into the slab,
    /// everything else to malloc.
    package static func allocate(
        _ pointer: UnsafeMutableRawPointer?, _ size: Int, _ reason: UnsafePointer<CChar>?
    ) -> UnsafeMutableRawPointer? {
        if let pointer, let slot = slab.slot(of: pointer) {
            if size == 0 {
                slab.release(slot)
                return nil
            }
            if size <= HeaderSlab.slotBytes { return pointer }
            guard let moved = malloc(size) else { return nil }
            memcpy(moved, pointer, HeaderSlab.slotBytes)
            slab.release(slot)
            return moved
        }
        if pointer == nil, size > 0, size <= HeaderSlab.slotBytes, let reason,
            strcmp(reason, "ah data") == 0 || strcmp(reason, "ah struct") == 0,
            let block = slab.take()
        {
            return block
        }
        if size == 0 {
            free(pointer)
            return nil
        }
        return realloc(pointer, size)
    }
}

private let slab = Slab(slotBytes: HeaderSlab.slotBytes, count: HeaderSlab.slotCount)

/// `count` slots of `slotBytes` in one anonymous mapping, reserved but not committed
/// (`MAP_NORESERVE`): a slot's pages are memory only between its first write and its release.
private final class Slab: Sendable {
    private let base: UInt
    private let slotBytes: Int
    private let count: Int
    /// Free slot numbers, as a stack (the most recently freed first: its page tables are warm).
    private let free: Mutex<[Int32]>

    init(slotBytes: Int, count: Int) {
        self.slotBytes = slotBytes
        let mapping = mmap(
            nil, slotBytes * count, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0)
        if let mapping, mapping != MAP_FAILED {
            base = UInt(bitPattern: mapping)
            self.count = count
        } else {
            base = 0
            self.count = 0
        }
        free = Mutex((0..<Int32(self.count)).reversed())
    }

    func take() -> UnsafeMutableRawPointer? {
        guard let slot = free.withLock({ $0.popLast() }) else { return nil }
        return UnsafeMutableRawPointer(bitPattern: base + UInt(Int(slot) * slotBytes))
    }

    /// The slot `pointer` points at, or nil when it is not in the slab.
    func slot(of pointer: UnsafeMutableRawPointer) -> Int32? {
        let address = UInt(bitPattern: pointer)
        guard address >= base, address < base + UInt(count * slotBytes) else { return nil }
        return Int32((address - base) / UInt(slotBytes))
    }

    /// Gives the slot's pages back to the kernel (the next use starts from zeroed pages) and
    /// makes it free.
    func release(_ slot: Int32) {
        let block = UnsafeMutableRawPointer(bitPattern: base + UInt(Int(slot) * slotBytes))
        madvise(block, slotBytes, MADV_DONTNEED)
        free.withLock { $0.append(slot) }
    }
}
