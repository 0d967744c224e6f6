import BoardAuth
import BoardHub
import BoardServer

/// `--auth-proxy-*`: what `serve` takes of them, put together once every flag is read.
struct ProxyOptions {
    var header: String?
    var nameHeader: String?
    var from: [CIDR] = []
    var role = Role.edit
}

/// The settings table, sign-in through a trusted proxy (BoardAuth's ProxySignIn.swift).
extension Setting {
    static var proxy: [Setting] {
        [
            Setting(
                flag: "--auth-proxy-header", value: "NAME", section: .serve,
                help: "with --auth-secret and --auth-proxy-from: a request from the proxy's address is the member this "
                    + "header names (X-Forwarded-User); from anywhere else it is ignored",
                readme:
                    "with `--auth-secret` and `--auth-proxy-from`: sign-in through a trusted proxy (a company's SSO): a request (HTTP or WebSocket) from the proxy's address is the member this header names, with no token; from any other address the header is ignored ([operations](docs/operations.md#sign-in-through-a-trusted-proxy))",
                defaultText: "off"
            ) { options, text throws(UsageError) in
                switch ProxyAuth.headerName(text ?? "") {
                case .success(let name): options.proxy.header = name
                case .failure(let problem): throw UsageError(message: "--auth-proxy-header: \(problem.message)")
                }
            },
            Setting(
                flag: "--auth-proxy-from", value: "CIDR[,CIDR]", section: .serve,
                help: "the proxy's addresses or networks (10.0.0.5, 10.0.0.0/24, fd00::/64): only their requests' "
                    + "--auth-proxy-header is believed; the server must not be reachable around the proxy",
                readme:
                    "the proxy's addresses or networks (`10.0.0.5`, `10.0.0.0/24`, `fd00::/64`; up to 64): only their requests' `--auth-proxy-header` is believed, by the socket's own address (never `X-Forwarded-For`); the server must not be reachable around the proxy",
                defaultText: "none"
            ) { options, text throws(UsageError) in
                switch CIDR.parseList(text ?? "") {
                case .success(let networks): options.proxy.from = networks
                case .failure(let problem): throw UsageError(message: "--auth-proxy-from: \(problem.message)")
                }
            },
            Setting(
                flag: "--auth-proxy-name-header", value: "NAME", section: .serve,
                help: "the header the proxy puts the display name in (X-Forwarded-Name); without it the member id is "
                    + "the name",
                defaultText: "the member id"
            ) { options, text throws(UsageError) in
                switch ProxyAuth.headerName(text ?? "") {
                case .success(let name): options.proxy.nameHeader = name
                case .failure(let problem): throw UsageError(message: "--auth-proxy-name-header: \(problem.message)")
                }
            },
            choice(
                "--auth-proxy-role", \.proxy.role, cases(of: Role.self), .serve,
                "a proxy user's role on every board where an admin gave them none (PUT /api/boards/{id}/members/"
                    + "{member})", value: "view|edit|admin"),
        ]
    }
}

extension ServeOptions {
    /// Puts the `--auth-proxy-*` flags together, or says what is missing.
    mutating func finishProxy() throws(UsageError) {
        guard let header = proxy.header else {
            guard proxy.from.isEmpty, proxy.nameHeader == nil else {
                throw UsageError(message: "--auth-proxy-from and --auth-proxy-name-header need --auth-proxy-header")
            }
            return
        }
        guard !proxy.from.isEmpty else {
            throw UsageError(message: "--auth-proxy-header needs --auth-proxy-from (the proxy's addresses)")
        }
        guard authSecretFile != nil else {
            throw UsageError(message: "--auth-proxy-header needs --auth-secret (a server without it lets everyone in)")
        }
        guard proxy.nameHeader != header else {
            throw UsageError(message: "--auth-proxy-name-header must name another header than --auth-proxy-header")
        }
        config.hub.proxy = ProxyAuth(
            header: header, nameHeader: proxy.nameHeader, trusted: proxy.from, role: proxy.role)
    }
}
