import BoardCore
import Testing

@testable import BoardStore

/// The shared store tests (`StoreContract`) on SQLite.
@Suite struct SQLiteStoreTests {
    let contract = StoreContract(backend: .sqlite)

    @Test func createdBoardLoadsAtSeqZeroWithNoOps() throws { try contract.createdBoardLoadsAtSeqZeroWithNoOps() }
    @Test func theBoardListIsPagedByID() throws { try contract.theBoardListIsPagedByID() }
    @Test func theMemoryStoreListIsPagedByID() throws {
        try StoreContract(backend: .memory).theBoardListIsPagedByID()
    }
    @Test(arguments: Template.allCases)
    func layoutsAndDetailsSurviveTheStoreAndAnArchive(_ template: Template) throws {
        try contract.layoutsAndDetailsSurviveTheStoreAndAnArchive(template)
    }
    @Test func appendedOpsLoadAsTheReplayedBoardWithTheNewestOps() throws {
        try contract.appendedOpsLoadAsTheReplayedBoardWithTheNewestOps()
    }
    @Test func creatingAnExistingBoardKeepsIt() throws { try contract.creatingAnExistingBoardKeepsIt() }
    @Test func snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps() throws {
        try contract.snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps()
    }
    @Test func opsSincePagesOldestFirstWithTheCurrentSeq() throws {
        try contract.opsSincePagesOldestFirstWithTheCurrentSeq()
    }
    @Test func opsSinceIsGoneOnceTheOpsAfterItWereCompacted() throws {
        try contract.opsSinceIsGoneOnceTheOpsAfterItWereCompacted()
    }
    @Test func committedOpIDsSurviveARestartForDeduplication() throws {
        try contract.committedOpIDsSurviveARestartForDeduplication()
    }
    @Test func reopeningAfterCloseKeepsEveryBoardAndOp() throws {
        try contract.reopeningAfterCloseKeepsEveryBoardAndOp()
    }
    @Test func deletingABoardRemovesItsSnapshotsAndLog() throws {
        try contract.deletingABoardRemovesItsSnapshotsAndLog()
    }
    @Test func aFailedBatchStoresNothingAndLaterBatchesStillWork() throws {
        try contract.aFailedBatchStoresNothingAndLaterBatchesStillWork()
    }
    @Test func readsRunWhileTheWriterCommits() async throws { try await contract.readsRunWhileTheWriterCommits() }
    @Test func anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps() throws {
        try contract.anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps()
    }
    @Test func aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore() throws {
        try contract.aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore()
    }
    @Test func importRefusesAnExistingBoardUnlessReplacing() throws {
        try contract.importRefusesAnExistingBoardUnlessReplacing()
    }
    @Test func exoticTextRoundTripsByteExact() throws { try contract.exoticTextRoundTripsByteExact() }
    @Test func anEmptyStringIsStoredAsEmptyTextNotNull() throws {
        try contract.anEmptyStringIsStoredAsEmptyTextNotNull()
    }
    @Test func nulInStoredTextRoundTrips() throws { try contract.nulInStoredTextRoundTrips() }
}

/// The same shared store tests on PostgreSQL, each in a fresh database of the test server.
@Suite(.enabled(if: TestPostgres.available, TestPostgres.skipped))
struct PostgresStoreTests {
    let contract = StoreContract(backend: .postgres)

    @Test func createdBoardLoadsAtSeqZeroWithNoOps() throws { try contract.createdBoardLoadsAtSeqZeroWithNoOps() }
    @Test func theBoardListIsPagedByID() throws { try contract.theBoardListIsPagedByID() }
    @Test(arguments: Template.allCases)
    func layoutsAndDetailsSurviveTheStoreAndAnArchive(_ template: Template) throws {
        try contract.layoutsAndDetailsSurviveTheStoreAndAnArchive(template)
    }
    @Test func appendedOpsLoadAsTheReplayedBoardWithTheNewestOps() throws {
        try contract.appendedOpsLoadAsTheReplayedBoardWithTheNewestOps()
    }
    @Test func creatingAnExistingBoardKeepsIt() throws { try contract.creatingAnExistingBoardKeepsIt() }
    @Test func snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps() throws {
        try contract.snapshotsAndCompactionKeepLoadEqualToAReplayOfAllOps()
    }
    @Test func opsSincePagesOldestFirstWithTheCurrentSeq() throws {
        try contract.opsSincePagesOldestFirstWithTheCurrentSeq()
    }
    @Test func opsSinceIsGoneOnceTheOpsAfterItWereCompacted() throws {
        try contract.opsSinceIsGoneOnceTheOpsAfterItWereCompacted()
    }
    @Test func committedOpIDsSurviveARestartForDeduplication() throws {
        try contract.committedOpIDsSurviveARestartForDeduplication()
    }
    @Test func reopeningAfterCloseKeepsEveryBoardAndOp() throws {
        try contract.reopeningAfterCloseKeepsEveryBoardAndOp()
    }
    @Test func deletingABoardRemovesItsSnapshotsAndLog() throws {
        try contract.deletingABoardRemovesItsSnapshotsAndLog()
    }
    @Test func aFailedBatchStoresNothingAndLaterBatchesStillWork() throws {
        try contract.aFailedBatchStoresNothingAndLaterBatchesStillWork()
    }
    @Test func readsRunWhileTheWriterCommits() async throws { try await contract.readsRunWhileTheWriterCommits() }
    @Test func anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps() throws {
        try contract.anExportedBoardImportsIntoAFreshStoreWithTheSameBoardAndOps()
    }
    @Test func aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore() throws {
        try contract.aMemoryStoreExportsItsWholeLogAndImportsIntoTheStore()
    }
    @Test func importRefusesAnExistingBoardUnlessReplacing() throws {
        try contract.importRefusesAnExistingBoardUnlessReplacing()
    }
    @Test func exoticTextRoundTripsByteExact() throws { try contract.exoticTextRoundTripsByteExact() }
    @Test func anEmptyStringIsStoredAsEmptyTextNotNull() throws {
        try contract.anEmptyStringIsStoredAsEmptyTextNotNull()
    }
    @Test func nulInStoredTextRoundTrips() throws { try contract.nulInStoredTextRoundTrips() }
}
