import BoardAuth
import BoardCore
import BoardHub
import BoardServer
import BoardStore
import Glibc

/// A command-line mistake: printed with the usage hint, exit code 2.
struct UsageError: Error {
    var message: String
}

/// What the user asked for.
enum Command {
    case serve(ServeOptions)
    case export(board: String, store: StoreLocation)
    case importBoard(file: String, store: StoreLocation, replace: Bool)
    case token(TokenOptions)
    case revoke(token: String, secretFile: String, store: StoreLocation)
    case help(String)
    case version
}

/// Where boards are kept: `--data DIR` (or `--store sqlite:DIR`), or `--store postgresql://…`.
enum StoreLocation: Equatable {
    /// SQLite in this data directory.
    case directory(String)
    /// PostgreSQL at this libpq connection URL (which may hold a password: never print it).
    case postgres(url: String)

    /// `--store VALUE`: `postgresql://` or `postgres://` is PostgreSQL, `sqlite:DIR` or a plain
    /// directory is SQLite there.
    static func parse(_ value: String) throws(UsageError) -> StoreLocation {
        if value.hasPrefix("postgresql://") || value.hasPrefix("postgres://") { return .postgres(url: value) }
        let directory = value.hasPrefix("sqlite:") ? String(value.dropFirst("sqlite:".count)) : value
        guard !directory.isEmpty, !directory.contains("://") else {
            // Only the scheme: the rest may be a password.
            let scheme = value.prefix { $0 != ":" }
            throw UsageError(
                message:
                    "--store takes postgresql://USER@HOST:PORT/DB, sqlite:DIR or a directory, not a '\(scheme.prefix(20)):' URL"
            )
        }
        return .directory(directory)
    }
}

/// Options of `shuffleboard serve`.
struct ServeOptions {
    var config = ServerConfig()
    /// `--data DIR` or `--store`.
    var store = StoreLocation.directory("data")
    /// Whether `--data` or `--store` was given (they exclude each other and `--memory`).
    var storeGiven: String?
    var memory = false
    var webExplicit = false
    var snapshotEvery = 100
    /// `--store-pipeline N`: with `--store postgresql://…`, how many write batches the node's
    /// writer keeps on their way to the database at once.
    var storePipeline = 1
    /// `--keep-ops N`: ops the store keeps per board, so how far back `?at=`, history, `/ops`
    /// and restores reach (at least `--history`).
    var keepOps = 10_000
    /// `--keep-snapshot-bytes N`, `--keep-op-bytes N`: the bytes of snapshots and of ops the store
    /// keeps per board (0: no bound).
    var keepSnapshotBytes = KeptBytes.snapshots
    var keepOpBytes = KeptBytes.ops
    /// `--auth-secret FILE`: turns access control on.
    var authSecretFile: String?
    /// `--cluster-key FILE`: the cluster keys, instead of the database's.
    var clusterKeyFile: String?
    /// `--metrics-token FILE`: `/metrics` wants this bearer token.
    var metricsTokenFile: String?
}

/// Options of `shuffleboard token`.
struct TokenOptions {
    var board: String
    var role = "edit"
    var ttl: Int64 = 86_400
    var secretFile: String?
    var name: String?
    /// The member the token names (`sub`).
    var user: String?
}

/// Reads `--name value` and `--name=value` options one at a time.
struct ArgumentReader {
    private var arguments: [String]
    private var index = 0

    init(_ arguments: [String]) { self.arguments = arguments }

    /// The next option name (without its `=value`), or nil at the end.
    mutating func nextOption() throws(UsageError) -> String? {
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        guard argument.hasPrefix("--") || argument == "-h" else {
            throw UsageError(message: "unexpected argument '\(argument)'")
        }
        if let eq = argument.firstIndex(of: "=") {
            arguments[index] = String(argument[argument.index(after: eq)...])
            return String(argument[..<eq])
        }
        index += 1
        return argument
    }

    /// The value of the option just read.
    mutating func value(for option: String) throws(UsageError) -> String {
        guard index < arguments.count else { throw UsageError(message: "\(option) needs a value") }
        defer { index += 1 }
        return arguments[index]
    }

    /// Positional arguments left (for subcommands that take them).
    mutating func positional() -> String? {
        guard index < arguments.count, !arguments[index].hasPrefix("--") else { return nil }
        defer { index += 1 }
        return arguments[index]
    }
}

