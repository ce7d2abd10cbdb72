import TuyaCore

/// The standard profiles of protocol/TUYA.md §4, built in code so mapping tests do not
/// depend on the YAML loader.
enum TestProfiles {
    static func id(_ n: Int) -> DataPointID { DataPointID(n)! }

    /// RGB+CCT bulb, Tuya "Type B" (v2) DPs 20–26 (§4.1).
    static let rgbcctBulb = DeviceProfile(
        id: "rgbcct-bulb-v2", name: "RGB+CCT bulb (v2 layout)", category: .light, productIDs: ["keyv2bulb"],
        transports: [.mqtt],
        dataPoints: [
            DataPointSpec(id: id(20), code: "switch_led", type: .bool),
            DataPointSpec(
                id: id(21), code: "work_mode", type: .enumeration, values: ["white", "colour", "scene", "music"]),
            DataPointSpec(id: id(22), code: "bright_value_v2", type: .value, range: 10...1000),
            DataPointSpec(id: id(23), code: "temp_value_v2", type: .value, range: 0...1000),
            DataPointSpec(id: id(24), code: "colour_data_v2", type: .string, colourFormat: .hsv16),
            DataPointSpec(id: id(25), code: "scene_data_v2", type: .string),
            DataPointSpec(id: id(26), code: "countdown_1", type: .value, range: 0...86400),
        ],
        capabilities: [
            .power: CapabilityBinding(dataPoint: id(20)),
            .workMode: CapabilityBinding(dataPoint: id(21)),
            .brightness: CapabilityBinding(dataPoint: id(22)),
            .colorTemperature: CapabilityBinding(dataPoint: id(23), kelvin: 2700...6500),
            .colour: CapabilityBinding(dataPoint: id(24)),
            .scene: CapabilityBinding(dataPoint: id(25)),
            .countdown: CapabilityBinding(dataPoint: id(26)),
        ],
        scenes: [
            NamedScene(name: "night", value: .string("000e0d0000000000000000c80000")),
            NamedScene(name: "read", value: .string("010e0d0000000000000003e801f4")),
        ]
    )

    /// Dimmable white bulb, "Type C": 1 switch, 2 brightness 25–255, 3 temperature 0–255 (§4.1).
    static let whiteBulb = DeviceProfile(
        id: "white-bulb", name: "Dimmable white bulb", category: .light, productIDs: ["keywhite"],
        transports: [.mqtt],
        dataPoints: [
            DataPointSpec(id: id(1), code: "switch_led", type: .bool),
            DataPointSpec(id: id(2), code: "bright_value", type: .value, range: 25...255),
            DataPointSpec(id: id(3), code: "temp_value", type: .value, range: 0...255),
        ],
        capabilities: [
            .power: CapabilityBinding(dataPoint: id(1)),
            .brightness: CapabilityBinding(dataPoint: id(2)),
            .colorTemperature: CapabilityBinding(dataPoint: id(3), kelvin: 2700...6500),
        ]
    )

    /// Modern diffuser, layout M DPs 1–11 (§4.2), with the colour layout as a parameter.
    static func modernDiffuser(colour: ColourFormat = .rgbhsv) -> DeviceProfile {
        DeviceProfile(
            id: "diffuser-m-\(colour.rawValue)", name: "Aroma diffuser (layout M)", category: .diffuser,
            productIDs: ["keydiffm"], transports: [.mqtt, .ble],
            dataPoints: [
                DataPointSpec(id: id(1), code: "switch", type: .bool),
                DataPointSpec(id: id(2), code: "switch_spray", type: .bool),
                DataPointSpec(id: id(3), code: "mode", type: .enumeration, values: ["large", "small", "interval"]),
                DataPointSpec(id: id(4), code: "countdown", type: .enumeration, values: ["cancel", "1", "3", "6"]),
                DataPointSpec(
                    id: id(5), code: "countdown_left", type: .value, range: 0...360, unit: "min", access: .readOnly),
                DataPointSpec(id: id(6), code: "switch_sound", type: .bool),
                DataPointSpec(id: id(7), code: "switch_led", type: .bool),
                DataPointSpec(id: id(8), code: "bright_value", type: .value, range: 0...255),
                DataPointSpec(
                    id: id(9), code: "work_mode", type: .enumeration, values: ["white", "colour", "colourful1"]),
                DataPointSpec(id: id(10), code: "colour_data", type: .string, colourFormat: colour),
                DataPointSpec(id: id(11), code: "fault", type: .bitmap, access: .readOnly),
            ],
            capabilities: [
                .power: CapabilityBinding(dataPoint: id(1)),
                .mist: CapabilityBinding(dataPoint: id(2)),
                .mistMode: CapabilityBinding(dataPoint: id(3)),
                .timer: CapabilityBinding(dataPoint: id(4)),
                .minutesLeft: CapabilityBinding(dataPoint: id(5)),
                .sound: CapabilityBinding(dataPoint: id(6)),
                .ledPower: CapabilityBinding(dataPoint: id(7)),
                .ledBrightness: CapabilityBinding(dataPoint: id(8)),
                .ledMode: CapabilityBinding(dataPoint: id(9)),
                .ledColour: CapabilityBinding(dataPoint: id(10)),
                .fault: CapabilityBinding(dataPoint: id(11)),
            ],
            faults: [FaultLabel(bit: 0, label: "water_shortage")]
        )
    }

    /// Legacy diffuser reduced to its master switch DP1: no separate spray switch (§4.2 layout L).
    static let legacyDiffuser = DeviceProfile(
        id: "diffuser-legacy", name: "Aroma diffuser (legacy)", category: .diffuser, productIDs: ["keydiffl"],
        transports: [.mqtt],
        dataPoints: [DataPointSpec(id: id(1), code: "switch", type: .bool)],
        capabilities: [.power: CapabilityBinding(dataPoint: id(1))]
    )

    static func colour(_ h: Int, _ s: Int, _ v: Int) -> HSVColour { HSVColour(hue: h, saturation: s, value: v)! }
}
