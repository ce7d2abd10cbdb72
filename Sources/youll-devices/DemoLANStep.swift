import DeviceSimulator
import Foundation
import Gateway
import LocalBroker
import TuyaCore
import TuyaWire

/// The demo's LAN bulb: a stock Tuya Wi-Fi bulb speaking the LAN protocol 3.4 (session key
/// negotiated, HMAC-signed frames) on TCP 6668 of its own loopback address, announcing
/// itself on a free UDP port, and paired by its address and version as `pair lan` does.
enum DemoLANStep {
    static let name = "lan-bulb"

    /// Starts the bulb; stop it with `stop()`.
    static func start(library: ProfileLibrary) async throws -> LANSimulatorFleet {
        let options = LANSimulatorOptions(
            lights: 1, diffusers: 0, versions: [.v3_4], baseAddress: "127.0.77.1",
            discoveryPort: try LocalBroker.freeLoopbackPort(),
            plaintextDiscoveryPort: try LocalBroker.freeLoopbackPort(),
            broadcastInterval: nil, seed: 3034)
        let fleet = try LANSimulatorFleet(options: options, library: library)
        do {
            try await fleet.start()
        } catch {
            await fleet.stop()
            throw CLIError("the simulated LAN bulb could not start: \(error)")
        }
        return fleet
    }

    /// `device/add` with `transport: lan`; returns the name it was paired as.
    static func pair(_ client: BridgeClient, _ fleet: LANSimulatorFleet) async throws -> String {
        guard let bulb = fleet.identities.first else { throw CLIError("the simulated LAN bulb is missing") }
        let data = try await client.request(
            "device/add",
            [
                "id": .string(bulb.devId), "local_key": .string(bulb.localKey), "name": .string(name),
                "transport": .string("lan"), "ip": .string(bulb.ip), "version": .string(bulb.version.rawValue),
            ],
            timeout: .seconds(30))
        print(
            "  \(name): paired over the LAN (protocol \(bulb.version) at \(bulb.ip):6668) with profile "
                + (data.objectValue?["model"]?.stringValue ?? "?"))
        return name
    }
}