enum CommandLineParser {
    static let version = "0.1.0"

    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .help(usage) }
        switch first {
        case "--help", "-h", "help": return .help(usage)
        case "--version": return .version
        case "serve": return .serve(try parseServe(Array(arguments.dropFirst())))
        case "export", "import": return try parseBoardCommand(first, Array(arguments.dropFirst()))
        case "token": return .token(try parseToken(Array(arguments.dropFirst())))
        case "revoke": return try parseRevoke(Array(arguments.dropFirst()))
        default: throw UsageError(message: "unknown command '\(first)'")
        }
    }

    private static func parseServe(_ arguments: [String]) throws(UsageError) -> ServeOptions {
        var options = ServeOptions()
        var reader = ArgumentReader(arguments)
        while let option = try reader.nextOption() {
            switch option {
            case "--help", "-h":
                throw UsageError(message: "")
            case "--host":
                options.config.host = try reader.value(for: option)
                guard !options.config.host.isEmpty else { throw UsageError(message: "--host needs an address") }
            case "--port":
                options.config.port = try integer(reader.value(for: option), option, 0...65535)
            case "--data", "--store":
                if let given = options.storeGiven {
                    throw UsageError(message: "\(option) cannot be combined with \(given)")
                }
                let value = try reader.value(for: option)
                options.store = option == "--data" ? .directory(value) : try StoreLocation.parse(value)
                options.storeGiven = option
            case "--memory":
                options.memory = true
            case "--web":
                options.config.webRoot = try reader.value(for: option)
                options.webExplicit = true
            case "--log-level":
                let value = try reader.value(for: option)
                guard let level = LogLevel(name: value) else {
                    throw UsageError(message: "--log-level must be debug, info, warning or error, not '\(value)'")
                }
                options.config.logLevel = level
            case "--log-format":
                let value = try reader.value(for: option)
                guard let format = LogFormat(rawValue: value) else {
                    throw UsageError(message: "--log-format must be text or json, not '\(value)'")
                }
                options.config.logFormat = format
            case "--metrics-token":
                options.metricsTokenFile = try reader.value(for: option)
            case "--metrics-top-boards":
                options.config.metricsTopBoards = try integer(reader.value(for: option), option, 0...1000)
            case "--hold-timeout":
                let value = try reader.value(for: option)
                guard let seconds = Double(value), seconds > 0, seconds <= 86_400 else {
                    throw UsageError(
                        message: "--hold-timeout must be a number of seconds from 0 to 86400, not '\(value)'")
                }
                options.config.holdTimeout = seconds
            case "--max-message-bytes":
                options.config.maxMessageBytes = try integer(reader.value(for: option), option, 256...(64 << 20))
            case "--max-pending-bytes":
                options.config.maxPendingBytes = try integer(reader.value(for: option), option, 4096...(1 << 30))
            case "--max-write-bytes":
                options.config.maxWriteBytes = try integer(reader.value(for: option), option, 1024...(16 << 20))
            case "--ring-bytes":
                options.config.ringBytes = try integer(reader.value(for: option), option, 4096...(1 << 30))
            case "--hover-pacing":
                let ms = try number(reader.value(for: option), option, 0...1000, unit: "milliseconds")
                options.config.hoverPacing = .microseconds(Int((ms * 1000).rounded()))
            case "--unsent-bytes":
                options.config.unsentBytes = try integer(reader.value(for: option), option, 0...(1 << 30))
            case "--deflate":
                options.config.deflate = true
            case "--event-loop":
                let name = try reader.value(for: option)
                guard let loop = EventLoop(rawValue: name) else {
                    throw UsageError(message: "--event-loop must be poll or libev, not '\(name)'")
                }
                options.config.eventLoop = loop
            case "--echo-path":
                let path = try reader.value(for: option)
                guard path.hasPrefix("/"), path != "/ws", !path.contains("?"), path.utf8.count <= 256 else {
                    throw UsageError(message: "--echo-path must be a path such as /echo, other than /ws, not '\(path)'")
                }
                options.config.echoPath = path
            case "--echo-max-message-bytes":
                options.config.echoMaxMessageBytes = try integer(reader.value(for: option), option, 256...(64 << 20))
            case "--create-boards":
                options.config.createBoards = try boolean(reader.value(for: option), option)
            case "--default-template":
                let value = try reader.value(for: option)
                guard Template(rawValue: value) != nil else {
                    let names = Template.allCases.map(\.rawValue).joined(separator: ", ")
                    throw UsageError(message: "--default-template must be one of \(names), not '\(value)'")
                }
                options.config.defaultTemplate = value
            case "--history":
                options.config.historyLimit = try integer(reader.value(for: option), option, 1000...1_000_000)
            case "--store-pipeline":
                options.storePipeline = try integer(reader.value(for: option), option, 1...16)
            case "--snapshot-every":
                options.snapshotEvery = try integer(reader.value(for: option), option, 1...1_000_000)
            case "--keep-ops":
                options.keepOps = try integer(reader.value(for: option), option, 1000...100_000_000)
            case "--keep-snapshot-bytes", "--keep-op-bytes":
                let bytes = try integer(reader.value(for: option), option, 0...(1 << 40))
                guard bytes == 0 || bytes >= 1 << 20 else {
                    throw UsageError(
                        message: "\(option) must be 0 (no bound) or at least 1048576 (1 MiB), not \(bytes)")
                }
                if option == "--keep-op-bytes" {
                    options.keepOpBytes = bytes
                } else {
                    options.keepSnapshotBytes = bytes
                }
            case "--auth-secret":
                options.authSecretFile = try reader.value(for: option)
            case "--allow-origin":
                let value = try reader.value(for: option)
                guard value.hasPrefix("http://") || value.hasPrefix("https://"), !value.dropFirst(8).contains("/")
                else {
                    throw UsageError(
                        message: "--allow-origin takes an origin like https://board.example, not '\(value)'")
                }
                options.config.origins.allowed.append(value)
            case "--allow-no-origin":
                options.config.origins.allowMissing = true
            case "--trusted-proxy":
                let value = try reader.value(for: option)
                guard isAddressAndPort(value.contains(":") ? "[\(value)]:1" : "\(value):1") else {
                    throw UsageError(
                        message: "--trusted-proxy takes an IP address, such as 10.0.0.2, not '\(value.prefix(200))'")
                }
                guard options.config.trustedProxies.count < 64 else {
                    throw UsageError(message: "--trusted-proxy: at most 64 proxies")
                }
                options.config.trustedProxies.append(value)
            case "--tls-cert":
                options.config.tlsCertificate = try reader.value(for: option)
            case "--tls-key":
                options.config.tlsKey = try reader.value(for: option)
            case "--cluster-ca":
                options.config.clusterCA = try reader.value(for: option)
            case "--cluster-key":
                options.clusterKeyFile = try reader.value(for: option)
            case "--hello-timeout":
                options.config.helloTimeout = try number(reader.value(for: option), option, 1...3600)
            case "--hold-lifetime":
                options.config.holdLifetime = try number(reader.value(for: option), option, 1...86_400)
            case "--hold-cooldown":
                options.config.hub.room.holdCooldown = duration(
                    try number(reader.value(for: option), option, 0...86_400))
            case "--max-holds-per-address":
                options.config.hub.room.maxHoldsPerAddress = try integer(
                    reader.value(for: option), option, 0...1_000_000)
            case "--op-rate":
                options.config.opRate = Double(try integer(reader.value(for: option), option, 0...1_000_000))
            case "--message-rate":
                options.config.messageRate = Double(try integer(reader.value(for: option), option, 0...1_000_000))
            case "--max-connections-per-address":
                options.config.maxConnectionsPerAddress = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--max-pending-per-address":
                options.config.maxPendingPerAddress = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--first-byte-timeout":
                options.config.firstByteTimeout = try number(reader.value(for: option), option, 0...3600)
            case "--connect-rate":
                options.config.connectRate = Double(try integer(reader.value(for: option), option, 0...1_000_000))
            case "--board-creations":
                options.config.boardCreationsPerMinute = Double(
                    try integer(reader.value(for: option), option, 0...1_000_000))
            case "--max-users-per-board":
                options.config.maxUsersPerBoard = try integer(reader.value(for: option), option, 0...10_000_000)
            case "--presence-limit":
                options.config.presenceLimit = try integer(reader.value(for: option), option, 1...100_000)
            case "--max-board-bytes":
                options.config.maxBoardBytes = try integer(
                    reader.value(for: option), option, BoardLimits.minimumMaxBoardBytes...(1 << 40))
            case "--max-boards":
                options.config.maxBoards = try integer(reader.value(for: option), option, 0...10_000_000)
            case "--max-unstored-ops":
                options.config.maxUnstoredOps = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--shutdown-write-retry":
                let value = try reader.value(for: option)
                guard let seconds = Double(value), seconds >= 0, seconds <= 3600 else {
                    throw UsageError(
                        message: "--shutdown-write-retry must be a number of seconds from 0 to 3600, not '\(value)'")
                }
                options.config.shutdownWriteRetry = seconds
            case "--forward-timeout":
                let value = try reader.value(for: option)
                guard let seconds = Double(value), seconds >= 0.5, seconds <= 600 else {
                    throw UsageError(
                        message: "--forward-timeout must be a number of seconds from 0.5 to 600, not '\(value)'")
                }
                options.config.forwardTimeout = seconds
            case "--node-links":
                options.config.nodeLinks = try boolean(reader.value(for: option), option)
            case "--http-timeout":
                options.config.httpTimeout = try integer(reader.value(for: option), option, 1...3600)
            case "--max-header-bytes":
                options.config.maxHeaderBytes = try integer(reader.value(for: option), option, 1024...(1 << 20))
            case "--max-header-buffers":
                options.config.maxHeaderBuffers = try integer(reader.value(for: option), option, 1...65_536)
            case "--max-http-answer-bytes":
                options.config.maxHTTPAnswerBytes = try integer(reader.value(for: option), option, 0...(1 << 40))
            case "--max-page-bytes":
                options.config.hub.maxPageBytes = try integer(reader.value(for: option), option, 4096...(1 << 30))
            case "--stream-keepalive":
                let value = try reader.value(for: option)
                guard let seconds = Double(value), seconds >= 0.05, seconds <= 3600 else {
                    throw UsageError(
                        message: "--stream-keepalive must be a number of seconds from 0.05 to 3600, not '\(value)'")
                }
                options.config.hub.streamKeepalive = duration(seconds)
            case "--max-stream-seconds":
                let seconds = try integer(reader.value(for: option), option, 0...86_400)
                options.config.hub.maxStreamAge = .seconds(seconds)
            case "--stream-stall-seconds":
                options.config.streamStallSeconds = try integer(reader.value(for: option), option, 0...3600)
            case "--max-streams":
                options.config.hub.maxStreams = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--max-streams-per-address":
                options.config.hub.maxStreamsPerAddress = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--max-history-reads":
                options.config.hub.maxHistoryReads = try integer(reader.value(for: option), option, 0...1_000_000)
            case "--max-history-reads-per-address":
                options.config.hub.maxHistoryReadsPerAddress = try integer(
                    reader.value(for: option), option, 0...1_000_000)
            case "--node":
                let value = try reader.value(for: option)
                guard isNodeName(value) else {
                    throw UsageError(
                        message: "--node must be 1–128 characters of A-Z a-z 0-9 . _ -, not '\(value.prefix(200))'")
                }
                options.config.node = value
            case "--advertise":
                let value = try reader.value(for: option)
                guard isAddressAndPort(value) else {
                    throw UsageError(
                        message:
                            "--advertise must be an IP address and a port, such as 10.0.0.5:8080 or [fd00::5]:8080 "
                            + "(not a host name), not '\(value.prefix(200))'")
                }
                options.config.advertise = value
            case "--lease":
                let value = try reader.value(for: option)
                guard let seconds = Double(value), seconds >= 0.5, seconds <= 3600 else {
                    throw UsageError(message: "--lease must be a number of seconds from 0.5 to 3600, not '\(value)'")
                }
                options.config.leaseSeconds = seconds
            default:
                throw UsageError(message: "unknown option '\(option)'")
            }
        }
        if options.memory, let given = options.storeGiven {
            throw UsageError(message: "--memory cannot be combined with \(given)")
        }
        if options.config.echoPath != nil && options.config.deflate {
            throw UsageError(message: "--echo-path cannot be combined with --deflate")
        }
        if options.config.origins.allowMissing && options.config.origins.allowed.isEmpty {
            throw UsageError(message: "--allow-no-origin needs --allow-origin (without it every origin is allowed)")
        }
        if (options.config.tlsCertificate == nil) != (options.config.tlsKey == nil) {
            throw UsageError(message: "--tls-cert and --tls-key go together")
        }
        if options.config.clusterCA != nil && options.config.tlsCertificate == nil {
            throw UsageError(
                message: "--cluster-ca needs --tls-cert and --tls-key (nodes forward over TLS only when they serve it)")
        }
        return options
    }
}
