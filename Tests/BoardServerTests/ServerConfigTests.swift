import BoardCore
import BoardHub
import Testing

@testable import BoardServer

/// `ServerConfig.hub` is what the hub is given: the command line's units (seconds, per second)
/// land in it as the hub's (durations, rates with bursts of twice that).
@Suite struct ServerConfigTests {
    @Test func theDefaultsGiveTheHubTheSameSettingsAsTheCommandLinesDefaults() {
        let hub = ServerConfig().hub
        #expect(
            hub.room.holdTimeout == .seconds(30) && hub.helloTimeout == .seconds(10) && hub.shutdownGrace == .seconds(2)
        )
        #expect(
            hub.room.holdLifetime == .seconds(120) && hub.room.holdCooldown == .seconds(10)
                && hub.firstByteTimeout == .seconds(5))
        #expect(hub.opRate == Rate(perSecond: 100, burst: 200) && hub.messageRate == Rate(perSecond: 200, burst: 400))
        #expect(hub.connectRate == Rate(perSecond: 20, burst: 40))
        #expect(hub.boardCreationRate == Rate(perSecond: 0.5, burst: 30))
        #expect(hub.defaultTemplate == .colors && hub.createBoards && hub.uncappedAddresses.isEmpty && hub.auth == nil)
    }

    @Test func settingsInSecondsAndPerSecondLandInTheHubsUnits() {
        var config = ServerConfig()
        config.holdTimeout = 0.3
        config.firstByteTimeout = 0
        config.opRate = 0
        config.connectRate = 7
        config.boardCreationsPerMinute = 12
        config.trustedProxies = ["10.0.0.9"]
        config.defaultTemplate = "kanban"
        #expect(config.hub.room.holdTimeout == .milliseconds(300) && config.holdTimeout == 0.3)
        #expect(config.hub.firstByteTimeout == .zero && config.hub.opRate == nil && config.opRate == 0)
        #expect(config.hub.connectRate == Rate(perSecond: 7, burst: 14))
        #expect(config.hub.boardCreationRate == Rate(perSecond: 0.2, burst: 12) && config.boardCreationsPerMinute == 12)
        #expect(config.hub.uncappedAddresses == ["10.0.0.9"])
        #expect(config.hub.defaultTemplate == .kanban)
    }
}
