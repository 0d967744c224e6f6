import BoardCore
import Testing

@testable import BoardStore

/// The shared store tests (`StoreContract`), each listed once and run on every store under test:
/// SQLite always, PostgreSQL when there is a test server (`TestPostgres`; each test in a fresh
/// database of its own).
@Suite struct StoreContractTests {
    static let stores: [Backend] = [.sqlite] + (TestPostgres.available ? [.postgres] : [])

    /// Without a server the PostgreSQL runs are left out, and this says so; with one, it shows
    /// the server takes the databases the tests make.
    @Test(.enabled(if: TestPostgres.available, TestPostgres.skipped))
    func theContractAlsoRunsOnPostgreSQL() throws {
        #expect(Self.stores.contains(.postgres))
        try TestPostgres.database().drop()
    }

    @Test(arguments: stores + [.memory])
    func revocationsAreKeptAcrossAReopenUntilTheirTokensWouldHaveExpired(_ store: Backend) throws {
        try StoreContract(backend: store).revocationsAreKeptAcrossAReopenUntilTheirTokensWouldHaveExpired()
    }
    @Test(arguments: stores) func createdBoardLoadsAtSeqZeroWithNoOps(_ store: Backend) throws {
        try StoreContract(backend: store).createdBoardLoadsAtSeqZeroWithNoOps()
    }
    @Test(arguments: stores + [.memory]) func theBoardListIsPagedByID(_ store: Backend) throws {
        try StoreContract(backend: store).theBoardListIsPagedByID()
    }
    @Test(arguments: stores, Template.allCases)
    func layoutsAndDetailsSurviveTheStoreAndAnArchive(_ store: Backend, _ template: Template) throws {
        try StoreContract(backend: store).layoutsAndDetailsSurviveTheStoreAndAnArchive(template)
    }
    @Test(arguments: stores + [.memory])
    func theListSaysWhichTemplateMadeEachBoardThroughOpsAReopenAndAnArchive(_ store: Backend) throws {
        try StoreContract(backend: store).theListSaysWhichTemplateMadeEachBoardThroughOpsAReopenAndAnArchive()
    }
    @Test(arguments: stores) func appendedOpsLoadAsTheReplayedBoardWithTheNewestOps(_ store: Backend) throws {
        try StoreContract(backend: store).appendedOpsLoadAsTheReplayedBoardWithTheNewestOps()
    }
    @Test(arguments: stores) func creatingAnExistingBoardKeepsIt(_ store: Backend) throws {
        try StoreContract(backend: store).creatingAnExistingBoardKeepsIt()
    }
    @Test(arguments: stores) func snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps(_ store: Backend) throws {
        try StoreContract(backend: store).snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps()
    }
    @Test(arguments: stores) func theBoardAtAnySeqIsTheReplayOfTheLogToIt(_ store: Backend) throws {
        try StoreContract(backend: store).theBoardAtAnySeqIsTheReplayOfTheLogToIt()
    }
    @Test(arguments: stores)
    func theHistoryIsNewestFirstWithNamesAndEndsAtTheOldestKept(_ store: Backend) throws {
        try StoreContract(backend: store).theHistoryIsNewestFirstWithNamesAndEndsAtTheOldestKept()
    }
    @Test(arguments: stores) func opsSincePagesOldestFirstWithTheCurrentSeq(_ store: Backend) throws {
        try StoreContract(backend: store).opsSincePagesOldestFirstWithTheCurrentSeq()
    }
    @Test(arguments: stores) func opsSinceIsGoneOnceTheOpsAfterItWereCompacted(_ store: Backend) throws {
        try StoreContract(backend: store).opsSinceIsGoneOnceTheOpsAfterItWereCompacted()
    }
    @Test(arguments: stores) func committedOpIDsSurviveARestartForDeduplication(_ store: Backend) throws {
        try StoreContract(backend: store).committedOpIDsSurviveARestartForDeduplication()
    }
    @Test(arguments: stores) func reopeningAfterCloseKeepsEveryBoardAndOp(_ store: Backend) throws {
        try StoreContract(backend: store).reopeningAfterCloseKeepsEveryBoardAndOp()
    }
    @Test(arguments: stores) func deletingABoardRemovesItsSnapshotsAndLog(_ store: Backend) throws {
        try StoreContract(backend: store).deletingABoardRemovesItsSnapshotsAndLog()
    }
    @Test(arguments: stores) func aFailedBatchStoresNothingAndLaterBatchesStillWork(_ store: Backend) throws {
        try StoreContract(backend: store).aFailedBatchStoresNothingAndLaterBatchesStillWork()
    }
    @Test(arguments: stores) func readsRunWhileTheWriterCommits(_ store: Backend) async throws {
        try await StoreContract(backend: store).readsRunWhileTheWriterCommits()
    }
    @Test(arguments: stores)
    func anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps(_ store: Backend) throws {
        try StoreContract(backend: store).anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps()
    }
    @Test(arguments: stores) func aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore(_ store: Backend) throws {
        try StoreContract(backend: store).aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore()
    }
    @Test(arguments: stores) func importRefusesAnExistingBoardUnlessReplacing(_ store: Backend) throws {
        try StoreContract(backend: store).importRefusesAnExistingBoardUnlessReplacing()
    }
    @Test(arguments: stores) func exoticTextRoundTripsByteExact(_ store: Backend) throws {
        try StoreContract(backend: store).exoticTextRoundTripsByteExact()
    }
    @Test(arguments: stores) func anEmptyStringIsStoredAsEmptyTextNotNull(_ store: Backend) throws {
        try StoreContract(backend: store).anEmptyStringIsStoredAsEmptyTextNotNull()
    }
    @Test(arguments: stores) func nulInStoredTextRoundTrips(_ store: Backend) throws {
        try StoreContract(backend: store).nulInStoredTextRoundTrips()
    }
}
