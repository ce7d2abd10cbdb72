import DeviceSimulator
import Gateway
import TuyaCore

/// The demo's pairing step: the simulated Wi-Fi devices and the BLE diffuser paired through
/// the bridge API (`device/add`), then a lamp offered with a wrong local key, which pairing
/// must catch rather than take for an offline device.
enum DemoPairingStep {
    /// The names the demo gives the fleet's devices, in the fleet's order.
    static let names = ["living-room", "bedroom", "diffuser"]

    /// Pairs every device of `fleet` and `bleDiffuser`; returns each name with its category.
    static func run(_ client: BridgeClient, fleet: SimulatorFleet, bleDiffuser: DemoCommand.BLEDiffuser) async throws
        -> [(name: String, category: String)]
    {
        var paired: [(name: String, category: String)] = []
        for (identity, name) in zip(fleet.identities, names) {
            let data = try await client.request(
                "device/add",
                ["id": .string(identity.devId), "local_key": .string(identity.localKey), "name": .string(name)],
                timeout: .seconds(30))
            let profile = data.objectValue?["model"]?.stringValue ?? "?"
            print("  \(name): paired with profile \(profile)")
            paired.append((name, data.objectValue?["category"]?.stringValue ?? "light"))
        }
        let bleData = try await client.request(
            "device/add",
            [
                "id": .string(bleDiffuser.devId), "local_key": .string(bleDiffuser.localKey),
                "name": .string("ble-diffuser"), "transport": .string("ble"), "address": .string(bleDiffuser.address),
                "uuid": .string(bleDiffuser.uuid), "product_id": .string(bleDiffuser.productID),
            ],
            timeout: .seconds(30))
        print("  ble-diffuser: paired over BLE with profile \(bleData.objectValue?["model"]?.stringValue ?? "?")")
        paired.append(("ble-diffuser", "diffuser"))
        return paired
    }

    /// Offers a fresh simulated lamp on `brokerURL` with a wrong key and prints what pairing said.
    static func wrongKey(_ client: BridgeClient, library: ProfileLibrary, brokerURL: String) async throws {
        let stranger = try SimulatorFleet(
            options: .init(lights: 1, diffusers: 0, seed: 99), library: library,
            broker: SwarmConfiguration(brokerURL: brokerURL))
        defer { stranger.stop() }
        if let identity = stranger.identities.first {
            let message = await pairWithWrongKey(client, stranger, identity.devId)
            print("  guest-lamp with key 0000…: \(message)")
        }
    }

    /// A device reveals a wrong key only by what it sends, so the lamp is switched on while
    /// pairing is under way (and off and on again, as a person trying would).
    private static func pairWithWrongKey(_ client: BridgeClient, _ stranger: SimulatorFleet, _ devId: String) async
        -> String
    {
        let toggling = Task {
            try await Task.sleep(for: .milliseconds(100))
            try await stranger.start()
            while true {
                try await Task.sleep(for: .milliseconds(500))
                await stranger.goOffline(devId)
                await stranger.comeOnline(devId)
            }
        }
        defer { toggling.cancel() }
        do {
            _ = try await client.request(
                "device/add",
                ["id": .string(devId), "local_key": .string("0000000000000000"), "name": .string("guest-lamp")],
                timeout: .seconds(30))
            return "paired (unexpected)"
        } catch {
            return "\(error)"
        }
    }
}
