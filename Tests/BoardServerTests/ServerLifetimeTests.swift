import BoardServer
import BoardStore
import Testing

/// A `Server` may be let go in any state: never started, failed to start, stopped.
@Suite struct ServerLifetimeTests {
    @Test func aServerThatNeverStartedCanBeReleased() {
        // `shuffleboard serve` drops its server when start-up fails (a bad TLS key): releasing a
        // Dispatch source that was never resumed traps in libdispatch.
        for _ in 0..<3 {
            _ = Server(config: ServerConfig(), store: MemoryStore())
        }
    }

    @Test func aServerThatFailedToStartCanBeReleased() {
        var config = ServerConfig()
        config.port = 0
        config.echoPath = "/echo"
        config.deflate = true
        let server = Server(config: config, store: MemoryStore())
        #expect(throws: ServerError.self) { try server.start() }
    }
}
