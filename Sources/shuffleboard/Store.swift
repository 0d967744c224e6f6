import BoardStore

/// The store the options ask for.
func openStore(_ options: ServeOptions) throws(StoreError) -> any BoardStore {
    if options.memory { return MemoryStore() }
    // Durable storage lands with the SQLite store; until then the data directory is not used.
    return MemoryStore()
}

func exportBoard(_ board: String, data: String) -> Int32 {
    printError("shuffleboard: export is not available yet")
    return 1
}

func importBoard(_ file: String, data: String, replace: Bool) -> Int32 {
    printError("shuffleboard: import is not available yet")
    return 1
}
