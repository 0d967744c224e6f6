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
    /// `import-trello FILE --board ID`: a Trello export made into a new board (ImportTrello.swift).
    case importTrello(file: String, board: BoardID, store: StoreLocation)
    case token(TokenOptions)
    case revoke(token: String, secretFile: String, store: StoreLocation)
    case reindex(store: StoreLocation)
    case help(String)
    case version
}

/// Where boards are kept: `--data DIR` (or `--store sqlite:DIR`), or `--store postgresql://…`.
enum StoreLocation: Equatable {
    /// SQLite in this data directory.
    case directory(String)
    /// PostgreSQL at this libpq connection URL (which may hold a password: never print it).
    case postgres(url: String)

    /// `--data DIR` or `--store URL` (`flag`) into `location`; `given` remembers which was given,
    /// since they exclude each other (in `serve`, `export`, `import`, `revoke` and `reindex`).
    static func read(
        _ flag: String, _ value: String, into location: inout StoreLocation, given: inout String?
    ) throws(UsageError) {
        if let given { throw UsageError(message: "\(flag) cannot be combined with \(given)") }
        location = flag == "--data" ? .directory(value) : try parse(value)
        given = flag
    }

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

/// Options of `shuffleboard serve`: what the settings table (`Setting.table`) writes into, and
/// whose initial values are the defaults `--help` and README print.
struct ServeOptions {
    var config = ServerConfig()
    /// `--data DIR` or `--store`.
    var store = StoreLocation.directory("data")
    /// Whether `--data` or `--store` was given (they exclude each other and `--memory`).
    var storeGiven: String?
    var memory = false
    var webExplicit = false
    var snapshotEvery = 100
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
    /// `--auth-proxy-*` (Settings+Proxy.swift).
    var proxy = ProxyOptions()
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

    /// The options of `command`, a command that works on a store: `--data DIR` or `--store URL`
    /// make the location it returns (`data` when neither is given); `other` reads any other
    /// option (its value from the reader it is given) and returns false for one the command
    /// does not take.
    mutating func storeOptions(
        of command: String, _ other: (String, inout ArgumentReader) throws(UsageError) -> Bool = { _, _ in false }
    ) throws(UsageError) -> StoreLocation {
        var store = StoreLocation.directory("data")
        var given: String?
        while let option = try nextOption() {
            if option == "--data" || option == "--store" {
                try StoreLocation.read(option, try value(for: option), into: &store, given: &given)
            } else if try !other(option, &self) {
                throw UsageError(message: "unknown option '\(option)' for \(command)")
            }
        }
        return store
    }

    /// `storeOptions(of:)` for a command that takes one option of its own, `flag VALUE`: the
    /// location, and `read(VALUE)` of the last `flag` given (nil when none was; `read` throws the
    /// error for a value the command does not take).
    mutating func storeOptions<Value>(
        of command: String, with flag: String, _ read: (String) throws(UsageError) -> Value
    ) throws(UsageError) -> (StoreLocation, Value?) {
        var value: Value?
        let store = try storeOptions(of: command) { option, reader throws(UsageError) in
            guard option == flag else { return false }
            value = try read(try reader.value(for: option))
            return true
        }
        return (store, value)
    }
}

enum CommandLineParser {
    static let version = "0.1.0"

    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .help(usage) }
        switch first {
        case "--help", "-h", "help": return .help(usage)
        case "--version": return .version
        case "serve":
            // README's configuration table, which a test compares with README (Tests/process/test_cli.py).
            if arguments.dropFirst() == ["--settings-markdown"] { return .help(Setting.markdown) }
            return .serve(try parseServe(Array(arguments.dropFirst())))
        case "export", "import": return try parseBoardCommand(first, Array(arguments.dropFirst()))
        case "import-trello": return try parseImportTrello(Array(arguments.dropFirst()))
        case "token": return .token(try parseToken(Array(arguments.dropFirst())))
        case "revoke": return try parseRevoke(Array(arguments.dropFirst()))
        case "reindex": return try parseReindex(Array(arguments.dropFirst()))
        default: throw UsageError(message: "unknown command '\(first)'")
        }
    }

    private static func parseServe(_ arguments: [String]) throws(UsageError) -> ServeOptions {
        var options = ServeOptions()
        var reader = ArgumentReader(arguments)
        let settings = Dictionary(uniqueKeysWithValues: Setting.table.map { ($0.flag, $0) })
        while let option = try reader.nextOption() {
            if option == "--help" || option == "-h" { throw UsageError(message: "") }
            guard let setting = settings[option] else { throw UsageError(message: "unknown option '\(option)'") }
            try setting.apply(&options, setting.value == nil ? nil : try reader.value(for: option))
        }
        if options.memory, let given = options.storeGiven {
            throw UsageError(message: "--memory cannot be combined with \(given)")
        }
        try options.finishProxy()
        if options.config.echoPath != nil && options.config.deflate {
            throw UsageError(message: "--echo-path cannot be combined with --deflate")
        }
        if options.config.hub.origins.allowMissing && options.config.hub.origins.allowed.isEmpty {
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
