import Foundation

/// What the scenarios need of the server process and the machine: ports, descriptors, waiting
/// for it to listen and for its users, one HTTP GET.
extension Scenarios {
    /// Polls the server's `/metrics` (every 20 ms, at most `timeout` seconds) until at least
    /// `count` connections are joined to boards.
    static func waitForUsers(_ count: Int, port: Int, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let page = try? httpGet("/metrics", port: port)
            let users = page?.split(separator: "\n").first { $0.hasPrefix("shuffleboard_users ") }
            if let users, let n = Double(users.split(separator: " ").last ?? ""), Int(n) >= count { return }
            usleep(20_000)
        }
        throw BenchError(description: "fewer than \(count) users joined within \(timeout) s")
    }

    /// The body of one HTTP/1.0 GET to 127.0.0.1 (the whole answer, read to its end), waiting at
    /// most `timeout` seconds for each read.
    static func httpGet(_ path: String, port: Int, timeout: Int = 5) throws -> String {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError(description: "socket") }
        defer { close(fd) }
        var time = timeval(tv_sec: timeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        guard connectLoopback(fd, port: port) else { throw BenchError(description: "connect") }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        guard send(fd, request, request.count, 0) == request.count else { throw BenchError(description: "send") }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while answer.count < 16 << 20 {
            let n = recv(fd, &buffer, buffer.count, 0)
            guard n > 0 else { break }
            answer += buffer[..<n]
        }
        return String(decoding: answer, as: UTF8.self)
    }

    static func descriptorLimit() -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        return Int(clamping: limit.rlim_max)
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError(description: "socket") }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError(description: "bind") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Connects the TCP socket `fd` to 127.0.0.1:`port`.
    static func connectLoopback(_ fd: Int32, port: Int) -> Bool {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Polls (every 20 ms, at most `timeout` seconds) until something accepts on `port`.
    static func waitUntilListening(port: Int, timeout: Double) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            let ok = connectLoopback(fd, port: port)
            close(fd)
            if ok { return }
            usleep(20_000)
        }
        throw BenchError(description: "the server did not listen on \(port) within \(timeout) s")
    }

    // MARK: - In-process scenarios (Swift client)
}
