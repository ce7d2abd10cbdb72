import DeviceSimulator
import LocalBroker
import TuyaWire
import YoullTestSupport

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
