import Foundation

/// A TCP socket connected to 127.0.0.1:`port`, for the raw test clients: reads and writes give up
/// after `timeout` seconds, and `receiveBuffer` (set before connecting, so the TCP window is
/// small too) makes a client that reads slowly. Returns the descriptor; the caller closes it.
package func connectLoopback(port: Int, timeout: Int = 5, receiveBuffer: Int? = nil) throws -> Int32 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw RawHTTP.Failure(description: "socket failed") }
    var time = timeval(tv_sec: timeout, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    if var size = receiveBuffer.map(Int32.init) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            Foundation.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
    guard connected == 0 else {
        Foundation.close(fd)
        throw RawHTTP.Failure(description: "connect to port \(port) failed")
    }
    return fd
}
