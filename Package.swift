// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "shuffleboard",
    products: [
        .executable(name: "shuffleboard", targets: ["shuffleboard"]),
        .library(name: "BoardClient", targets: ["BoardClient"]),
    ],
    targets: [
        // C libraries from Debian, wrapped as system-library targets.
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CPostgres",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),

        // Small data structures every layer uses (the FIFO queue). No dependencies.
        .target(name: "Basics"),
        // Pure domain: boards, ops, conflict rules, messages. No I/O.
        .target(name: "BoardCore", dependencies: ["Basics"]),
        // Persistence: the store protocol, SQLite, PostgreSQL (the cluster's store) and in-memory stores.
        .target(name: "BoardStore", dependencies: ["BoardCore", "CSQLite", "CPostgres"]),
        // Board access tokens: HMAC-SHA256 signed claims (OpenSSL's libcrypto), minted and verified.
        .target(name: "BoardAuth", dependencies: ["BoardCore", "CCrypto"]),
        // The metrics registry: counters, gauges and histograms with bounded labels, rendered in the
        // Prometheus text format. No dependencies.
        .target(name: "BoardMetrics"),
        // Webhooks without I/O: each one's delivery as a state machine (events in, actions out), the
        // payloads and the address policy.
        .target(name: "BoardHooks", dependencies: ["BoardCore", "BoardStore"]),
        // Webhook delivery: a thread of its own running libcurl's multi interface, carrying out
        // the machines' actions against the store and the network.
        .target(
            name: "WebhookDelivery", dependencies: ["BoardCore", "BoardStore", "BoardHooks", "BoardAuth", "CCurl"]),
        // Every session rule as a state machine: events in, actions out. No I/O, no threads, no clock.
        .target(
            name: "BoardHub",
            dependencies: ["Basics", "BoardCore", "BoardStore", "BoardAuth", "BoardMetrics", "BoardHooks"]),
        // What runs the hub's reads against a store, on the reader thread (StoreRead.run): the hub
        // describes a read, this asks the store and encodes the answer. No libwebsockets, no threads.
        .target(name: "BoardReads", dependencies: ["BoardCore", "BoardStore", "BoardHub"]),
        // What the server and the client share on libwebsockets: the inbox, C strings, close reasons, writes.
        .target(name: "LWSSupport", dependencies: ["CLibWebSockets"]),
        // The libwebsockets transport: turns lws callbacks into hub events and hub actions into lws calls.
        .target(
            name: "BoardServer",
            dependencies: [
                "Basics", "BoardCore", "BoardStore", "BoardHub", "BoardReads", "BoardMetrics", "BoardAuth",
                "LWSSupport", "CLibWebSockets", "WebhookDelivery",
            ]),
        // A small client on the libwebsockets client API.
        .target(name: "BoardClient", dependencies: ["Basics", "LWSSupport", "CLibWebSockets"]),
        // The command-line tool.
        .executableTarget(
            name: "shuffleboard", dependencies: ["BoardServer", "BoardHub", "BoardStore", "BoardCore", "BoardAuth"]),
        // Benchmarks: programs that print numbers next to a reference measured in the same run.
        .executableTarget(
            name: "shuffleboard-bench",
            dependencies: ["BoardServer", "BoardStore", "BoardClient", "BoardCore", "BoardHub"]),

        .target(
            name: "TestSupport", dependencies: ["BoardServer", "BoardClient", "BoardCore", "CCrypto"],
            path: "Tests/TestSupport"),
        .testTarget(name: "BasicsTests", dependencies: ["Basics", "TestSupport"]),
        .testTarget(name: "BoardCoreTests", dependencies: ["BoardCore", "TestSupport"]),
        .testTarget(name: "BoardStoreTests", dependencies: ["BoardStore", "BoardCore", "TestSupport"]),
        // BoardReads answers the hub's reads against a MemoryStore: no transport, no libwebsockets.
        .testTarget(
            name: "BoardHubTests", dependencies: ["BoardHub", "BoardReads", "BoardMetrics", "BoardStore", "BoardCore"]),
        .testTarget(name: "LWSSupportTests", dependencies: ["LWSSupport"]),
        .testTarget(name: "BoardAuthTests", dependencies: ["BoardAuth", "BoardCore"]),
        .testTarget(name: "BoardHooksTests", dependencies: ["BoardHooks", "BoardStore", "BoardCore", "BoardAuth"]),
        .testTarget(
            name: "BoardServerTests",
            dependencies: ["BoardServer", "BoardClient", "BoardCore", "BoardHub", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// Release builds optimize across modules (`-cross-module-optimization`): the hot paths cross them
// on every message (the hub calls the metrics registry's generic counters, the core's ops and
// messages; the transport the hub's), and without it a generic from another module is called
// unspecialized, its metadata looked up at run time: 12-15% more CPU per committed op
// (docs/performance.md, "After issue 24"). Debug builds are left as they are.
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [.unsafeFlags(["-cross-module-optimization"], .when(configuration: .release))]
}
