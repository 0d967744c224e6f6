import BoardCore
import BoardStore
import Foundation

/// The store the options ask for: SQLite under the data directory, or memory with `--memory`.
func openStore(_ options: ServeOptions) throws(StoreError) -> any BoardStore {
    if options.memory { return MemoryStore() }
    return try SQLiteStore(
        directory: options.dataDirectory, snapshotEvery: options.snapshotEvery,
        keepOps: max(10_000, options.config.historyLimit))
}

/// `shuffleboard export BOARD`: the board's archive on stdout. Works while a server runs.
func exportBoard(_ board: String, data: String) -> Int32 {
    guard let id = BoardID(board) else {
        printError("shuffleboard: '\(board)' is not a board id (1–64 characters of A-Z a-z 0-9 _ -)")
        return 2
    }
    do {
        let store = try SQLiteStore(directory: data, readOnly: true)
        defer { store.close() }
        let json = try BoardArchive.export(from: store, id: id)
        FileHandle.standardOutput.write(Data(json))
        return 0
    } catch {
        printError("shuffleboard: export: \(error.message)")
        return 1
    }
}

/// `shuffleboard import FILE`: puts an exported board into the data directory (the server must
/// not be running on it: the directory lock says so).
func importBoard(_ file: String, data: String, replace: Bool) -> Int32 {
    guard let contents = FileManager.default.contents(atPath: file) else {
        printError("shuffleboard: import: cannot read \(file)")
        return 1
    }
    do {
        let store = try SQLiteStore(directory: data)
        defer { store.close() }
        let archive = try BoardArchive.restore([UInt8](contents), into: store, replace: replace)
        printError("imported board \(archive.id) at seq \(archive.seq) into \(data)")
        return 0
    } catch {
        printError("shuffleboard: import: \(error.message)")
        return 1
    }
}
