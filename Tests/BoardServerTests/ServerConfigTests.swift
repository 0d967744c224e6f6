import BoardCore
import BoardHub
import Testing

@testable import BoardServer

/// `ServerConfig.hub` is what the hub is given, in the hub's units (durations, rates with their
/// bursts): the command line writes there directly (Sources/shuffleboard/Settings+*.swift), so
/// the defaults the hub gets are the ones `--help` and README print.
@Suite struct ServerConfigTests {
    @Test func theDefaultsAreTheOnesTheCommandLinePrints() {
        let config = ServerConfig()
        let hub = config.hub
        #expect(
            hub.room.holdTimeout == .seconds(30) && hub.helloTimeout == .seconds(10) && hub.shutdownGrace == .seconds(2)
        )
        #expect(
            hub.room.holdLifetime == .seconds(120) && hub.room.holdCooldown == .seconds(10)
                && hub.firstByteTimeout == .seconds(5))
        #expect(hub.opRate == Rate(perSecond: 100, burst: 200) && hub.messageRate == Rate(perSecond: 200, burst: 400))
        // One default for new connections per address: 20 a second, bursts of twice that, as
        // every rate the command line takes.
        #expect(hub.connectRate == Rate(perSecond: 20, burst: 40))
        #expect(hub.boardCreationRate == Rate(perSecond: 0.5, burst: 30))
        #expect(hub.defaultTemplate == .colors && hub.createBoards && hub.uncappedAddresses.isEmpty && hub.auth == nil)
        #expect(config.httpTimeout == .seconds(15) && config.streamStall == .seconds(30))
        #expect(
            config.forwardTimeout == .seconds(3) && config.lease == .seconds(5) && config.storePipeline == 1
                && config.storeWriters == 4)
    }

    @Test func durationsBecomeWholeSecondsForLwsRoundedUp() {
        #expect(Duration.seconds(15).wholeSeconds == 15)
        #expect(Duration.milliseconds(500).wholeSeconds == 1)
        #expect(Duration.milliseconds(1001).wholeSeconds == 2)
        #expect(Duration.zero.wholeSeconds == 0)
    }
}
