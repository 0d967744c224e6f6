import BoardHub
import BoardServer

/// A command-line mistake: printed with the usage hint, exit code 2.
struct UsageError: Error {
    var message: String
}

/// What the user asked for.
enum Command {
    case serve(ServeOptions)
    case export(board: String, data: String)
    case importBoard(file: String, data: String, replace: Bool)
    case help(String)
    case version
}

/// Options of `shuffleboard serve`.
struct ServeOptions {
    var config = ServerConfig()
    var dataDirectory = "data"
    var memory = false
    var webExplicit = false
    var snapshotEvery = 100
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

    static let usage = """
        shuffleboard \(version): a real-time collaborative board server

        USAGE:
          shuffleboard serve [options]         run the server
          shuffleboard export BOARD [--data DIR]   print a board (snapshot and op log) as JSON
          shuffleboard import FILE [--data DIR] [--replace]   load a board exported before
          shuffleboard --help | --version

        SERVE OPTIONS:
          --host ADDR               interface to listen on (default 127.0.0.1)
          --port N                  port; 0 picks a free one and logs it (default 8080)
          --data DIR                where boards are stored (default ./data, created if missing)
          --memory                  keep everything in memory; nothing survives a restart
          --web DIR                 the web client folder served at / (default ./web if present)
          --log-level LEVEL         debug, info, warning or error (default info)
          --hold-timeout SECONDS    a drag hold ends after this long without hover or drop (default 30)
          --max-message-bytes N     largest client message; larger closes with 1009 (default 65536)
          --max-pending-bytes N     most bytes queued for one client; past it closes with 1008 (default 4194304)
          --deflate                 offer permessage-deflate (off by default)
          --create-boards BOOL      create unknown boards on hello (default true)
          --history N               committed ops kept in memory per board (default 10000, at least 1000)
          --snapshot-every N        write a board snapshot every N ops (default 100)
          --http-timeout SECONDS    time for an HTTP request's headers, then for its body and answer (default 15)
          --max-header-bytes N      most bytes of HTTP request headers; more closes the connection (default 8192)
          --max-header-buffers N    most connections sending request headers at once; others wait (default 1024)
        """

    static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        guard let first = arguments.first else { return .help(usage) }
        switch first {
        case "--help", "-h", "help": return .help(usage)
        case "--version": return .version
        case "serve": return .serve(try parseServe(Array(arguments.dropFirst())))
        case "export", "import": return try parseBoardCommand(first, Array(arguments.dropFirst()))
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
            case "--data":
                options.dataDirectory = try reader.value(for: option)
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
            case "--deflate":
                options.config.deflate = true
            case "--create-boards":
                options.config.createBoards = try boolean(reader.value(for: option), option)
            case "--history":
                options.config.historyLimit = try integer(reader.value(for: option), option, 1000...1_000_000)
            case "--snapshot-every":
                options.snapshotEvery = try integer(reader.value(for: option), option, 1...1_000_000)
            case "--http-timeout":
                options.config.httpTimeout = try integer(reader.value(for: option), option, 1...3600)
            case "--max-header-bytes":
                options.config.maxHeaderBytes = try integer(reader.value(for: option), option, 1024...(1 << 20))
            case "--max-header-buffers":
                options.config.maxHeaderBuffers = try integer(reader.value(for: option), option, 1...65_536)
            default:
                throw UsageError(message: "unknown option '\(option)'")
            }
        }
        return options
    }

    private static func parseBoardCommand(_ name: String, _ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(arguments)
        guard let subject = reader.positional() else {
            throw UsageError(message: name == "export" ? "export needs a board id" : "import needs a file")
        }
        var data = "data"
        var replace = false
        while let option = try reader.nextOption() {
            switch option {
            case "--data": data = try reader.value(for: option)
            case "--replace" where name == "import": replace = true
            default: throw UsageError(message: "unknown option '\(option)' for \(name)")
            }
        }
        return name == "export"
            ? .export(board: subject, data: data) : .importBoard(file: subject, data: data, replace: replace)
    }

    private static func integer(_ text: String, _ option: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let n = Int(text), range.contains(n) else {
            throw UsageError(
                message: "\(option) must be an integer from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return n
    }

    private static func boolean(_ text: String, _ option: String) throws(UsageError) -> Bool {
        switch text.lowercased() {
        case "true", "yes", "1", "on": return true
        case "false", "no", "0", "off": return false
        default: throw UsageError(message: "\(option) must be true or false, not '\(text)'")
        }
    }
}
