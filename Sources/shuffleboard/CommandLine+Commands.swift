import BoardAuth
import BoardCore
import Foundation

/// The commands other than `serve`: `token`, `revoke`, `reindex`, `export` and `import`.
extension CommandLineParser {
    static func parseToken(_ arguments: [String]) throws(UsageError) -> TokenOptions {
        var reader = ArgumentReader(arguments)
        guard let board = reader.positional() else { throw UsageError(message: "token needs a board id (or *)") }
        guard board == "*" || BoardID(board) != nil else {
            throw UsageError(message: "'\(board)' is not a board id (1–64 characters of A-Z a-z 0-9 _ -) or *")
        }
        var options = TokenOptions(board: board)
        while let option = try reader.nextOption() {
            switch option {
            case "--role":
                let value = try reader.value(for: option)
                guard Role(rawValue: value) != nil else {
                    throw UsageError(message: "--role must be view, edit or admin, not '\(value)'")
                }
                options.role = value
            case "--ttl":
                let value = try reader.value(for: option)
                guard let seconds = TTL.seconds(value) else {
                    throw UsageError(message: "--ttl must be a number and a unit (30s, 15m, 24h, 7d), not '\(value)'")
                }
                options.ttl = seconds
            case "--auth-secret": options.secretFile = try reader.value(for: option)
            case "--name":
                let value = try reader.value(for: option)
                guard case .success(let name) = Text.displayName(value) else {
                    throw UsageError(message: "--name must be 1–64 characters without control characters")
                }
                options.name = name
            case "--user":
                let value = try reader.value(for: option)
                guard MemberID(value) != nil else {
                    throw UsageError(message: "--user must be a member id (1–64 characters of A-Z a-z 0-9 _ -)")
                }
                options.user = value
            default: throw UsageError(message: "unknown option '\(option)' for token")
            }
        }
        guard options.secretFile != nil else { throw UsageError(message: "token needs --auth-secret FILE") }
        return options
    }

    static func parseRevoke(_ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(arguments)
        guard let token = reader.positional() else { throw UsageError(message: "revoke needs a token") }
        let (store, secretFile) = try reader.storeOptions(of: "revoke", with: "--auth-secret") { $0 }
        guard let secretFile else { throw UsageError(message: "revoke needs --auth-secret FILE") }
        return .revoke(token: token, secretFile: secretFile, store: store)
    }

    static func parseReindex(_ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(arguments)
        if let extra = reader.positional() { throw UsageError(message: "reindex takes no argument ('\(extra)')") }
        return .reindex(store: try reader.storeOptions(of: "reindex"))
    }

    static func parseBoardCommand(_ name: String, _ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(arguments)
        guard let subject = reader.positional() else {
            throw UsageError(message: name == "export" ? "export needs a board id" : "import needs a file")
        }
        var replace = false
        let store = try reader.storeOptions(of: name) { option, _ throws(UsageError) in
            guard option == "--replace", name == "import" else { return false }
            replace = true
            return true
        }
        return name == "export"
            ? .export(board: subject, store: store) : .importBoard(file: subject, store: store, replace: replace)
    }

    /// A `--node` name: 1–128 bytes of letters, digits, `.`, `_` and `-` (it goes into logs,
    /// JSON answers and the store as it is).
}
