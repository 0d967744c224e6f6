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
            proxyValue(
                "--auth-proxy-header", \.proxy.header, value: "NAME",
                help: "with --auth-secret and --auth-proxy-from: a request from the proxy's address is the member this "
                    + "header names (X-Forwarded-User); from anywhere else it is ignored",
                readme:
                    "with `--auth-secret` and `--auth-proxy-from`: sign-in through a trusted proxy (a company's SSO): a request (HTTP or WebSocket) from the proxy's address is the member this header names, with no token; from any other address the header is ignored ([operations](docs/operations.md#sign-in-through-a-trusted-proxy))",
                defaultText: "off"
            ) { ProxyAuth.headerName($0).map(Optional.some) },
            proxyValue(
                "--auth-proxy-from", \.proxy.from, value: "CIDR[,CIDR]",
                help: "the proxy's addresses or networks (10.0.0.5, 10.0.0.0/24, fd00::/64): only their requests' "
                    + "--auth-proxy-header is believed; the server must not be reachable around the proxy",
                readme:
                    "the proxy's addresses or networks (`10.0.0.5`, `10.0.0.0/24`, `fd00::/64`; up to 64): only their requests' `--auth-proxy-header` is believed, by the socket's own address (never `X-Forwarded-For`); the server must not be reachable around the proxy",
                defaultText: "none"
            ) { CIDR.parseList($0) },
            proxyValue(
                "--auth-proxy-name-header", \.proxy.nameHeader, value: "NAME",
                help: "the header the proxy puts the display name in (X-Forwarded-Name); without it the member id is "
                    + "the name",
                defaultText: "the member id"
            ) { ProxyAuth.headerName($0).map(Optional.some) },
            choice(
                "--auth-proxy-role", \.proxy.role, cases(of: Role.self), .serve,
                "a proxy user's role on every board where an admin gave them none (PUT /api/boards/{id}/members/"
                    + "{member})", value: "view|edit|admin"),
        ]
    }
}

extension Setting {
    /// An `--auth-proxy-*` value that `parse` checks, or refuses with its problem.
    private static func proxyValue<T>(
        _ flag: String, _ path: WritableKeyPath<ServeOptions, T>, value: String, help: String, readme: String? = nil,
        defaultText: String, _ parse: @escaping (String) -> Result<T, ProxyProblem>
    ) -> Setting {
        Setting(
            flag: flag, value: value, section: .serve, help: help, readme: readme, defaultText: defaultText
        ) { options, text throws(UsageError) in
            switch parse(text ?? "") {
            case .success(let parsed): options[keyPath: path] = parsed
            case .failure(let problem): throw UsageError(message: "\(flag): \(problem.message)")
            }
        }
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
