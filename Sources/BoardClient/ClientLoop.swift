/// One libwebsockets client context and its service thread, shared by many connections.
///
/// Create one per test or benchmark, connect as many clients as needed, and call
/// `shutdown()` (or drop the loop) when done; that closes every connection.
public final class ClientLoop: Sendable {
    private let service: ClientService

    /// Creates the lws client context and starts its service thread.
    public init() throws {
        service = try ClientService()
    }

    deinit {
        service.shutdown()
    }

    /// Opens a WebSocket to `ws://host:port/path`, offering `subprotocol` (none if nil); throws on refusal, handshake failure or timeout.
    public func connect(
        host: String = "127.0.0.1",
        port: Int,
        path: String = "/ws",
        subprotocol: String? = "shuffleboard.v1",
        timeout: Duration = .seconds(5)
    ) async throws -> ClientConnection {
        guard (1...65_535).contains(port) else {
            throw ClientError.invalidArgument("port \(port) is outside 1...65535")
        }
        guard path.hasPrefix("/") else {
            throw ClientError.invalidArgument("path \"\(path)\" does not start with /")
        }
        let connection = ClientConnection(id: service.makeConnectionID(), service: service)
        let request = ClientService.ConnectRequest(host: host, port: port, path: path, subprotocol: subprotocol)
        guard service.post(.connect(connection, request)) else {
            throw ClientError.loopShutDown
        }
        do {
            try await connection.waitUntilOpen(timeout: timeout)
        } catch {
            // Timed out or cancelled: make sure the half-open socket goes away.
            connection.abandon()
            throw error
        }
        return connection
    }

    /// Closes all connections, stops the service thread and destroys the context; idempotent, blocks until done.
    public func shutdown() {
        service.shutdown()
    }
}
