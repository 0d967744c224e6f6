import BoardCore
import BoardStore
import Foundation

extension CommandLineParser {
    /// `import-trello FILE --board ID [--data DIR | --store URL]`.
    static func parseImportTrello(_ arguments: [String]) throws(UsageError) -> Command {
        var reader = ArgumentReader(arguments)
        guard let file = reader.positional() else { throw UsageError(message: "import-trello needs a file") }
        let (store, board) = try reader.storeOptions(of: "import-trello", with: "--board") {
            value throws(UsageError) in
            guard let id = BoardID(value) else {
                throw UsageError(message: "'\(value)' is not a board id (1–64 characters of A-Z a-z 0-9 _ -)")
            }
            return id
        }
        guard let board else { throw UsageError(message: "import-trello needs --board ID") }
        return .importTrello(file: file, board: board, store: store)
    }
}

/// `shuffleboard import-trello FILE --board ID`: a Trello "Export as JSON" made into a new board
/// (mapped as `POST /api/boards/import/trello` maps it), stored at once; prints the report (JSON)
/// on stdout. As for `import`, a SQLite data directory must not be in use by a server, and in
/// PostgreSQL the board's lease is taken for the import and given up afterwards.
func importTrello(_ file: String, board: BoardID, store location: StoreLocation) -> Int32 {
    guard let contents = FileManager.default.contents(atPath: file) else {
        printError("shuffleboard: import-trello: cannot read \(file)")
        return 1
    }
    let made: TrelloImport
    do throws(TrelloImport.Refusal) {
        made = try TrelloImport(json: [UInt8](contents), id: board, maxBoardBytes: BoardLimits.defaultMaxBoardBytes)
    } catch {
        printError("shuffleboard: import-trello: \(error.message)")
        return 1
    }
    do throws(StoreError) {
        let store = try openToolStore(location, forExport: false)
        defer { store.close() }
        if let cluster = store as? PostgresStore {
            if case .owned(let node, _) = try cluster.claim(board, force: false) {
                throw StoreError("board \(board) is in use by node \(node)")
            }
        }
        defer { try? (store as? PostgresStore)?.release(board) }
        try store.restore(made.archive, replace: false)
        var w = JSONWriter()
        w.beginObject()
        w.write("board", board.rawValue)
        w.write("seq", made.archive.seq)
        made.report.encode(into: &w, key: "report")
        w.endObject()
        print(String(decoding: w.bytes, as: UTF8.self))
        printError("imported the Trello board as \(board) at seq \(made.archive.seq)")
        return 0
    } catch {
        printError("shuffleboard: import-trello: \(error.message)")
        return 1
    }
}
