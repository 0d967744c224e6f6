package import BoardClient
package import BoardCore
package import BoardServer
package import BoardStore

/// A real server on a free port, in this process, stopped when the body ends.
package func withTestServer<T>(
    _ configure: (inout ServerConfig) -> Void = { _ in },
    store: any BoardStore = MemoryStore(),
    _ body: (TestServer) async throws -> T
) async throws -> T {
    var config = ServerConfig()
    config.port = 0
    config.hub.logLevel = .warning
    // Tests share a few threads and a test's client may wait its turn for seconds: the hello
    // timeout stays out of their way unless a test is about it and sets its own.
    config.hub.helloTimeout = .seconds(3600)
    configure(&config)
    let server = Server(config: config, store: store)
    let port = try server.start()
    let loop = try ClientLoop()
    let test = TestServer(server: server, port: port, loop: loop)
    let result: Result<T, any Error>
    do { result = .success(try await body(test)) } catch { result = .failure(error) }
    loop.shutdown()
    // A hung service thread must fail the test, not hang it.
    guard try await offThePool({ server.stop(within: .seconds(10)) }) else { throw ServerDidNotStop() }
    return try result.get()
}

/// `Server.stop` did not return in time: the service thread is stuck.
package struct ServerDidNotStop: Error, CustomStringConvertible {
    /// What happened.
    package var description: String { "the server did not stop within 10 s (its service thread is stuck)" }
}

/// The server under test, its port, and a client loop to connect with.
package struct TestServer: Sendable {
    /// The running server.
    package let server: Server
    /// Its port.
    package let port: Int
    /// The client loop every test client shares.
    package let loop: ClientLoop

    /// Connects a client (not yet joined).
    package func connect(subprotocol: String? = "shuffleboard.v1", path: String = "/ws") async throws -> TestClient {
        TestClient(try await loop.connect(port: port, path: path, subprotocol: subprotocol))
    }

    /// Connects a client and joins `board` as `name`, returning it with its welcome.
    package func join(_ board: String = "demo", as name: String, since: Int? = nil) async throws -> (TestClient, JSON) {
        let client = try await connect()
        var hello = #"{"type":"hello","board":"\#(board)","name":"\#(name)""#
        if let since { hello += #","since":\#(since)"# }
        client.send(hello + "}")
        let welcome = try await client.expect("welcome")
        return (client, welcome)
    }

    /// A raw HTTP connection (for pipelining, keep-alive and framing tests).
    package func rawConnection(receiveBuffer: Int? = nil) throws -> RawHTTP.Connection {
        try RawHTTP.Connection(port: port, receiveBuffer: receiveBuffer)
    }

    /// An HTTP request with the exact request target given.
    package func http(_ method: String, _ target: String, body: String? = nil) throws -> RawHTTP.Response {
        try RawHTTP.request(port: port, method: method, target: target, body: body)
    }
}

/// Why a test expectation about messages failed.
package struct UnexpectedMessage: Error, CustomStringConvertible {
    /// What was expected and what came.
    package var description: String
}

/// A client that reads server frames as JSON messages, one at a time, in order.
///
/// A frame holding an array is split into its messages. Used from one task at a time.
package final class TestClient: @unchecked Sendable {
    /// The underlying connection.
    package let connection: ClientConnection
    private var pending: [JSON] = []

    /// A client on a connection made elsewhere (another server's loop, say).
    package init(_ connection: ClientConnection) { self.connection = connection }

    /// Sends one text message.
    package func send(_ text: String) { connection.send(text) }

    /// The next server message.
    package func next(timeout: Duration = .seconds(5)) async throws -> JSON {
        while pending.isEmpty {
            let text = try await connection.receive(timeout: timeout)
            let json = try JSON.parse(text)
            if case .array(let messages) = json { pending += messages } else { pending.append(json) }
        }
        return pending.removeFirst()
    }

    /// The next message, which must have this `type`.
    @discardableResult
    package func expect(_ type: String, timeout: Duration = .seconds(5)) async throws -> JSON {
        let message = try await next(timeout: timeout)
        guard message["type"]?.stringValue == type else {
            var w = JSONWriter()
            w.write(nil, json: message)
            throw UnexpectedMessage(description: "expected \(type), got \(w.string)")
        }
        return message
    }

    /// Proves nothing else was queued for this client: a ping's pong must be the very next message.
    package func expectNothingPending() async throws {
        send(#"{"type":"ping"}"#)
        try await expect("pong")
    }

    /// Closes the connection.
    package func close() { connection.close() }
}
