import TuyaCore

/// Profiles and helpers shared by the controller tests, built in code so they do not
/// depend on the YAML loader.
enum Fixtures {
    static func dp(_ n: Int) -> DataPointID { DataPointID(n)! }

    /// Dimmable white bulb, "Type C": 1 switch, 2 brightness 25–255, 3 temperature 0–255.
    static let whiteBulb = DeviceProfile(
        id: "white-bulb", name: "Dimmable white bulb", category: .light, productIDs: ["keywhite"],
        transports: [.mqtt], frameGapMilliseconds: 0,
        dataPoints: [
            DataPointSpec(id: dp(1), code: "switch_led", type: .bool),
            DataPointSpec(id: dp(2), code: "bright_value", type: .value, range: 25...255),
            DataPointSpec(id: dp(3), code: "temp_value", type: .value, range: 0...255),
        ],
        capabilities: [
            .power: CapabilityBinding(dataPoint: dp(1)),
            .brightness: CapabilityBinding(dataPoint: dp(2)),
            .colorTemperature: CapabilityBinding(dataPoint: dp(3), kelvin: 2700...6500),
        ]
    )

    /// A BLE-only product, to check that MQTT pairing refuses it.
    static let bleOnly = DeviceProfile(
        id: "ble-only", name: "BLE-only diffuser", category: .diffuser, productIDs: ["keyble"],
        transports: [.ble],
        dataPoints: [DataPointSpec(id: dp(1), code: "switch", type: .bool)],
        capabilities: [.power: CapabilityBinding(dataPoint: dp(1))]
    )

    static let library = ProfileLibrary(profiles: [whiteBulb, bleOnly])
}
