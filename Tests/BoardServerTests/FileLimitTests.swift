import BoardCore
import Testing

@testable import BoardServer

/// The open-file limit at accept (Runtime/FileLimit.swift): which descriptors are refused, and
/// the log lines: the first refusal at once, then at most one every 10 s with the count since.
@Suite struct FileLimitTests {
    private func at(_ seconds: Double) -> Instant { Instant(milliseconds: Int64(seconds * 1000)) }

    @Test func socketsFromTheCeilingUpAreRefusedBelowLWSTable() {
        let limit = FileLimit(limit: 200)
        #expect(FileLimit.table(for: 200) == 136)
        #expect(limit.ceiling == 128)
        #expect(!limit.refuses(127))
        #expect(limit.refuses(128))
        #expect(limit.refuses(199))
    }

    @Test func theSoftLimitIsRaisedToTheHardOneUpToTheKernelsDefaultCeiling() {
        #expect(FileLimit.raisedSoftLimit(soft: 1024, hard: 100_100) == 100_100, "100,000 connections (issue 33)")
        #expect(FileLimit.raisedSoftLimit(soft: 1024, hard: 524_288) == 524_288, "systemd's default hard limit")
        #expect(FileLimit.raisedSoftLimit(soft: 1024, hard: UInt64.max) == 1 << 20, "an unlimited hard limit")
        #expect(FileLimit.raisedSoftLimit(soft: 2_000_000, hard: 2_000_000) == 2_000_000, "never lowered")
        #expect(FileLimit.raisedSoftLimit(soft: 200, hard: 200) == 200)
    }

    @Test func theFirstRefusalIsLoggedAtOnceThenAtMostEveryTenSecondsWithTheCount() throws {
        var limit = FileLimit(limit: 200)
        #expect(limit.accepted(now: at(0)) == nil, "nothing to say before a refusal")
        let firstLine = limit.refused(now: at(1))
        let first = try #require(firstLine)
        #expect(first.hasPrefix("at the open-file limit (200, 72 kept"))
        #expect(limit.phase == .refusing)
        for t in 2...10 { #expect(limit.refused(now: at(Double(t))) == nil) }
        #expect(limit.accepted(now: at(10.5)) == nil, "within 10 s of the last line")
        let stillLine = limit.refused(now: at(11))
        let still = try #require(stillLine)
        #expect(still == "still at the open-file limit (200): 10 connection(s) refused at accept in the last 10 s")
        _ = limit.refused(now: at(12))
        let againLine = limit.accepted(now: at(21))
        let again = try #require(againLine)
        #expect(
            again == "below the open-file limit (200) again: accepting connections; "
                + "1 refused at accept since the last line")
        #expect(limit.phase == .accepting)
        #expect(limit.accepted(now: at(40)) == nil)
    }

    @Test func anEpisodeSoonAfterTheLastLineWaitsForItsTurnAndCarriesItsCount() throws {
        var limit = FileLimit(limit: 1000)
        _ = limit.refused(now: at(0))
        #expect(limit.accepted(now: at(1)) == nil)
        // Flapping at the limit within the 10 s: counted, not logged.
        for t in 2...5 {
            #expect(limit.refused(now: at(Double(t))) == nil)
            #expect(limit.accepted(now: at(Double(t) + 0.5)) == nil)
        }
        let lineLine = limit.accepted(now: at(10))
        let line = try #require(lineLine)
        #expect(line.hasSuffix("4 refused at accept since the last line"))
    }
}
