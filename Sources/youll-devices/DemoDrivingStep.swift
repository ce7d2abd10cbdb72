import Gateway
import TuyaCore
import TuyaWire

/// The demo's driving step: commands through `youll/<name>/set`, each answered once the
/// device confirmed, one the gateway refuses, and then what a newcomer (or Home Assistant)
/// reads from the broker's retained topics.
enum DemoDrivingStep {
    /// Each command: the device's name, the payload, and what it means in words.
    static let commands: [(String, [String: JSONValue], String)] = [
        (
            "living-room", ["state": .string("ON"), "brightness": .integer(30), "color_temp": .integer(2700)],
            "warm and dim: on, 30 %, 2700 K"
        ),
        (
            "bedroom",
            ["state": .string("ON"), "color": .object(["hue": .integer(30), "saturation": .integer(80)])],
            "amber: hue 30°, 80 % saturation"
        ),
        (
            "diffuser",
            ["state": .string("ON"), "mist": .string("ON"), "led": .string("ON"), "led_brightness": .integer(20)],
            "mist on, LED at 20 %"
        ),
        (
            "ble-diffuser", ["state": .string("ON"), "mist": .string("ON"), "mist_mode": .string("large")],
            "BLE: mist on, large"
        ),
        (DemoLANStep.name, ["state": .string("ON"), "brightness": .integer(60)], "LAN 3.4: on, 60 %"),
        ("living-room", ["brightness": .integer(100), "color_temp": .integer(5000)], "sunrise end: 100 %, 5000 K"),
    ]

    /// Sends every command and one out of range; returns how many were confirmed.
    static func run(_ client: BridgeClient) async throws -> Int {
        let clock = ContinuousClock()
        var confirmed = 0
        for (name, payload, what) in commands {
            let started = clock.now
            let data = try await client.set(device: name, payload: payload, timeout: .seconds(15))
            let elapsed = started.duration(to: clock.now)
            confirmed += 1
            print("  \(name): \(what) → confirmed in \(DemoText.milliseconds(elapsed)) ms")
            print("    \(DemoText.describeState(data.objectValue?["state"]))")
        }
        do {
            _ = try await client.set(
                device: "living-room", payload: ["brightness": .integer(140)], timeout: .seconds(15))
        } catch {
            print("  living-room: brightness 140 → refused: \(error)")
        }
        return confirmed
    }

    /// Prints each paired device's retained state and availability, and the health check.
    static func showRetained(_ client: BridgeClient, names: [String], baseTopic: String) async throws {
        for name in names {
            let state = try await client.retained("\(baseTopic)/\(name)", timeout: .seconds(5))
            let availability = try await client.retained("\(baseTopic)/\(name)/availability", timeout: .seconds(5))
            print(
                "  \(baseTopic)/\(name) [\(availability?.availability ?? "?")]: \(DemoText.describeState(state?.json))")
        }
        let health = try await client.request("health_check", timeout: .seconds(10))
        print("  health_check: \(String(decoding: CompactJSON.encode(health), as: UTF8.self))")
    }
}
