import DeviceSimulator
import LANLink
import LocalBroker
import TuyaCore
import TuyaWire
import YoullTestSupport

@testable import TuyaController

extension LANSimulatorOptions {
    /// One simulated LAN bulb speaking `version` on a loopback address of its own (or
    /// `address`), with discovery on free ports and no broadcasts: what the controller suites
    /// that drive one LAN device over real TCP start from.
    static func oneLight(_ version: LANProtocolVersion, at address: String = LANTestAddress.unique()) throws -> Self {
        LANSimulatorOptions(
            lights: 1, diffusers: 0, versions: [version], baseAddress: address,
            discoveryPort: try LocalBroker.freeLoopbackPort(),
            plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(), broadcastInterval: nil,
            seed: UInt64.random(in: 1...1_000_000))
    }
}

/// Starts a simulated fleet of `options` and makes a controller that drives LAN devices over
/// real TCP with `library`, runs `body` with both (the controller not started yet: `body`
/// subscribes to its events first when it needs to), and stops both however `body` ends.
func withLANFleet<T>(
    _ options: LANSimulatorOptions, library: ProfileLibrary,
    _ body: (LANSimulatorFleet, TuyaController) async throws -> T
) async throws -> T {
    let fleet = try LANSimulatorFleet(options: options, library: library)
    try await fleet.start()
    let controller = TuyaController(bus: InMemoryBus(), library: library, lan: LANNetwork(connector: TCPConnector()))
    return try await withCleanup {
        try await body(fleet, controller)
    } cleanup: {
        await controller.stop()
        await fleet.stop()
    }
}
