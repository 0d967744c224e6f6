import BoardAuth
import BoardCore
import BoardServer
import BoardStore
import Dispatch
import Foundation

/// Prints to stderr.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

let command: Command
do {
    command = try CommandLineParser.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    if error.message.isEmpty {
        print(CommandLineParser.usage)
        exit(0)
    }
    printError("shuffleboard: \(error.message)\nRun 'shuffleboard --help' for usage.")
    exit(2)
}

switch command {
case .help(let text):
    print(text)
case .version:
    print("shuffleboard \(CommandLineParser.version)")
case .serve(let options):
    exit(serve(options))
case .export(let board, let store):
    exit(exportBoard(board, store: store))
case .importBoard(let file, let store, let replace):
    exit(importBoard(file, store: store, replace: replace))
case .importTrello(let file, let board, let store):
    exit(importTrello(file, board: board, store: store))
case .token(let options):
    exit(mintToken(options))
case .revoke(let token, let secretFile, let store):
    exit(revokeToken(token, secretFile: secretFile, store: store))
case .reindex(let store):
    exit(reindex(store: store))
}

func serve(_ options: ServeOptions) -> Int32 {
    var config = options.config
    if !options.webExplicit {
        // The web client next to the working directory (the repository root for `swift run`).
        let candidate = FileManager.default.currentDirectoryPath + "/web"
        if FileManager.default.fileExists(atPath: candidate + "/index.html") { config.webRoot = candidate }
    } else if let web = config.webRoot, !FileManager.default.fileExists(atPath: web + "/index.html") {
        printError("shuffleboard: --web \(web): no index.html there")
        return 1
    }
    let log = Logger(level: config.hub.logLevel, format: config.logFormat)
    /// A start-up failure: a line of the configured format on stderr.
    func fail(_ message: String) -> Int32 {
        if config.logFormat == .json { log.error(message) } else { printError("shuffleboard: \(message)") }
        return 1
    }
    for (flag, file) in [
        ("--tls-cert", config.tlsCertificate), ("--tls-key", config.tlsKey), ("--cluster-ca", config.clusterCA),
    ] {
        guard let file else { continue }
        guard FileManager.default.isReadableFile(atPath: file) else {
            return fail("\(flag) \(file): cannot read the file")
        }
    }
    // lws would take a file without a certificate in silence and then trust no node at all.
    if let file = config.clusterCA,
        FileManager.default.contents(atPath: file).map({ String(decoding: $0, as: UTF8.self) })?
            .contains("-----BEGIN CERTIFICATE-----") != true
    {
        return fail("--cluster-ca \(file): no PEM certificate in it")
    }
    if let file = options.clusterKeyFile {
        guard let contents = FileManager.default.contents(atPath: file) else {
            return fail("--cluster-key \(file): cannot read the file")
        }
        switch ClusterKeys.parse(contents) {
        case .success(let keys): config.clusterKeys = keys
        case .failure(let problem): return fail("--cluster-key \(file): \(problem.message)")
        }
    }
    if let file = options.authSecretFile {
        do {
            config.hub.auth = try TokenAuthority(secrets: readSecrets(file))
        } catch {
            return fail("--auth-secret \(file): \(error.message)")
        }
    } else if !["127.0.0.1", "localhost", "::1"].contains(config.host) {
        log.warning(
            "listening on \(config.host) without --auth-secret: anyone who can reach it can join, change and delete every board"
        )
    }
    if let file = options.metricsTokenFile {
        guard let contents = FileManager.default.contents(atPath: file) else {
            return fail("--metrics-token \(file): cannot read the file")
        }
        do {
            config.metricsToken = try StaticToken(fromFile: [UInt8](contents))
        } catch {
            return fail("--metrics-token \(file): \(error.message)")
        }
    }
    let store: any BoardStore
    do {
        store = try openStore(options)
    } catch {
        return fail(error.message)
    }
    let server = Server(config: config, store: store)
    for sig in [SIGINT, SIGTERM] { signal(sig, SIG_IGN) }
    signal(SIGPIPE, SIG_IGN)
    var sources: [DispatchSourceSignal] = []
    for sig in [SIGINT, SIGTERM] {
        let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
        source.setEventHandler {
            log.info("signal \(sig == SIGINT ? "SIGINT" : "SIGTERM"): stopping")
            server.stop()
        }
        source.resume()
        sources.append(source)
    }
    if let file = options.clusterKeyFile {
        // SIGHUP: the key file again, for a rotation without a restart (docs/cluster.md). A file
        // that does not read as keys changes nothing.
        signal(SIGHUP, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            guard let contents = FileManager.default.contents(atPath: file) else {
                return log.error("SIGHUP: --cluster-key \(file): cannot read the file; keeping the keys in use")
            }
            switch ClusterKeys.parse(contents) {
            case .success(let keys):
                log.info("SIGHUP: --cluster-key \(file) read again: \(keys.count) key(s)")
                server.useClusterKeys(keys)
            case .failure(let problem):
                log.error("SIGHUP: --cluster-key \(file): \(problem.message); keeping the keys in use")
            }
        }
        source.resume()
        sources.append(source)
    }
    do {
        let port = try server.start()
        advertiseListeningPort(port, options: options, store: store, log: log)
    } catch {
        return fail(error.description)
    }
    server.waitUntilStopped()
    store.close()
    withExtendedLifetime(sources) {}
    return 0
}

/// The secrets in an `--auth-secret` file.
func readSecrets(_ file: String) throws(SecretsProblem) -> [[UInt8]] {
    guard let contents = FileManager.default.contents(atPath: file) else {
        throw SecretsProblem("cannot read the file")
    }
    return try TokenAuthority.secrets(fromFile: [UInt8](contents))
}

/// `shuffleboard token`: one token on stdout.
func mintToken(_ options: TokenOptions) -> Int32 {
    let secrets: [[UInt8]]
    do {
        secrets = try readSecrets(options.secretFile ?? "")
    } catch {
        printError("shuffleboard: --auth-secret \(options.secretFile ?? ""): \(error.message)")
        return 1
    }
    let claims = Claims(
        board: options.board == "*" ? nil : BoardID(options.board), role: Role(rawValue: options.role) ?? .edit,
        expires: Int64(Date().timeIntervalSince1970) + options.ttl, name: options.name,
        member: options.user.flatMap(MemberID.init))
    print(TokenAuthority(secrets: secrets).mint(claims))
    return 0
}
