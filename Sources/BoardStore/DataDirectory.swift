import Glibc

/// The data directory, created when missing, with an exclusive lock on it for the store's lifetime.
///
/// The lock is `flock(LOCK_EX | LOCK_NB)` on `shuffleboard.lock`, which holds the owner's pid so
/// that a second server can say who has the directory. `flock` locks belong to the open file, so a
/// second store in the same process is refused too. The kernel drops the lock when the process
/// dies, so a crashed server never leaves a stale lock behind.
final class DataDirectory {
    /// The directory.
    let path: String
    /// The lock file inside it.
    let lockPath: String
    private var lockFD: Int32 = -1

    /// Creates `path` if needed, checks it can be used, and locks it.
    init(path: String) throws(StoreError) {
        self.path = path
        lockPath = Self.file("shuffleboard.lock", in: path)
        try Self.prepare(path)
        try lock()
    }

    deinit { unlock() }

    /// A file inside the directory.
    func file(_ name: String) -> String { Self.file(name, in: path) }

    /// A file inside `directory`.
    static func file(_ name: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// Checks that `path` is an existing directory, without creating or locking anything.
    static func checkExisting(_ path: String) throws(StoreError) {
        var info = stat()
        try check(stat(path, &info), "cannot read \(path)")
        guard info.st_mode & S_IFMT == S_IFDIR else { throw StoreError("\(path) is not a directory") }
    }

    /// Releases the lock (the file stays; deleting it would race with a server starting up).
    func unlock() {
        guard lockFD >= 0 else { return }
        // close releases the flock; its result cannot be acted on here.
        _ = Glibc.close(lockFD)
        lockFD = -1
    }

    // MARK: POSIX calls

    /// The error funnel for POSIX calls: `result` of -1 becomes a `StoreError` with `strerror(errno)`.
    @discardableResult
    private static func check(_ result: Int32, _ what: @autoclosure () -> String) throws(StoreError) -> Int32 {
        guard result == -1 else { return result }
        throw StoreError("\(what()): \(String(cString: strerror(errno)))")
    }

    private static func prepare(_ path: String) throws(StoreError) {
        guard !path.isEmpty else { throw StoreError("the data directory path is empty") }
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw StoreError("\(path) is not a directory") }
        } else if errno == ENOENT {
            try makeDirectories(path)
        } else {
            try check(-1, "cannot read \(path)")
        }
        guard access(path, R_OK | W_OK | X_OK) == 0 else {
            throw StoreError("\(path) is not readable and writable: \(String(cString: strerror(errno)))")
        }
    }

    /// `mkdir -p`: each missing component in turn.
    private static func makeDirectories(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            var info = stat()
            if stat(prefix, &info) != 0 {
                if mkdir(prefix, 0o755) != 0, errno != EEXIST { try check(-1, "cannot create \(prefix)") }
            } else if info.st_mode & S_IFMT != S_IFDIR {
                throw StoreError("cannot create \(path): \(prefix) is not a directory")
            }
            prefix += "/"
        }
    }

    private func lock() throws(StoreError) {
        let fd = try Self.check(open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644), "cannot open \(lockPath)")
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            let owner = Self.readPID(fd)
            _ = Glibc.close(fd)
            if failure == EWOULDBLOCK {
                let who = owner.map { " (pid \($0))" } ?? ""
                throw StoreError("\(path) is in use by another shuffleboard server\(who)")
            }
            throw StoreError("cannot lock \(lockPath): \(String(cString: strerror(failure)))")
        }
        lockFD = fd
        do throws(StoreError) {
            try Self.check(ftruncate(fd, 0), "cannot write \(lockPath)")
            let text = Array("\(getpid())\n".utf8)
            let written = text.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
            try Self.check(written == text.count ? 0 : -1, "cannot write \(lockPath)")
        } catch {
            unlock()
            throw error
        }
    }

    private static func readPID(_ fd: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return Int(text.prefix { $0.isNumber })
    }
}
